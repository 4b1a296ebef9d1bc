// The workspace's tabs: one panel shown at a time, (re)opened each time it is shown or the database
// changes, so it never shows what another tab (the query editor, say) has since changed; hidden
// panels cost no queries.

import type { FloraClient } from './client';
import { h, replace } from './dom';
import type { Panel } from './panel';

export interface Tabs {
  readonly element: HTMLElement;
  /** The selected database changed: `client` is scoped to it. */
  use(client: FloraClient): void;
}

export function tabs(panels: readonly Panel[]): Tabs {
  const bar = h('nav', { class: 'tabs', role: 'tablist' });
  const body = h('div', { class: 'tab-body' });
  let client: FloraClient | undefined;
  let shown = panels[0].id;

  const refresh = () => {
    const panel = panels.find((p) => p.id === shown)!;
    for (const b of bar.children) b.setAttribute('aria-selected', String(b.id === `tab-${shown}`));
    replace(body, panel.element);
    if (client) panel.open(client);
  };
  for (const p of panels) {
    p.element.dataset.panel = p.id;
    bar.append(h('button', { type: 'button', role: 'tab', id: `tab-${p.id}`, onclick: () => show(p.id) }, p.label));
  }
  const show = (id: string) => {
    shown = id;
    refresh();
  };
  return {
    element: h('div', { class: 'tabbed' }, bar, body),
    use(c) {
      client = c;
      refresh();
    },
  };
}
