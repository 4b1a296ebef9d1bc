// Renaming and moving a database, checked against the tree the dashboard has read, so that a name
// that is taken or a move FQL cannot make is explained before anything is sent.
//
// A move is one MoveDatabase in the secret's own database, with nested Database refs on both sides
// (as Fauna's core takes them): any database below the secret's moves up or down the tree. Only
// the secret's own database cannot be a destination: no ref names it from inside.

import type { DatabaseNode } from './databases';
import { pathLabel } from './values';

/** One MoveDatabase, run in the secret's own database: the database at `from` into the one at `to`. */
export interface Move {
  from: string[];
  to: string[];
}


const isPrefix = (prefix: readonly string[], path: readonly string[]) => prefix.length <= path.length && prefix.every((n, i) => path[i] === n);

function nodeAt(root: DatabaseNode, path: readonly string[]): DatabaseNode | undefined {
  let node: DatabaseNode | undefined = root;
  for (let i = 0; node && i < path.length; i++) node = node.children.find((c) => c.path[i] === path[i]);
  return node;
}

const hasChild = (root: DatabaseNode, parent: readonly string[], name: string) =>
  nodeAt(root, parent)?.children.some((c) => c.path[c.path.length - 1] === name) ?? false;

/** Why `name` cannot be the new name of `path`, or undefined when it may be sent (the server checks the characters). */
export function renameProblem(root: DatabaseNode, path: readonly string[], name: string): string | undefined {
  if (path.length === 0) return 'The database the secret belongs to cannot be renamed from here: select a database below it.';
  if (name.trim() === '') return 'Type the new name of the database.';
  if (name === path[path.length - 1]) return `Database ${pathLabel(path)} is already called ${name}.`;
  const parent = path.slice(0, -1);
  if (hasChild(root, parent, name)) return `${pathLabel(parent)} already has a database named ${name}.`;
  return undefined;
}

/** The move that puts `from` into `to`, or the reason it cannot be made. */
export function planMove(root: DatabaseNode, from: readonly string[], to: readonly string[]): Move | string {
  if (from.length === 0) return 'The database the secret belongs to cannot be moved.';
  const name = from[from.length - 1];
  const parent = from.slice(0, -1);
  if (isPrefix(from, to)) return `Cannot move database ${pathLabel(from)} into itself or one of its own children.`;
  if (to.length === parent.length && isPrefix(to, parent)) return `Database ${pathLabel(from)} is already in ${pathLabel(to)}.`;
  if (to.length === 0) return 'Nothing can move into the database the secret belongs to: no Database ref names it from inside. Sign in with a secret of a database above it.';
  if (!nodeAt(root, to)) return `There is no database ${pathLabel(to)}.`;
  if (hasChild(root, to, name)) return `${pathLabel(to)} already has a database named ${name}.`;
  return { from: [...from], to: [...to] };
}
