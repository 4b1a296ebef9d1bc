// The databases tree's own writes beyond create/delete: rename and move (see databaseMoves.ts for
// which moves FQL can make). Names go in as JSON strings.

import type { JsonValue } from '../wire/expr';
import { fql } from './queries';

const str = (s: string): string => JSON.stringify(s);

export const renameDatabase = (name: string, newName: string): JsonValue => fql(`Update(Database(${str(name)}), {name: ${str(newName)}})`);
/** `Database("c", Database("b", Database("a")))` for the path a/b/c below the query's database. */
function databaseRef(path: readonly string[]): string {
  return path.reduce((inner, name) => `Database(${str(name)}${inner ? `, ${inner}` : ''})`, '');
}

/** Moves the database at `from` into the one at `to` (both paths below the query's database, neither empty). */
export const moveDatabase = (from: readonly string[], to: readonly string[]): JsonValue => fql(`MoveDatabase(${databaseRef(from)}, ${databaseRef(to)})`);
