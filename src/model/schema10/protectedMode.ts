// A protected database refuses destructive changes to its v10 collections (CollectionSchemaHooks
// .enforceProtectedMode, CollectionIndexManager, ConstraintFailure.ProtectedModeFailure): deleting
// one, removing or lowering `history_days`, adding or lowering `ttl_days`, and a change that
// deletes a backing index. A database is protected when it or its nearest ancestor that says so is.

import type { Position } from '../../values/errors';
import type { Obj, Value } from '../../values/types';
import type { TxnContext } from '../context';
import { inheritedDatabaseFlag } from '../databases';
import { dropsBackingIndex } from './backing';
import { ConstraintFailureError, InvalidSchemaUpdate } from './errors';
import type { ConstraintFailure } from './schemaType';

const refused = (what: string): ConstraintFailure => ({ paths: [], message: `${what}: destructive change forbidden because database is in protected mode.` });

export async function isProtected(ctx: TxnContext, db: bigint): Promise<boolean> {
  return (await inheritedDatabaseFlag(ctx, db, 'protected')) ?? false;
}

function days(v: Value | undefined): number | undefined {
  return typeof v === 'bigint' || typeof v === 'number' ? Number(v) : undefined;
}

/** Refuses an update of collection fields `prev` to `next` that a protected `db` forbids. */
export async function checkProtectedUpdate(ctx: TxnContext, db: bigint, prev: Obj, next: Obj, summary: string, pos: Position): Promise<void> {
  if (!(await isProtected(ctx, db))) return;
  const failures: ConstraintFailure[] = [];
  const [prevHD, nextHD] = [days(prev.get('history_days')), days(next.get('history_days'))];
  if (prevHD !== undefined && nextHD === undefined) failures.push(refused('Cannot remove `history_days` field'));
  else if (prevHD !== undefined && nextHD !== undefined && nextHD < prevHD) failures.push(refused('Cannot decrease `history_days` field'));
  const [prevTTL, nextTTL] = [days(prev.get('ttl_days')), days(next.get('ttl_days'))];
  // The core's words for adding one, as written (ProtectedModeFailure.AddTTLDays).
  if (prevTTL === undefined && nextTTL !== undefined) failures.push(refused('Cannot remove `ttl_days` field'));
  else if (prevTTL !== undefined && nextTTL !== undefined && nextTTL < prevTTL) failures.push(refused('Cannot decrease `ttl_days` field'));
  if (failures.length) throw new ConstraintFailureError(summary, failures, pos);
  if (dropsBackingIndex(prev, next)) throw new InvalidSchemaUpdate([refused('Cannot cause deletion of backing index')], pos);
}

/** Refuses deleting collection `name` of a protected `db`. */
export async function checkProtectedDelete(ctx: TxnContext, db: bigint, name: string, pos: Position): Promise<void> {
  if (await isProtected(ctx, db)) throw new ConstraintFailureError(`Failed to delete Collection \`${name}\`.`, [refused('Cannot delete collection')], pos);
}
