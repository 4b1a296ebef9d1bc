// Storage format 1 → 2, GraphQL part: a schema imported before references by identity is stored
// without the ids of what it names (storage.ts); they are bound here by the names as they stand.

import type { Engine, WriteOp } from '../storage/engine';
import { KeyTag } from '../storage/keys';
import { prefixEnd } from '../storage/tuple';
import { buildApi } from './api';
import { parseStored, PREFIX, storedRecord, type SchemaIds } from './storage';

export type IdLookup = (db: bigint, native: 'collections' | 'indexes' | 'functions', name: string) => bigint | undefined;

/** The writes that bind every stored schema lacking ids; a schema that no longer builds is left as it is. */
export async function bindStoredSchemas(engine: Engine, idOf: IdLookup): Promise<WriteOp[]> {
  const prefix = Buffer.concat([Buffer.of(KeyTag.Meta), Buffer.from(PREFIX, 'latin1')]);
  const ops: WriteOp[] = [];
  for await (const kv of engine.range({ start: prefix, end: prefixEnd(prefix) })) {
    if (kv.key.length !== prefix.length + 8 || kv.value.length === 0) continue;
    const stored = parseStored(kv.value);
    if (stored.ids()) continue;
    const db = Buffer.from(kv.key.buffer, kv.key.byteOffset, kv.key.length).readBigUInt64BE(prefix.length);
    let model;
    try {
      model = buildApi(stored.sdl()).model;
    } catch {
      continue;
    }
    const bind = (native: 'collections' | 'indexes' | 'functions', names: string[]) => {
      const out: Record<string, string> = {};
      for (const name of names) {
        const id = idOf(db, native, name);
        if (id !== undefined) out[name] = String(id);
      }
      return out;
    };
    const ids: SchemaIds = {
      collections: bind('collections', model.collections.map((c) => c.name)),
      indexes: bind('indexes', model.indexes.map((p) => p.name)),
      functions: bind('functions', model.functions.map((p) => p.name)),
    };
    ops.push({ key: kv.key, value: storedRecord(stored.version, stored.sdl(), ids) });
  }
  return ops;
}
