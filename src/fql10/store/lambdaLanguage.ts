// The v10 language behind model/lambdaLanguage.ts: role and access-provider predicates and
// function bodies stored as v10 source, checked when written and run by the v10 evaluator
// whichever language's request needs them (a v4 Get checked by a v10 read predicate, a v4 Call
// of a v10 function). Installed with the schema language (schemaLanguage.ts).

import type { TxnContext } from '../../model/context';
import { PendingDoc, type LambdaArg, type LambdaLanguage } from '../../model/lambdaLanguage';
import { schemaOf } from '../../model/resolve';
import { QueryError } from '../../values/errors';
import { pendingDefinition } from '../../model/schema10/api';
import { Ref, type NativeName, type Value } from '../../values/types';
import { error, renderSummary } from '../diagnostic';
import { Interp, QueryRun } from '../eval/interpreter';
import { parseLambda } from '../parser';
import { QueryRuntimeFailure } from '../runtime/failure';
import type { RtValue } from '../runtime/values';
import { schemaLambda } from './computed';
import { toRuntime, toStored } from './convert';
import { storeCursors } from './cursors';
import { CollectionDefV } from './collectionDocs';
import { DocV } from './docs';
import { nativeSpecFor, NativeDocV } from './natives';
import { STORE_GLOBALS } from './resolver';
import { BareTxnHooks } from './txnHooks';

const PARSE_FAILED = 'Unable to parse FQL source code.';

/**
 * A v10 argument: a ref to a document of the scope's database (with or without its address),
 * user or native, is the document; a pending document is the document as its write leaves it.
 */
async function argument(tx: TxnContext, v: LambdaArg): Promise<RtValue> {
  const pending = v instanceof PendingDoc ? v : undefined;
  const ref = v instanceof PendingDoc ? v.ref : v;
  const db = tx.scope.db;
  if (ref instanceof Ref && ref.isUserDocument && ref.addr === undefined && !ref.collection!.database) {
    const entry = (await schemaOf(tx, db)).get('collections', ref.collection!.id);
    // Read as of the valid time the check is made at (a history read, an event's version).
    if (entry !== undefined && /^\d+$/.test(ref.id)) return new DocV(db, entry.id, entry.name, BigInt(ref.id), pending ? undefined : tx.readAt, false, pending?.fields);
  }
  const native = ref instanceof Ref && !ref.database && !ref.collection?.database ? ref.nativeParent : undefined;
  if (ref instanceof Ref && native === 'collections') {
    const def = pending && (await pendingDefinition(tx, db, pending.id!, pending.fields));
    return new CollectionDefV(db, ref.id, false, undefined, def);
  }
  const spec = native === undefined ? undefined : nativeSpecFor(native as NativeName);
  if (ref instanceof Ref && spec !== undefined) {
    const key = SECRET_NATIVES.has(spec.native) ? (/^\d+$/.test(ref.id) ? BigInt(ref.id) : undefined) : ref.id;
    const stored = pending && { fields: pending.fields, id: pending.id ?? BigInt(ref.id) };
    if (key !== undefined) return new NativeDocV(spec, db, key, false, undefined, undefined, stored);
  }
  if (v instanceof PendingDoc) throw new Error(`a pending document outside the scope's collections: ${v.ref.toString()}`);
  return toRuntime(v);
}

/** Native collections whose documents are known by id. */
const SECRET_NATIVES = new Set<NativeName>(['keys', 'tokens', 'credentials']);

/** A v4 Call's one argument (none: an empty array). */
function valueArg(a: LambdaArg | undefined): Value {
  if (a instanceof PendingDoc) throw new Error('a pending document as a v4 Call argument');
  return a ?? [];
}

/** A v4 Call's one argument over the lambda's parameters (v4ToV10Args). */
function spread(arg: Value, params: number): Value[] {
  if (Array.isArray(arg)) return arg.length === 0 && params === 0 ? [] : params > 0 ? arg : [arg];
  return [arg];
}

const language: LambdaLanguage = {
  lambdaFailure(src, field, arities) {
    const r = parseLambda(src, { name: `*${field}*`, text: src });
    if (!r.ok) return `${PARSE_FAILED}\n${renderSummary(r.errors).trim()}`;
    if (r.value.kind === 'ShortLambda') {
      // A function body must name its parameters (FQLInterpreter.prepareUserFunc).
      if (arities === undefined) return `${PARSE_FAILED}\n${renderSummary([error('Short form lambdas are not allowed here', r.value.span)]).trim()}`;
      return arities.includes(1) ? undefined : arityText(arities, 1);
    }
    if (arities === undefined || r.value.variadic !== null) return undefined;
    const n = r.value.params.length;
    return arities.includes(n) ? undefined : arityText(arities, n);
  },
  async apply(tx, src, srcName, args, spreading = false) {
    const fn = schemaLambda(src, srcName);
    if (fn === null) throw new QueryError('invalid expression', `${srcName} does not parse.`);
    const params = fn.params.length;
    let interp = new Interp(new QueryRun(new BareTxnHooks(tx, storeCursors), STORE_GLOBALS));
    if (tx.writesRefusedIn !== undefined) interp = interp.readOnly(tx.writesRefusedIn);
    const given = spreading ? spread(valueArg(args[0]), params) : args;
    const rt: RtValue[] = [];
    for (const a of given) rt.push(await argument(tx, a));
    try {
      return toStored(await interp.apply(fn, rt), null);
    } catch (e) {
      if (e instanceof QueryRuntimeFailure) throw new QueryError('transaction aborted', e.message);
      throw e;
    }
  },
};

function arityText(arities: readonly number[], n: number): string {
  const expected = arities.length === 1 ? `exactly ${arities[0]}` : arities.join(' or ');
  return `Invalid function arity. Expected ${expected} argument${arities.length === 1 && arities[0] === 1 ? '' : 's'}, but the function was defined with ${n} arguments`;
}

/** Makes v10 role predicates and function bodies runnable in `ctx`. */
export function installLambdaLanguage(ctx: TxnContext): void {
  ctx.lambdaLanguage = language;
}
