// The vocabulary of roles (fql-v4.md §6.5): the built-in roles, the actions a role's privilege may
// grant, and the predicate arities each accepts. A module of its own, with no imports, so that
// the dashboard's role editor and role pickers use exactly the server's lists, without bundling
// the server.

export const BUILTIN_ROLES = ['admin', 'server', 'server-readonly', 'client'] as const;
export type BuiltinRole = (typeof BUILTIN_ROLES)[number];

export const ACTIONS = ['read', 'write', 'create', 'create_with_id', 'delete', 'history_read', 'history_write', 'unrestricted_read', 'call'] as const;
export type Action = (typeof ACTIONS)[number];

/** `s` names an action (an own entry of the list: never an inherited property such as `constructor`). */
export function isAction(s: string): s is Action {
  return (ACTIONS as readonly string[]).includes(s);
}

/** Accepted predicate arities per action; `call` takes the call's arguments (any arity). */
export const ACTION_ARITIES: Readonly<Record<Action, readonly number[] | undefined>> = {
  read: [1],
  write: [2, 3],
  create: [1],
  create_with_id: [1, 2],
  delete: [1],
  history_read: [1],
  history_write: [4],
  unrestricted_read: [1],
  call: undefined,
};
