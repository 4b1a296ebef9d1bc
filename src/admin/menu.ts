// A button that opens a short list of actions (rename, move, delete…), so that a screen shows what
// it is about and keeps its actions one click away instead of stacking their forms. A <details>:
// it opens and closes without script; picking an item, Escape, or a click elsewhere closes it.

import { h } from './dom';

export interface MenuItem {
  id: string;
  label: string;
  run(): void;
  /** The action loses something: shown in red. */
  danger?: boolean;
}

export interface Menu {
  readonly element: HTMLDetailsElement;
  /** Enables or disables the item `id` (a disabled item says why in its title). */
  enable(id: string, enabled: boolean, why?: string): void;
}

let closerInstalled = false;
/** One listener for every menu: a click or Escape outside an open menu closes it. */
function installCloser(): void {
  if (closerInstalled) return;
  closerInstalled = true;
  const closeAll = (except?: EventTarget | null) => {
    for (const open of document.querySelectorAll<HTMLDetailsElement>('details.menu[open]')) if (!(except instanceof Node && open.contains(except))) open.open = false;
  };
  document.addEventListener('click', (ev) => closeAll(ev.target));
  document.addEventListener('keydown', (ev) => ev.key === 'Escape' && closeAll());
}

export function menu(id: string, text: string, items: readonly MenuItem[]): Menu {
  installCloser();
  const summary = h('summary', { 'aria-haspopup': 'menu' }, text);
  const buttons = new Map<string, HTMLButtonElement>();
  const list = h('div', { class: 'menu-items', role: 'menu' });
  const element = h('details', { id, class: 'menu' }, summary, list);
  for (const item of items) {
    const button = h('button', {
      type: 'button',
      id: item.id,
      role: 'menuitem',
      class: item.danger ? 'danger' : undefined,
      onclick: () => {
        element.open = false;
        item.run();
      },
    }, item.label);
    buttons.set(item.id, button);
    list.append(button);
  }
  return {
    element,
    enable(itemId, enabled, why) {
      const b = buttons.get(itemId)!;
      b.disabled = !enabled;
      if (enabled || why === undefined) b.removeAttribute('title');
      else b.title = why;
    },
  };
}
