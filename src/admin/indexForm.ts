// The form that creates an index: name, source collection (picked from the database's), terms and
// values as rows (a field path or a binding's name; values may be reversed), bindings (a name and a
// Query(Lambda(…)) body in the driver's syntax), unique and serialized. It reads the rows into an
// IndexForm; indexDefs.ts checks it and turns it into CreateIndex's parameters.

import { h, replace } from './dom';
import type { IndexForm } from './indexDefs';

export interface IndexFormView {
  readonly element: HTMLFormElement;
  /** The database's collections, the choices of the source; `unreadable` says why there are none. */
  setCollections(names: string[], unreadable?: string): void;
  /** Empties the form for the next index. */
  reset(): void;
}

const FIELD_PLACEHOLDER = 'data.customer, or a binding name';
const BINDING_PLACEHOLDER = 'Query(Lambda("doc", Casefold(Select(["data", "name"], Var("doc")))))';

function removable(row: HTMLElement): HTMLElement {
  row.append(h('button', { type: 'button', class: 'remove', title: 'Remove this row', onclick: () => row.remove() }, '✕'));
  return row;
}

const termRow = () => removable(h('div', { class: 'row term' }, h('input', { class: 'field', placeholder: FIELD_PLACEHOLDER })));
const valueRow = () =>
  removable(h('div', { class: 'row value' }, h('input', { class: 'field', placeholder: FIELD_PLACEHOLDER }), h('label', {}, h('input', { type: 'checkbox', class: 'reverse' }), ' reverse')));
const bindingRow = () =>
  removable(
    h('div', { class: 'row binding' }, h('input', { class: 'binding-name', placeholder: 'name, e.g. name_lower' }), h('textarea', { class: 'binding-body', rows: '3', spellcheck: 'false', placeholder: BINDING_PLACEHOLDER })),
  );

export function indexForm(submit: (form: IndexForm) => void): IndexFormView {
  const name = h('input', { id: 'index-name', placeholder: 'e.g. orders_by_customer' });
  const source = h('select', { id: 'index-source' });
  const terms = h('div', { id: 'index-terms', class: 'rows' });
  const values = h('div', { id: 'index-values', class: 'rows' });
  const bindings = h('div', { id: 'index-bindings', class: 'rows' });
  const unique = h('input', { type: 'checkbox', id: 'index-unique' });
  const serialized = h('input', { type: 'checkbox', id: 'index-serialized', checked: true });
  const add = (id: string, label: string, rows: HTMLElement, row: () => HTMLElement) =>
    h('button', { type: 'button', id, onclick: () => rows.append(row()) }, label);
  const element = h(
    'form',
    { id: 'create-index' },
    h('h3', {}, 'New index'),
    h('label', { for: 'index-name' }, 'Name'), name,
    h('label', { for: 'index-source' }, 'Source collection'), source,
    h('fieldset', {}, h('legend', {}, 'Terms: what Match looks up (none: the index lists every document)'), terms, add('add-term', '+ Term', terms, termRow)),
    h('fieldset', {}, h('legend', {}, 'Values: what each entry holds, in sort order (none: the document refs)'), values, add('add-value', '+ Value', values, valueRow)),
    h('fieldset', {}, h('legend', {}, 'Bindings: computed fields, usable as terms or values by their name'), bindings, add('add-binding', '+ Binding', bindings, bindingRow)),
    h('label', {}, unique, ' unique (no two documents with the same terms and values)'),
    h('label', {}, serialized, ' serialized'),
    h('button', { type: 'submit' }, 'Create index'),
  );
  const inputs = (rows: HTMLElement, selector: string) => [...rows.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(selector)].map((i) => i.value);
  element.addEventListener('submit', (ev) => {
    ev.preventDefault();
    submit({
      name: name.value,
      source: source.value,
      terms: inputs(terms, 'input.field'),
      values: [...values.querySelectorAll('.row')].map((row) => ({
        field: row.querySelector<HTMLInputElement>('input.field')!.value,
        reverse: row.querySelector<HTMLInputElement>('input.reverse')!.checked,
      })),
      bindings: [...bindings.querySelectorAll('.row')].map((row) => ({
        name: row.querySelector<HTMLInputElement>('input.binding-name')!.value,
        body: row.querySelector<HTMLTextAreaElement>('textarea.binding-body')!.value,
      })),
      unique: unique.checked,
      serialized: serialized.checked,
    });
  });
  return {
    element,
    setCollections(names, unreadable) {
      const kept = source.value;
      const prompt = unreadable ?? (names.length ? 'choose a collection…' : 'no collections: create one first');
      replace(source, h('option', { value: '' }, prompt), ...names.map((n) => h('option', { value: n }, n)));
      if (names.includes(kept)) source.value = kept;
    },
    reset() {
      name.value = '';
      for (const rows of [terms, values, bindings]) replace(rows);
      unique.checked = false;
      serialized.checked = true;
    },
  };
}
