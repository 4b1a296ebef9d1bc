// The databases tree's own writes beyond create/delete: rename and move (see databaseMoves.ts for
// which moves FQL can make). Names go in as JSON strings.

import type { JsonValue } from '../wire/expr';
import { fql } from './queries';

const str = (s: string): string => JSON.stringify(s);

export const renameDatabase = (name: string, newName: string): JsonValue => fql(`Update(Database(${str(name)}), {name: ${str(newName)}})`);
/** Both databases are children of the one the query runs in. */
export const moveDatabase = (name: string, into: string): JsonValue => fql(`MoveDatabase(Database(${str(name)}), Database(${str(into)}))`);
