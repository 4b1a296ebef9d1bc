/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A few DOM helpers: the dashboard builds its screens from plain elements, with no UI framework.
// Weighed again for issue 35 (Preact, Lit, Solid): each screen is a form or a table redrawn whole
// from one answer, so a framework's diffing buys little; dialogs and menus are the platform's own
// <dialog> and <details>; the 50+ screens and their browser tests are written against these
// helpers, and a rewrite would move every one without a user-visible gain. The bundle stays one
// file with no dependency of its own beyond the parsers it shares with the server.

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | ((ev: Event) => void) | undefined>;

/** `h('button', {class: 'x', onclick: f}, 'Run')`: an element with attributes, listeners and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, value);
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: Child[]): void {
  for (const c of children) if (c) el.append(c);
}

/** Replaces everything inside `el`. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, ...children);
}
