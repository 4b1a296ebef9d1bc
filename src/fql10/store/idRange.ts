// `all({ from, to })` on a collection (CollectionIndexMethod.collectRange with no covered values):
// inclusive bounds on document ids, each given as a document, an ID, an integer or a string of one.

import { schemaOf } from '../../model/resolve';
import { Failures } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { parseJavaLong } from '../runtime/types';
import { IdV, SmallLong, type RtValue, type Struct } from '../runtime/values';
import { CollectionDefV } from './collectionDocs';
import { DocV } from './docs';
import { txnOf } from './hooks';
import { NativeDocV } from './natives';
import type { IdRange } from './sources';

/** The id a bound names; a schema document's is its definition's (none when it is not there). */
async function boundId(ctx: CallCtx, v: RtValue): Promise<bigint | null | undefined> {
  if (v instanceof DocV) return v.id;
  if (v instanceof NativeDocV) {
    if (typeof v.key === 'bigint') return v.key;
    const t = await v.target(ctx);
    return t.kind === 'schema' ? (t.entry?.id ?? null) : null;
  }
  if (v instanceof CollectionDefV) return (await schemaOf(txnOf(ctx), v.db)).get('collections', v.name)?.id ?? null;
  if (v instanceof IdV || v instanceof SmallLong) return v.value;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string') return parseJavaLong(v);
  return undefined;
}

/** `range`'s bounds; other fields are ignored, as the core ignores them. */
export async function idRangeOf(ctx: CallCtx, range: Struct): Promise<IdRange> {
  const bound = async (field: 'from' | 'to'): Promise<bigint | undefined> => {
    const v = range.get(field);
    if (v === undefined) return undefined;
    const id = await boundId(ctx, v);
    if (id === undefined) throw Failures.invalidArgument('range', `The \`${field}\` field must be a document id.`, ctx.trace);
    // A schema document that is not there bounds nothing: past every id from below, before every one from above.
    return id ?? (field === 'from' ? 2n ** 63n : -1n);
  };
  const from = await bound('from');
  const to = await bound('to');
  if (from === undefined && to === undefined)
    throw Failures.invalidArgument('range', 'should be an object contining `{ from }`, `{ to }`, or `{ from, to }` fields', ctx.trace);
  return { from, to };
}

export function inIdRange(id: bigint, r: IdRange): boolean {
  return (r.from === undefined || id >= r.from) && (r.to === undefined || id <= r.to);
}
