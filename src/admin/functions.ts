// The selected database's user-defined functions: a table of them; a form that creates one (a
// name, a body in the driver's syntax, an optional role); one function's body shown back in the
// driver's syntax to edit and save, a form that calls it with arguments typed in FQL, and its
// deletion after a confirmation.

import type { JsonValue } from '../wire/expr';
import { renderExpr, renderValue } from '../fqljs/render';
import type { FloraClient } from './client';
import { h, replace } from './dom';
import { fqlField, focusFirstMistake } from './fqlField';
import { asQueryLambda, parseArguments } from './fqlChecks';
import type { Panel } from './panel';
import { attempt, show } from './messages';
import { offerRoles, rolePicker, roleText } from './rolePicker';
import { rolesGranting } from './roleDocument';
import { callFunction, createFunction, deleteFunction, listFunctions, updateFunction } from './securityQueries';
import { field, pageItems, partialListNote } from './values';

const BODY_EXAMPLE = 'Query(Lambda("x", Add(Var("x"), 1)))';
const NO_ROLE = "no role: the body runs with the caller's privileges";

const bodyField = (id: string, label: string) =>
  fqlField({ id, label, placeholder: BODY_EXAMPLE, rows: 5, check: (wire) => asQueryLambda(wire, undefined, BODY_EXAMPLE) });


export function functionsPanel(): Panel {
  const table = h('table', { id: 'functions' });
  const box = h('div', { class: 'messages' });
  const viewer = h('div', { id: 'function-view' });
  const rolesHint = h('p', { class: 'hint', id: 'function-roles-hint' });
  const name = h('input', { id: 'new-function-name', placeholder: 'e.g. increment', required: true });
  const body = bodyField('new-function-body', 'Body: a lambda in the driver\u2019s syntax');
  const role = rolePicker({ id: 'new-function-role', builtIns: true, none: NO_ROLE });
  const form = h(
    'form',
    { id: 'create-function', class: 'stacked' },
    h('h3', {}, 'New function'),
    h('label', { for: 'new-function-name' }, 'Name'),
    name,
    body.element,
    h('label', { for: 'new-function-role' }, 'Role the body runs with (optional)'),
    role.element,
    h('button', { type: 'submit' }, 'Create function'),
  );
  let client: FloraClient | undefined;
  /** The database's roles (documents), offered in the role pickers. */
  let roles: JsonValue[] = [];

  const reload = async () => {
    const c = client!;
    const page = await attempt(box, 'list functions', () => c.query(listFunctions()));
    if (!page) return replace(table);
    const fns = pageItems(page.value);
    replace(
      table,
      h('thead', {}, h('tr', {}, h('th', {}, 'name'), h('th', {}, 'role'), h('th', {}, 'body'))),
      h('tbody', {}, ...fns.map((fn) => {
        const fnName = String(field(fn, 'name'));
        return h('tr', { 'data-name': fnName, onclick: () => view(fn) }, h('td', {}, fnName), h('td', {}, roleText(field(fn, 'role'))), h('td', {}, renderExpr(field(fn, 'body') ?? null, { width: 1e9 })));
      })),
    );
    if (fns.length === 0) table.append(h('caption', {}, 'No functions yet: create one below.'));
    const partial = partialListNote(page.value, 'functions');
    if (partial) table.append(h('caption', { class: 'partial' }, partial));
  };

  /** One function: its body to edit, a call with arguments, and its deletion. */
  const view = (fn: JsonValue) => {
    const c = client!;
    const fnName = String(field(fn, 'name'));
    const edited = bodyField('edit-function-body', 'Body (edit and save to change it)');
    edited.text = renderExpr(field(fn, 'body') ?? null, { width: 72 });
    const editedRole = rolePicker({ id: 'edit-function-role', builtIns: true, none: NO_ROLE });
    editedRole.setRoles(roles.map((r) => String(field(r, 'name'))));
    editedRole.set(field(fn, 'role'));
    const save = h('form', { id: 'save-function', class: 'stacked' }, edited.element, h('label', { for: 'edit-function-role' }, 'Role'), editedRole.element, h('button', { type: 'submit' }, 'Save'));
    const args = fqlField({ id: 'call-arguments', label: 'Arguments, comma-separated (empty for none)', placeholder: '1, "two", {three: 3}', rows: 2, optional: true, parse: parseArguments });
    const result = h('pre', { id: 'call-result', class: 'result' });
    const call = h('form', { id: 'call-function', class: 'stacked' }, h('h4', {}, `Call(Function(${JSON.stringify(fnName)}), …)`), args.element, h('button', { type: 'submit' }, 'Call'), result);
    const remove = h('button', { type: 'button', id: 'delete-function' }, 'Delete function');
    replace(viewer, h('h3', {}, `Function ${fnName}`), save, call, remove);

    save.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const newBody = edited.read();
      if (newBody === undefined || newBody === null) return void focusFirstMistake(save);
      void attempt(box, `save function ${fnName}`, async () => {
        const { value } = await c.query(updateFunction(fnName, newBody, editedRole.value()));
        await reload();
        view(value);
        show(box, `Saved function ${fnName}.`, 'notice');
      });
    });
    call.addEventListener('submit', (ev) => {
      ev.preventDefault();
      replace(result);
      const given = args.read();
      if (given === undefined) return void focusFirstMistake(call);
      void attempt(box, `call ${fnName}`, async () => {
        const { value } = await c.query(callFunction(fnName, (given ?? []) as JsonValue[]));
        replace(result, renderValue(value));
      });
    });
    remove.addEventListener('click', () => {
      const granting = rolesGranting({ kind: 'function', name: fnName }, roles);
      const lost = granting.length ? ` The roles ${granting.join(', ')} lose their privilege to call it.` : '';
      if (!window.confirm(`Delete function ${fnName}? Every Call(Function("${fnName}")) fails from then on.${lost} It cannot be undone.`)) return;
      void attempt(box, `delete function ${fnName}`, async () => {
        await c.query(deleteFunction(fnName));
        replace(viewer);
        await reload();
        show(box, `Deleted function ${fnName}.`, 'notice');
      });
    });
  };

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const newBody = body.read();
    if (newBody === undefined || newBody === null) return void focusFirstMistake(form);
    const fnName = name.value;
    void attempt(box, `create function ${fnName}`, async () => {
      const { value } = await client!.query(createFunction(fnName, newBody, role.value()));
      name.value = '';
      body.text = '';
      role.set(undefined);
      await reload();
      view(value);
      show(box, `Created function ${fnName}.`, 'notice');
    });
  });

  const open = (c: FloraClient) => {
    client = c;
    replace(viewer);
    show(box, null);
    void offerRoles(c, [role], rolesHint).then((found) => (roles = found));
    void reload();
  };
  const element = h('section', { id: 'functions-panel', class: 'panel' }, h('h2', {}, 'Functions'), table, box, viewer, form, rolesHint);
  return { id: 'functions', label: 'Functions', element, open };
}
