// A role as the role editor sees it, and as Fauna's clients write it (fql-v4.md §4.3, §6.5):
// privileges per resource (a collection, an index, a function of the database, or a schema
// resource such as Keys()), each action granted by `true` or a Query(Lambda) predicate, and
// membership entries (a collection, an optional predicate). Pure: the screen parses the
// predicates; this turns them into the CreateRole/Update parameters and reads a role back.

import type { JsonValue } from '../wire/expr';
import { renderExpr } from '../fqljs/render';
import { fql } from './queries';
import { ACTIONS, type Action } from '../model/roleActions';
import { field, objectExpr, refId, userRoleName } from './values';

export { ACTIONS, type Action };

export type Resource =
  | { kind: 'collection' | 'index' | 'function'; name: string }
  /** A native collection, by its id (`keys`, `access_providers`). */
  | { kind: 'schema'; name: string };

/** The schema resources, by native id, with their constructors in the driver. */
export const SCHEMA_RESOURCES: Readonly<Record<string, string>> = {
  collections: 'Collections', indexes: 'Indexes', databases: 'Databases', functions: 'Functions', roles: 'Roles',
  keys: 'Keys', tokens: 'Tokens', credentials: 'Credentials', access_providers: 'AccessProviders',
};

const CONSTRUCTOR = { collection: 'Collection', index: 'Index', function: 'Function' } as const;

/** What each kind of resource can be granted (fql-v4.md §6.5: which actions reach which targets). */
export function actionsOf(r: Resource): readonly Action[] {
  switch (r.kind) {
    case 'collection':
      return ['read', 'write', 'create', 'create_with_id', 'delete', 'history_read', 'history_write', 'unrestricted_read'];
    case 'index':
      return ['read', 'unrestricted_read'];
    case 'function':
      return ['call'];
    case 'schema':
      // Insert/Remove reach keys only among the native collections.
      return r.name === 'keys' ? ['read', 'write', 'create', 'delete', 'history_read', 'history_write'] : ['read', 'write', 'create', 'delete', 'history_read'];
  }
}

/** The resource in the driver's syntax: `Collection("users")`, `Keys()`. */
export function resourceText(r: Resource): string {
  return r.kind === 'schema' ? `${SCHEMA_RESOURCES[r.name]}()` : `${CONSTRUCTOR[r.kind]}(${JSON.stringify(r.name)})`;
}

/** The resource a ref of an answer names, or undefined when a role cannot name it. */
export function resourceOfRef(v: JsonValue | undefined): Resource | undefined {
  const ref = field(v, '@ref');
  const id = field(ref, 'id');
  if (typeof id !== 'string' || field(ref, 'database') !== undefined) return undefined;
  const parent = field(ref, 'collection');
  if (parent === undefined) return id in SCHEMA_RESOURCES ? { kind: 'schema', name: id } : undefined;
  const kind = { collections: 'collection', indexes: 'index', functions: 'function' }[refId(parent)] as Resource['kind'] | undefined;
  return kind && field(field(parent, '@ref'), 'collection') === undefined ? { kind, name: id } : undefined;
}

/** A grant as typed: `true`, or a predicate's wire (Query(Lambda(…))). */
export type Grant = true | JsonValue;

export interface PrivilegeInput {
  resource: Resource;
  actions: [Action, Grant][];
}

export interface MemberInput {
  collection: string;
  predicate: JsonValue | null;
}

/**
 * The object a Fauna client passes to CreateRole (or, with `updating`, to Update(Role(name), …)):
 * privileges and membership as arrays, a resource with no action granted left out. Empty lists
 * are left out of a new role, and null on an update (which removes them, as a new role would
 * lack them).
 */
export function roleParams(name: string, privileges: readonly PrivilegeInput[], membership: readonly MemberInput[], updating: boolean): JsonValue {
  const list = (items: JsonValue[]) => (items.length > 0 ? items : updating ? null : undefined);
  const granted = privileges.filter((p) => p.actions.length > 0);
  return objectExpr({
    name,
    privileges: list(granted.map((p) => objectExpr({ resource: fql(resourceText(p.resource)), actions: objectExpr(Object.fromEntries(p.actions)) }))),
    membership: list(membership.map((m) => objectExpr({ resource: fql(resourceText({ kind: 'collection', name: m.collection })), predicate: m.predicate ?? undefined }))),
  });
}

/** A role read back for the editor: predicates as FQL text in the driver's syntax. */
export interface LoadedRole {
  name: string;
  privileges: { resource: Resource; actions: Map<string, true | string> }[];
  membership: { collection: string; predicate: string }[];
}

const asList = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : v instanceof Map ? [v] : []);
// One line: a predicate sits in a table cell or a list row, where the textarea wraps it.
const predicateText = (v: JsonValue): string => renderExpr(v, { width: 1e9 });

/** An answer's role document for the editor; an Error names what it cannot show (never dropped). */
export function readRole(doc: JsonValue): LoadedRole {
  const name = String(field(doc, 'name') ?? '');
  // One row per resource: entries naming the same resource (the server takes them, and applies
  // each) are merged, so the editor shows, and saving keeps, every action of each.
  const byResource = new Map<string, { resource: Resource; actions: Map<string, true | string> }>();
  for (const p of asList(field(doc, 'privileges'))) {
    const resource = resourceOfRef(field(p, 'resource'));
    if (!resource) throw new Error(`Role ${name} grants privileges on ${predicateText(field(p, 'resource') ?? null)}, which this editor cannot show; change it in the query editor.`);
    const entry = byResource.get(resourceText(resource)) ?? { resource, actions: new Map<string, true | string>() };
    byResource.set(resourceText(resource), entry);
    const given = field(p, 'actions');
    for (const [action, grant] of given instanceof Map ? given : []) {
      // false and null grant nothing: the editor shows them unchecked and saving leaves them out.
      const granted = grant === true ? true : grant instanceof Map ? predicateText(grant) : undefined;
      if (granted === undefined) continue;
      const before = entry.actions.get(action);
      if (before !== undefined && before !== granted) throw new Error(`Role ${name} grants ${action} on ${resourceText(resource)} twice, differently; change it in the query editor.`);
      entry.actions.set(action, granted);
    }
  }
  const privileges = [...byResource.values()];
  const membership = asList(field(doc, 'membership')).map((m) => {
    const resource = resourceOfRef(field(m, 'resource'));
    if (resource?.kind !== 'collection') throw new Error(`Role ${name} has a member resource this editor cannot show; change it in the query editor.`);
    const predicate = field(m, 'predicate');
    return { collection: resource.name, predicate: predicate instanceof Map ? predicateText(predicate) : '' };
  });
  return { name, privileges, membership };
}

/** What a database holds that may use a role (its answers' documents, as read whole). */
export interface RoleUsers {
  keys: JsonValue[];
  functions: JsonValue[];
  providers: JsonValue[];
}

/** Whether an answer's `role`/`roles` value (a ref, a name, an array, `{role, predicate}`) names `role`. */
function names(v: JsonValue | undefined, role: string): boolean {
  if (Array.isArray(v)) return v.some((x) => names(x, role));
  if (v instanceof Map && v.has('role')) return names(v.get('role'), role);
  return userRoleName(v) === role || v === role;
}

/** Who loses the access `role` gives when it is deleted, in words (empty when nobody). */
export function roleDependents(role: LoadedRole, users: RoleUsers): string[] {
  const out: string[] = [];
  for (const key of users.keys) {
    if (!names(field(key, 'role'), role.name)) continue;
    const label = field(field(key, 'data'), 'name');
    out.push(`key ${refId(field(key, 'ref'))}${typeof label === 'string' ? ` ("${label}")` : ''}`);
  }
  for (const fn of users.functions) if (names(field(fn, 'role'), role.name)) out.push(`function ${String(field(fn, 'name'))} (runs with this role)`);
  for (const p of users.providers) if (names(field(p, 'roles'), role.name)) out.push(`access provider ${String(field(p, 'name'))} (the JWTs it accepts)`);
  for (const m of role.membership) out.push(`the tokens of documents in ${m.collection} (members)`);
  return out;
}

/** The names of the roles (answers' documents) whose privileges name `resource`. */
export function rolesGranting(resource: Resource, roles: readonly JsonValue[]): string[] {
  const text = resourceText(resource);
  return roles
    .filter((role) => asList(field(role, 'privileges')).some((p) => {
      const r = resourceOfRef(field(p, 'resource'));
      return r !== undefined && resourceText(r) === text;
    }))
    .map((role) => String(field(role, 'name')));
}
