// The actions a role's privilege may grant and the predicate arities each accepts (fql-v4.md
// §6.5). A module of its own, with no imports, so that the dashboard's role editor checks a
// predicate exactly as the server will, without bundling the server.

/** Accepted predicate arities per action; `call` takes the call's arguments (any arity). */
export const ACTION_ARITIES: Record<string, number[] | undefined> = {
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
