// Rewriting a document's past (Insert/Remove, fql-v4.md §7) rewrites its index history too: the
// add/remove events each index derives from the document's versions are recomputed from the old
// and the new list of versions, the events that changed are replaced, and every entry whose
// latest event changed gets that event as its current state, at its own valid time.

import type { TxnContext } from './context';
import { errors, type Position } from '../values/errors';
import type { Ref } from '../values/types';
import type { IndexAction, Version } from '../storage/types';
import type { SchemaEntry } from './catalog';
import type { IndexDef, IndexEntryValue } from './indexDef';
import { checkEntrySize, entryPayload } from './indexer';
import { checkUnique, entriesOf, indexesFor, keyed, UniqueViolation } from './indexMaintenance';

interface Event {
  key: Uint8Array;
  action: IndexAction;
  entry: IndexEntryValue;
  ts: bigint;
}

interface Timeline {
  /** By `<entry key>@<ts>`. */
  events: Map<string, Event>;
  /** The latest event of each entry key. */
  latest: Map<string, Event>;
}

const same = (a: Event | undefined, b: Event | undefined) =>
  !!a && !!b && a.action === b.action && a.ts === b.ts && Buffer.compare(entryPayload(a.entry), entryPayload(b.entry)) === 0;

/** The index events a document's versions (in ts order) produce in one index. */
async function timeline(ctx: TxnContext, def: IndexDef, ref: Ref, versions: Version[]): Promise<Timeline> {
  const events = new Map<string, Event>();
  const latest = new Map<string, Event>();
  let prev = new Map<string, { key: Uint8Array; entry: IndexEntryValue }>();
  const note = (hex: string, e: Event) => {
    events.set(`${hex}@${e.ts}`, e);
    latest.set(hex, e);
  };
  for (const v of versions) {
    const ts = typeof v.ts === 'bigint' ? v.ts : ctx.snapshotTs;
    const cur = v.action === 'delete' ? new Map<string, { key: Uint8Array; entry: IndexEntryValue }>() : keyed(def, await entriesOf(ctx, def, ref, { ts, fields: v.data ?? new Map() }));
    for (const [hex, { key, entry }] of prev) if (!cur.has(hex)) note(hex, { key, action: 'remove', entry, ts });
    for (const [hex, { key, entry }] of cur) if (!prev.has(hex)) note(hex, { key, action: 'add', entry, ts });
    prev = cur;
  }
  return { events, latest };
}

/** Replaces the index history derived from `before` (the document's versions) by that of `after`. */
export async function rewriteIndexHistory(
  ctx: TxnContext,
  db: bigint,
  coll: SchemaEntry,
  ref: Ref,
  before: Version[],
  after: Version[],
  pos: Position,
  /**
   * Called instead of refusing when an entry of a unique index now collides with another
   * document's (a background migration, which cannot undo the schema update that asked for it).
   */
  duplicate?: (def: IndexDef) => void,
): Promise<void> {
  for (const def of await indexesFor(ctx, db, coll.name)) {
    const old = await timeline(ctx, def, ref, before);
    const now = await timeline(ctx, def, ref, after);
    for (const [id, e] of old.events) if (!same(e, now.events.get(id))) ctx.txn.removeIndexHistory(def.db, def.id, e.key, e.ts);
    for (const [id, e] of now.events) {
      if (same(e, old.events.get(id))) continue;
      const tooLarge = e.action === 'add' ? checkEntrySize(e.entry) : undefined;
      if (tooLarge) throw errors.invalidArgument(tooLarge, pos);
      ctx.txn.putIndexHistory(def.db, def.id, { key: e.key, action: e.action, payload: entryPayload(e.entry) }, e.ts);
    }
    for (const hex of new Set([...old.latest.keys(), ...now.latest.keys()])) {
      const was = old.latest.get(hex);
      const is = now.latest.get(hex);
      if (same(was, is)) continue;
      if (is) {
        if (is.action === 'add' && was?.action !== 'add' && def.unique) {
          try {
            await checkUnique(ctx, def, is.entry, ref, pos);
          } catch (e) {
            if (!(duplicate && e instanceof UniqueViolation)) throw e;
            duplicate(def);
          }
        }
        ctx.txn.putIndexCurrent(def.db, def.id, { key: is.key, action: is.action, payload: entryPayload(is.entry) }, is.ts);
      } else {
        // No version produces the entry any more: it never existed.
        ctx.txn.putIndexCurrent(def.db, def.id, { key: was!.key, action: 'remove', payload: entryPayload(was!.entry) }, 0n);
      }
    }
  }
}
