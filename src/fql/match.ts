// Match(index, terms): the set of an index's entries with those terms, read lazily as a key range.

import { define } from './registry';
import { argPos, evalArg, evalOptional, mismatch } from './args';
import { defineSetShape, type ScanBounds, type SetEntry, type SetSource } from './sets';
import type { IndexEntry } from '../storage/types';
import type { EvalContext } from './context';
import { errors, type Position } from '../values/errors';
import { compareValues, valuesEqual } from '../values/order';
import { Ref, SetV, TxnTime, type Obj, type Value } from '../values/types';
import { resolveRef } from '../model/resolve';
import { checkSetRead } from '../model/permissions';
import { indexDefOf } from '../model/indexSchema';
import type { IndexDef, IndexEntryValue } from '../model/indexDef';
import { cursorBound, namedPayload, prefixEnd, termsPrefix } from '../model/indexer';
import { addressedAll } from '../model/addresses';
import { isCutBound } from '../model/indexKeys';
import { checkIndexMinValidTime } from '../model/retention';

/** Match's index argument: an index ref, or an index name. */
function indexRefOf(v: Value, pos: Position): Ref {
  if (typeof v === 'string') return Ref.schema('indexes', v);
  if (v instanceof Ref && v.nativeParent === 'indexes') return v;
  mismatch('Index Ref', v, pos);
}

define('match', async (call, env, ctx) => {
  // Two wire forms: {"match": index, "terms": t} and the older {"match": terms, "index": index}.
  const older = call.args.has('index');
  const index = indexRefOf(await evalArg(call, older ? 'index' : 'match', env, ctx), argPos(call, older ? 'index' : 'match'));
  const terms = older ? await evalArg(call, 'match', env, ctx) : await evalOptional(call, 'terms', env, ctx);
  const expr: Obj = new Map<string, Value>([['match', index]]);
  // Rendered as Fauna does: no terms omitted, one term unwrapped.
  const list = terms === undefined ? [] : Array.isArray(terms) ? terms : [terms];
  if (list.length === 1) expr.set('terms', list[0]);
  else if (list.length > 1) expr.set('terms', list);
  return new SetV(expr);
});

/** The index a Match set reads, checked for existence, readability and visibility. */
export async function matchedIndex(
  ctx: EvalContext,
  index: Ref,
  pos: Position,
  terms: Value[] = [],
): Promise<{ def: IndexDef; visible?: (ctx: EvalContext, ref: Ref) => Promise<boolean> }> {
  const t = await resolveRef(ctx, index, pos);
  if (t.kind !== 'schema' || t.native !== 'indexes') throw errors.typeMismatch('Index Ref', 'Ref', pos);
  if (!t.entry) throw errors.invalidRef(`Ref refers to undefined index '${t.name}'`, pos);
  if (t.entry.ts instanceof TxnTime)
    throw errors.invalidArgument('An index cannot be created and read in the same transaction.', pos);
  // User roles: `read` on the index (predicate gets the terms), then each document is filtered by
  // `read` on its collection unless the index grants `unrestricted_read`.
  const visible = await checkSetRead(ctx, { ...t, entries: true }, pos, [terms]);
  return { def: indexDefOf(t.db, t.entry), visible };
}

/** A Match set read: its index, terms and the entry-key range they select. */
export interface MatchedSet {
  index: Ref;
  terms: Value[];
  def: IndexDef;
  visible?: (ctx: EvalContext, ref: Ref) => Promise<boolean>;
  /** The terms with their refs addressed, as entry keys hold them. */
  keyTerms: Value[];
  /** Entry-key prefix of the terms. */
  prefix: Uint8Array;
  /** Wrong arity matches nothing; a one-term index takes a scalar or a one-element array alike. */
  arityOk: boolean;
  /** Whether an entry's terms are the matched ones: a cut prefix (huge terms) also covers entries that only share its first bytes. */
  matches(entryTerms: Value[]): boolean;
}

/** Opens a `{match, terms}` set value (Paginate, Events and streams of a Match all read it so). */
export async function openMatch(ctx: EvalContext, set: SetV, pos: Position): Promise<MatchedSet> {
  const index = set.expr.get('match');
  if (!(index instanceof Ref)) throw errors.invalidArgument('Invalid set.', pos);
  const given = set.expr.get('terms');
  const terms = given === undefined ? [] : Array.isArray(given) ? given : [given];
  const { def, visible } = await matchedIndex(ctx, index, pos, terms);
  // Entries hold refs by address: a term ref names one, or is `invalid ref` (as Fauna had it).
  const keyTerms = await addressedAll(ctx, terms, pos);
  const prefix = termsPrefix(def, keyTerms);
  const cut = isCutBound(prefix);
  return {
    index,
    terms,
    keyTerms,
    def,
    visible,
    prefix,
    arityOk: terms.length === def.terms.length,
    matches: (entryTerms) => !cut || entryTerms.every((t, i) => valuesEqual(t, keyTerms[i])),
  };
}

type Element = SetEntry | undefined | Promise<SetEntry | undefined>;

function elementOf(values: Value[], ref: Value): SetEntry {
  const value = values.length === 0 ? ref : values.length === 1 ? values[0] : values;
  return { cursor: [...values, ref], value };
}

/** Orders cursors [values…, ref] with the index's reverse flags. */
function compareEntries(def: IndexDef): (a: SetEntry, b: SetEntry) => number {
  const reversed = def.values.map((v) => v.reverse);
  return (a, b) => {
    const n = Math.min(a.cursor.length, b.cursor.length);
    for (let i = 0; i < n; i++) {
      const c = compareValues(a.cursor[i], b.cursor[i]);
      if (c !== 0) return reversed[i] ? -c : c;
    }
    return a.cursor.length - b.cursor.length;
  };
}

defineSetShape('match', async (ctx, set, pos): Promise<SetSource> => {
  const { keyTerms: terms, def, visible, prefix, arityOk, matches } = await openMatch(ctx, set, pos);

  /** The index entries within the bounds, and the time their refs are named at. */
  const entries = async (ctx: EvalContext, b: ScanBounds) => {
    const from = b.from && b.from.length ? cursorBound(def, terms, await addressedAll(ctx, b.from, pos)) : prefix;
    // An index with neither terms nor a bound reads to its end.
    let to = prefix.length ? prefixEnd(prefix) : undefined;
    if (b.to && b.to.length) {
      const bound = cursorBound(def, terms, await addressedAll(ctx, b.to, pos));
      to = b.toInclusive ? prefixEnd(bound) : bound;
    }
    if (b.at !== undefined) await checkIndexMinValidTime(ctx, def, b.at);
    return { at: b.at ?? ctx.snapshotTs, read: ctx.txn.scanIndex(def.db, def.id, { from, to, reverse: b.reverse, at: b.at }) };
  };

  /**
   * An index entry as a set element; undefined when its terms differ (a cut bound) or it is not
   * visible. A promise only when something must be waited for (a pause, names, a visibility read).
   */
  const element = (ctx: EvalContext, e: IndexEntry, at: bigint): Element => {
    const pause = ctx.budget.breathe();
    if (pause) return pause.then(() => named(ctx, e, at));
    return named(ctx, e, at);
  };
  const named = (ctx: EvalContext, e: IndexEntry, at: bigint): Element => {
    const payload = namedPayload(ctx.txn, e.payload, at);
    return payload instanceof Promise ? payload.then((p) => visibleElement(ctx, p)) : visibleElement(ctx, payload);
  };
  const visibleElement = (ctx: EvalContext, { terms: entryTerms, values, ref }: IndexEntryValue): Element => {
    if (!matches(entryTerms)) return undefined;
    if (visible && ref instanceof Ref) return visible(ctx, ref).then((ok) => (ok ? elementOf(values, ref) : undefined));
    return elementOf(values, ref);
  };

  return {
    set,
    compare: compareEntries(def),
    async *scan(ctx, b) {
      if (!arityOk) return;
      const { at, read } = await entries(ctx, b);
      for await (const e of read) {
        const r = element(ctx, e, at);
        const el = r instanceof Promise ? await r : r;
        if (el) yield el;
      }
    },
    // A page reads its entries in one loop: no generator step per entry between here and the store.
    async take(ctx, b, n) {
      const out: SetEntry[] = [];
      if (!arityOk || n <= 0) return out;
      const { at, read } = await entries(ctx, b);
      const add = (r: Element): boolean | Promise<boolean> => (r instanceof Promise ? r.then(add) : r !== undefined && out.push(r) >= n);
      if (Symbol.asyncIterator in read) {
        for await (const e of read) if (await add(element(ctx, e, at))) break;
      } else {
        for (const e of read) {
          const full = add(element(ctx, e, at));
          if (full instanceof Promise ? await full : full) break;
        }
      }
      return out;
    },
  };
});
