// Sets read from storage (ValueSet.scala's IndexSet): a collection's documents in id order
// (`Coll.all()`, the core's DocumentsByCollection index), and a v10 index's entries with given
// terms and a `{ from, to }` range of values, in the index's order (values asc/desc, then the
// document). A position is where the next page starts: a document id, or an entry key.

import { Bytes, type Value } from '../../values/types';
import { isExpired } from '../../model/documents';
import { decodePayload } from '../../model/indexer';
import { indexRange } from '../../model/schema10/api';
import type { IndexSrcHint } from '../runtime/hints';
import { ValueSet, type Page, type PageElem, type PageTok } from '../runtime/sets';
import type { CallCtx } from '../runtime/table';
import type { RtValue } from '../runtime/values';
import { DocV } from './docs';
import { fromModel } from './errors';
import { readTimeOf, txnOf } from './hooks';

/** Where a collection's documents live. */
export interface CollRef {
  readonly db: bigint;
  /** Internal id. */
  readonly id: bigint;
  readonly name: string;
}

function snapshotOf(ctx: CallCtx, readTs: bigint | undefined): bigint {
  return readTs ?? readTimeOf(ctx) ?? txnOf(ctx).snapshotTs;
}

/** Inclusive bounds on document ids (`Coll.all({ from, to })`). */
export interface IdRange {
  readonly from?: bigint;
  readonly to?: bigint;
}

/** `Coll.all()`: every live document, by id, within `range`. */
export class CollectionSet extends ValueSet {
  readonly streamRefusal = undefined;
  constructor(
    readonly coll: CollRef,
    /** Valid time (µs) the set was made at, undefined: the reader's. */
    readonly readTs: bigint | undefined,
    readonly reversed = false,
    readonly range: IdRange = {},
  ) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return true;
  }

  override reverse(): ValueSet {
    return new CollectionSet(this.coll, this.readTs, !this.reversed, this.range);
  }

  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const tx = txnOf(ctx);
    const at = snapshotOf(ctx, this.readTs);
    const start = cont !== null && typeof cont[0] === 'bigint' ? cont[0] : undefined;
    const { from, to } = this.range;
    const upTo = to === undefined ? undefined : to + 1n;
    const opts = this.reversed
      ? { reverse: true, fromId: from, toId: start === undefined ? upTo : upTo === undefined || start + 1n < upTo ? start + 1n : upTo }
      : { fromId: start === undefined || (from !== undefined && from > start) ? from : start, toId: upTo };
    const ids: bigint[] = [];
    for await (const d of tx.txn.scan(this.coll.db, Number(this.coll.id), { ...opts, at: this.readTs ?? readTimeOf(ctx) })) {
      if (isExpired(d.version, at)) continue;
      ids.push(d.id);
      if (ids.length > count) break;
    }
    const tokAt = (id: bigint): PageTok => ({ set: this, cont: [id] });
    const elems: PageElem[] = ids.slice(0, count).map((id) => ({ value: new DocV(this.coll.db, this.coll.id, this.coll.name, id, this.readTs), tok: () => tokAt(id) }));
    return { elems, after: ids.length > count ? tokAt(ids[count]) : undefined };
  }
}

/** A range of a v10 index: `Coll.byName("x")`, `Coll.byAge({ from: 20, to: 30 })`. */
export class IndexSet extends ValueSet {
  readonly streamRefusal = undefined;
  constructor(
    readonly coll: CollRef,
    readonly index: string,
    readonly terms: readonly Value[],
    readonly range: { readonly from?: readonly Value[]; readonly to?: readonly Value[] },
    readonly readTs: bigint | undefined,
    readonly reversed = false,
    /** What its documents tell performance hints; a set decoded from a cursor has none. */
    readonly srcHint?: IndexSrcHint,
  ) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return true;
  }

  override reverse(): ValueSet {
    return new IndexSet(this.coll, this.index, this.terms, this.range, this.readTs, !this.reversed, this.srcHint);
  }

  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const tx = txnOf(ctx);
    let r;
    try {
      r = await indexRange(tx, this.coll.db, this.coll.name, this.index, [...this.terms], { from: this.range.from && [...this.range.from], to: this.range.to && [...this.range.to] }, []);
    } catch (e) {
      throw fromModel(e, ctx.trace);
    }
    if (r === undefined) return { elems: [], after: undefined };
    let { from, to } = r;
    const start = cont !== null && cont[0] instanceof Bytes ? cont[0].bytes : undefined;
    if (start !== undefined) {
      if (this.reversed) to = Uint8Array.from([...start, 0]);
      else from = start;
    }
    const entries: { key: Uint8Array; id: bigint }[] = [];
    const scan = tx.txn.scanIndex(r.def.db, r.def.id, { from, to, reverse: this.reversed, at: this.readTs ?? readTimeOf(ctx) });
    for await (const e of scan) {
      const ref = decodePayload(e.payload).ref;
      entries.push({ key: e.key, id: ref.addr?.id ?? BigInt(ref.id) });
      if (entries.length > count) break;
    }
    const tokAt = (key: Uint8Array): PageTok => ({ set: this, cont: [new Bytes(key)] });
    const elems: PageElem[] = entries
      .slice(0, count)
      .map((e) => ({ value: new DocV(this.coll.db, this.coll.id, this.coll.name, e.id, this.readTs, false, undefined, this.srcHint), tok: () => tokAt(e.key) }));
    return { elems, after: entries.length > count ? tokAt(entries[count].key) : undefined };
  }
}
