// Null, Boolean, Function, Bytes, ID, TransactionTime, SetCursor and the number companions:
// the small tables (Null.scala, Booleans.scala, Functions.scala, Bytes.scala, ID.scala,
// TransactionTime.scala, SetCursors.scala, Numbers.scala).

import { Failures } from '../runtime/failure';
import { NullReceiver } from '../runtime/table';
import { toDebugString } from '../runtime/toString';
import { p, tt } from '../runtime/types';
import { Bytes, IdV, isFunc, isInt32, NullV, SetCursorV, SmallLong, TxnTime, type RtValue } from '../runtime/values';
import { companion, prototype } from './base';

// A null answers its cause for any field, method or key it lacks (NullPrototype).
export const NullPrototype = prototype('Null');
NullPrototype.dynGet = (_c, self: NullV) => new NullReceiver(self.cause);
NullPrototype.access(p('key'), (_c, self: NullV) => new NullReceiver(self.cause));
export const NullCompanion = companion('Null', (v) => v instanceof NullV);

export const BooleanPrototype = prototype('Boolean');
BooleanPrototype.op('||', [p('other', tt.Boolean)], (_c, a: boolean, [b]: boolean[]) => a || b);
BooleanPrototype.op('&&', [p('other', tt.Boolean)], (_c, a: boolean, [b]: boolean[]) => a && b);
BooleanPrototype.op('!', [], (_c, a: boolean) => !a);
export const BooleanCompanion = companion('Boolean', (v) => typeof v === 'boolean');

export const FunctionPrototype = prototype('Function');

/** Standard base64, refusing what Java's decoder refuses. */
function fromBase64(ctx: { trace: import('../runtime/failure').Trace | null }, s: string): Bytes {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || (s.length % 4 !== 0 && s.includes('=')) || s.length % 4 === 1)
    throw Failures.invalidArgument('encoded', 'invalid base64 string', ctx.trace);
  return new Bytes(new Uint8Array(Buffer.from(s, 'base64')));
}
export const BytesPrototype = prototype('Bytes');
BytesPrototype.method('toBase64', [], (_c, self: Bytes) => Buffer.from(self.bytes).toString('base64'));
export const BytesCompanion = companion('Bytes', (v) => v instanceof Bytes);
BytesCompanion.table.apply([p('encoded', tt.Str)], (ctx, _m, [s]: string[]) => fromBase64(ctx, s));
BytesCompanion.table.method('fromBase64', [p('encoded', tt.Str)], (ctx, _m, [s]: string[]) => fromBase64(ctx, s));

export const IDPrototype = prototype('ID');
export const IDCompanion = companion('ID', (v) => v instanceof IdV);
const toId = (ctx: { trace: import('../runtime/failure').Trace | null }, v: RtValue) => {
  const id = tt.ID.cast(v);
  if (id === undefined) throw Failures.invalidId(toDebugString(v), ctx.trace);
  return id;
};
IDCompanion.table.apply([p('id', tt.Str)], (ctx, _m, [v]) => toId(ctx, v));
IDCompanion.table.apply([p('id', tt.Number)], (ctx, _m, [v]) => toId(ctx, v));

export const TransactionTimePrototype = prototype('TransactionTime');
export const TransactionTimeCompanion = companion('TransactionTime', (v) => v instanceof TxnTime);
TransactionTimeCompanion.table.apply([], () => TxnTime.instance);

export const SetCursorPrototype = prototype('SetCursor');
export const SetCursorCompanion = companion('SetCursor', (v) => v instanceof SetCursorV);

export const NumberCompanion = companion('Number', (v) => typeof v === 'bigint' || typeof v === 'number' || v instanceof SmallLong);
export const IntCompanion = companion('Int', (v) => typeof v === 'bigint' && isInt32(v));
export const LongCompanion = companion('Long', (v) => (typeof v === 'bigint' && !isInt32(v)) || v instanceof SmallLong);
export const DoubleCompanion = companion('Double', (v) => typeof v === 'number');
export const FloatCompanion = companion('Float', (v) => typeof v === 'number');
export const StringCompanion = companion('String', (v) => typeof v === 'string');
export const FunctionModule = companion('Function', isFunc);
