// Renaming and moving a database, checked against the tree the dashboard has read, so that a name
// that is taken or a move FQL cannot make is explained before anything is sent.
//
// Flora's MoveDatabase (model/databases.ts) takes two Database refs that are children of the
// database the query runs in: a nested (scoped) ref is refused as "Cannot write a scoped ref". So
// a database moves into a sibling in one step, and deeper (into a sibling's descendant) in one step
// per level; it never moves up, and nothing can name the secret's own database as a destination.

import type { DatabaseNode } from './databases';

/** One MoveDatabase: in database `scope`, Database(name) into its sibling Database(into). */
export interface MoveStep {
  scope: string[];
  name: string;
  into: string;
}

export const pathLabel = (path: readonly string[]): string => (path.length ? path.join('/') : '(root)');

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

/** The MoveDatabase steps that put `from` into `to`, or the reason no such steps exist. */
export function planMove(root: DatabaseNode, from: readonly string[], to: readonly string[]): MoveStep[] | string {
  if (from.length === 0) return 'The database the secret belongs to cannot be moved.';
  const name = from[from.length - 1];
  const parent = from.slice(0, -1);
  if (isPrefix(from, to)) return `Cannot move database ${pathLabel(from)} into itself or one of its own children.`;
  if (to.length === parent.length && isPrefix(to, parent)) return `Database ${pathLabel(from)} is already in ${pathLabel(to)}.`;
  if (!isPrefix(parent, to))
    return `Database ${pathLabel(from)} can only move into databases under ${pathLabel(parent)}: FQL's MoveDatabase names both databases from the one that holds them, so a database never moves up.`;
  if (!nodeAt(root, to)) return `There is no database ${pathLabel(to)}.`;
  const steps: MoveStep[] = [];
  for (let depth = parent.length; depth < to.length; depth++) {
    const into = to.slice(0, depth + 1);
    if (hasChild(root, into, name)) return `${pathLabel(into)} already has a database named ${name}.`;
    steps.push({ scope: to.slice(0, depth), name, into: to[depth] });
  }
  return steps;
}
