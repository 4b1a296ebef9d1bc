// Actions that ask for something (a name, settings, JSON) open a modal <dialog> instead of keeping a
// form on the page: its fields, a line for what went wrong (the dialog stays open so it can be put
// right), Cancel and the action's button. Escape or Cancel closes it with nothing done.

import { append, h } from './dom';

type Child = Node | string | null | undefined | false;

export interface DialogSpec {
  /** The <form>'s id (the dialog's is `<id>-dialog`). */
  id: string;
  title: string;
  /** The fields and hints, top to bottom. */
  body: Child[];
  /** The action button's text. */
  submit: string;
  /** Runs on submit with the dialog's message box; resolves true once done (the dialog closes). */
  run(box: HTMLElement): Promise<boolean>;
}

/**
 * Opens the dialog of `spec` over the page; it removes itself once closed. Placed in `host` (a
 * modal dialog shows above everything wherever it is), so that the screen's own selectors and
 * styles reach it.
 */
export function openDialog(spec: DialogSpec, host: HTMLElement = document.body): HTMLDialogElement {
  const box = h('div', { class: 'messages' });
  const submit = h('button', { type: 'submit' }, spec.submit);
  const cancel = h('button', { type: 'button', class: 'cancel', onclick: () => dialog.close() }, 'Cancel');
  const form = h('form', { id: spec.id }, h('h2', {}, spec.title));
  append(form, ...spec.body, box, h('div', { class: 'dialog-actions' }, cancel, submit));
  const dialog = h('dialog', { id: `${spec.id}-dialog`, class: 'dialog' }, form);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (submit.disabled) return;
    submit.disabled = true;
    spec.run(box).then(
      (done) => (done ? dialog.close() : (submit.disabled = false)),
      () => (submit.disabled = false), // run reports its own failures in box
    );
  });
  dialog.addEventListener('close', () => dialog.remove());
  host.append(dialog);
  dialog.showModal();
  return dialog;
}

/** A labelled field of a dialog: label, input and an optional hint under it. */
export function labelled(id: string, label: string, input: HTMLElement, hint?: string): HTMLElement {
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint !== undefined && h('p', { class: 'hint', id: `${id}-hint` }, hint));
}
