// Choosing a role as a `role` field takes it (a key's, a function's, an access provider's): a built-in
// role's name or Role("name") for one of the database's roles. A value the choices cannot show (an
// array of roles, a role since deleted) is kept as it came and offered as its own choice, so
// saving never drops it.

import type { JsonValue } from '../wire/expr';
import { renderValue } from '../fqljs/render';
import type { FloraClient } from './client';
import { h, replace } from './dom';
import { describeError } from './messages';
import { fql } from './queries';
import { listRoles } from './securityQueries';
import { BUILTIN_ROLES } from '../model/roleActions';
import { field, pageItems, userRoleName } from './values';

export interface RolePickerOptions {
  id: string;
  /** Offer the built-in roles as well as the database's. */
  builtIns: boolean;
  /** The label of "no role", or undefined when a role must be chosen. */
  none?: string;
}

export interface RolePicker {
  readonly element: HTMLSelectElement;
  /** The database's roles, by name (the choice made so far stays when it is still offered). */
  setRoles(names: readonly string[]): void;
  /** Chooses the role of an answer's `role` field (a built-in's name, a role ref, absent). */
  set(role: JsonValue | undefined): void;
  /** The choice as an expression: "server", Role("name"), the kept value, or null for none. */
  value(): JsonValue;
  /** The choice in words, for messages. */
  label(): string;
}

/** A `role` field in words, for tables: `server`, a role's name, or the value as it is (an array); '' for none. */
export function roleText(role: JsonValue | undefined): string {
  if (role === undefined || role === null) return '';
  return typeof role === 'string' ? role : userRoleName(role) || renderValue(role, { width: 1e9 });
}

export function rolePicker(options: RolePickerOptions): RolePicker {
  const select = h('select', { id: options.id });
  let roles: readonly string[] = [];
  let kept: JsonValue | undefined;

  const render = (chosen: string) => {
    const group = (label: string, items: HTMLOptionElement[]) => items.length > 0 && h('optgroup', { label }, ...items);
    const option = (value: string, text: string) => h('option', { value }, text);
    const userRoles = roles.map((r) => option(`role:${r}`, r));
    const chosenRole = chosen.startsWith('role:') ? chosen.slice(5) : '';
    if (chosenRole && !roles.includes(chosenRole)) userRoles.push(option(chosen, `${chosenRole} (not found)`));
    replace(
      select,
      options.none !== undefined && option('', options.none),
      kept !== undefined && option('kept', `as it is: ${renderValue(kept, { width: 1e9 })}`),
      options.builtIns && group('Built-in roles', BUILTIN_ROLES.map((r) => option(`builtin:${r}`, r))),
      group('Roles of this database', userRoles),
    );
    select.value = chosen;
    if (select.value !== chosen && select.options.length > 0) select.selectedIndex = 0;
  };

  return {
    element: select,
    setRoles(names) {
      roles = names;
      render(select.value);
    },
    set(role) {
      kept = undefined;
      let chosen = '';
      if (typeof role === 'string' && (BUILTIN_ROLES as readonly string[]).includes(role)) chosen = `builtin:${role}`;
      else if (userRoleName(role)) chosen = `role:${userRoleName(role)}`;
      else if (role !== undefined && role !== null) {
        kept = role;
        chosen = 'kept';
      }
      render(chosen);
    },
    value() {
      const v = select.value;
      if (v === 'kept') return kept ?? null;
      if (v.startsWith('builtin:')) return v.slice(8);
      if (v.startsWith('role:')) return fql(`Role(${JSON.stringify(v.slice(5))})`);
      return null;
    },
    label() {
      return select.selectedOptions[0]?.textContent ?? '';
    },
  };
}

/**
 * Offers the database's roles in `pickers` and returns their documents; a key that may not list
 * them leaves the pickers as they were, and `hint` says why.
 */
export async function offerRoles(client: FloraClient, pickers: readonly RolePicker[], hint: HTMLElement): Promise<JsonValue[]> {
  hint.textContent = '';
  try {
    const roles = pageItems((await client.query(listRoles())).value);
    const names = roles.map((r) => String(field(r, 'name')));
    for (const p of pickers) p.setRoles(names);
    return roles;
  } catch (err) {
    hint.textContent = `The database's own roles are not offered: ${describeError(err, 'list roles')}`;
    return [];
  }
}
