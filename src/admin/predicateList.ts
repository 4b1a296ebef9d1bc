// Rows of (a choice, an optional predicate), added and removed by the user: a role's membership
// (a collection, and a predicate on the identity) and an access provider's roles (a role, and a
// predicate on the JWT's payload).

import type { JsonValue } from '../wire/expr';
import { h, replace } from './dom';
import { fqlField, type FqlField } from './fqlField';
import { asQueryLambda } from './fqlChecks';

export interface PredicateListOptions {
  id: string;
  /** Read out for each row's select, e.g. "member collection". */
  choiceLabel: string;
  addLabel: string;
  /** Shown when there are no rows. */
  empty: string;
  /** Shown in the row's predicate field, e.g. Query(Lambda("ref", …)). */
  example: string;
  /** Shown when there is nothing to choose from. */
  noChoices: string;
}

export interface PredicateRow {
  choice: string;
  /** Query(Lambda(…)) as wire, or null for none. */
  predicate: JsonValue | null;
}

export interface PredicateList {
  readonly element: HTMLElement;
  setChoices(names: readonly string[]): void;
  /** Replaces the rows (predicates as FQL text, '' for none). */
  set(rows: readonly { choice: string; predicate: string }[]): void;
  /** The rows, or undefined when a predicate has a mistake (shown at its field). */
  read(): PredicateRow[] | undefined;
}

export function predicateList(options: PredicateListOptions): PredicateList {
  const list = h('ol', { id: options.id, class: 'predicate-list' });
  const add = h('button', { type: 'button', id: `${options.id}-add`, class: 'add' }, options.addLabel);
  const note = h('p', { class: 'hint' });
  const rows: { item: HTMLElement; select: HTMLSelectElement; predicate: FqlField }[] = [];
  let choices: readonly string[] = [];
  let made = 0;

  const fillSelect = (select: HTMLSelectElement, chosen: string) => {
    const names = choices.includes(chosen) || !chosen ? choices : [...choices, chosen];
    replace(select, ...names.map((n) => h('option', { value: n }, n)));
    select.value = chosen || names[0] || '';
  };
  const refresh = () => {
    note.textContent = rows.length === 0 ? options.empty : '';
    add.disabled = choices.length === 0;
    if (choices.length === 0) note.textContent = options.noChoices;
  };
  const addRow = (choice: string, predicate: string) => {
    const n = made++;
    const select = h('select', { id: `${options.id}-${n}-choice`, 'aria-label': options.choiceLabel });
    fillSelect(select, choice);
    const field = fqlField({
      id: `${options.id}-${n}-predicate`,
      label: `predicate (optional) for the ${options.choiceLabel}`,
      placeholder: `optional predicate, e.g. ${options.example}`,
      rows: 1,
      compact: true,
      optional: true,
      check: (wire) => asQueryLambda(wire, [1], options.example),
    });
    field.text = predicate;
    const row = { item: h('li', { class: 'entry' }), select, predicate: field };
    const remove = h('button', { type: 'button', class: 'remove', 'aria-label': `remove this ${options.choiceLabel}` }, 'Remove');
    remove.addEventListener('click', () => {
      rows.splice(rows.indexOf(row), 1);
      row.item.remove();
      refresh();
    });
    row.item.append(select, field.element, remove);
    rows.push(row);
    list.append(row.item);
    refresh();
  };
  add.addEventListener('click', () => addRow('', ''));

  return {
    element: h('div', { class: 'predicate-list-field' }, list, note, add),
    setChoices(names) {
      choices = names;
      for (const r of rows) fillSelect(r.select, r.select.value);
      refresh();
    },
    set(entries) {
      rows.splice(0).forEach((r) => r.item.remove());
      for (const e of entries) addRow(e.choice, e.predicate);
      refresh();
    },
    read() {
      const out: PredicateRow[] = [];
      let ok = true;
      for (const r of rows) {
        const predicate = r.predicate.read();
        if (predicate === undefined) ok = false;
        else out.push({ choice: r.select.value, predicate });
      }
      return ok ? out : undefined;
    },
  };
}
