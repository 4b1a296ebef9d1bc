// A role's privileges as a matrix: one row per resource (the database's collections, indexes and
// functions, then the schema resources), one column per action, a checkbox in each cell that the
// resource has, and under a ticked box an optional predicate: with one, the action is granted only
// when the predicate returns true. A grant the role already holds is shown even where the
// resource's usual actions would not have a cell, so saving never drops it.

import { ACTION_ARITIES } from '../model/roleActions';
import { h, replace } from './dom';
import { fqlField, type FqlField } from './fqlField';
import { asQueryLambda } from './fqlChecks';
import { ACTIONS, actionsOf, resourceText, type Action, type Grant, type LoadedRole, type PrivilegeInput, type Resource } from './roleDocument';

/** The parameters each action's predicate gets, for the examples (fql-v4.md §6.5). */
const PARAMS: Record<Action, string> = {
  read: '"ref"',
  write: '["old", "new"]',
  create: '"new"',
  create_with_id: '"new"',
  delete: '"ref"',
  history_read: '"ref"',
  history_write: '["ref", "ts", "action", "data"]',
  unrestricted_read: '"terms"',
  call: '"args"',
};

const predicateExample = (action: Action): string => `Query(Lambda(${PARAMS[action]}, true))`;

interface Cell {
  action: Action;
  box: HTMLInputElement;
  /** The predicate field, made when the box is first ticked (a large database has thousands of cells). */
  predicate(): FqlField;
}

interface Row {
  resource: Resource;
  cells: Cell[];
}

export interface PrivilegeMatrix {
  readonly element: HTMLElement;
  /** Rows for `resources` (and for any other resource `role` names), ticked as `role` grants. */
  load(resources: readonly Resource[], role: LoadedRole | undefined): void;
  /** The privileges as ticked, or undefined when a predicate has a mistake (shown in its cell). */
  read(): PrivilegeInput[] | undefined;
}

const GROUPS: [Resource['kind'], string][] = [
  ['collection', 'Collections (their documents)'],
  ['index', 'Indexes'],
  ['function', 'Functions'],
  ['schema', 'Schema and security documents'],
];

export function privilegeMatrix(): PrivilegeMatrix {
  const table = h('table', { id: 'privileges', class: 'matrix' });
  let rows: Row[] = [];

  const cell = (resource: Resource, action: Action, grant: true | string | undefined): [HTMLElement, Cell] => {
    const text = resourceText(resource);
    const id = `grant-${rows.length}-${action}`;
    const box = h('input', { type: 'checkbox', class: 'grant', id, 'aria-label': `${action} on ${text}` });
    const td = h('td', { 'data-resource': text, 'data-action': action }, box);
    let field: FqlField | undefined;
    const predicate = () => {
      if (field) return field;
      field = fqlField({
        id: `${id}-predicate`,
        label: `predicate for ${action} on ${text} (optional: without one the action is always granted)`,
        placeholder: `optional, e.g. ${predicateExample(action)}`,
        rows: 2,
        compact: true,
        optional: true,
        check: (wire) => asQueryLambda(wire, ACTION_ARITIES[action], predicateExample(action)),
      });
      td.append(field.element);
      return field;
    };
    box.checked = grant !== undefined;
    if (typeof grant === 'string') predicate().text = grant;
    box.addEventListener('change', () => (predicate().element.hidden = !box.checked));
    if (box.checked) predicate();
    return [td, { action, box, predicate }];
  };

  const rowElement = (resource: Resource, granted: Map<string, true | string>): HTMLElement => {
    const offered = actionsOf(resource);
    const tr = h('tr', { 'data-resource': resourceText(resource) }, h('th', { scope: 'row' }, resourceText(resource)));
    const row: Row = { resource, cells: [] };
    for (const action of ACTIONS) {
      if (!offered.includes(action) && !granted.has(action)) {
        tr.append(h('td', { class: 'na', title: `${resourceText(resource)} has no ${action} action` }, ''));
        continue;
      }
      const [td, c] = cell(resource, action, granted.get(action));
      tr.append(td);
      row.cells.push(c);
    }
    rows.push(row);
    return tr;
  };

  return {
    element: h('div', { class: 'matrix-scroll' }, table),
    load(resources, role) {
      rows = [];
      const grants = new Map((role?.privileges ?? []).map((p) => [resourceText(p.resource), p]));
      const all = [...resources];
      for (const p of role?.privileges ?? []) if (!all.some((r) => resourceText(r) === resourceText(p.resource))) all.push(p.resource);
      const head = h('thead', {}, h('tr', {}, h('th', {}, 'Resource'), ...ACTIONS.map((a) => h('th', { scope: 'col' }, a.replace(/_/g, ' ')))));
      const body = GROUPS.flatMap(([kind, title]) => {
        const members = all.filter((r) => r.kind === kind);
        if (members.length === 0) return [];
        return [
          h('tr', { class: 'group' }, h('th', { colspan: String(ACTIONS.length + 1) }, title)),
          ...members.map((r) => rowElement(r, grants.get(resourceText(r))?.actions ?? new Map())),
        ];
      });
      replace(table, head, h('tbody', {}, ...body));
    },
    read() {
      let ok = true;
      const out = rows.map((row) => {
        const actions: [Action, Grant][] = [];
        for (const c of row.cells) {
          if (!c.box.checked) continue;
          const predicate = c.predicate().read();
          if (predicate === undefined) ok = false;
          else actions.push([c.action, predicate ?? true]);
        }
        return { resource: row.resource, actions };
      });
      return ok ? out : undefined;
    },
  };
}
