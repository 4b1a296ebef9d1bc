// Arithmetic (fql-v4.md §3.9): add, subtract, multiply, divide, modulo.
// Integer op Integer stays Integer (64-bit wrapping, like the JVM); any Double makes the result
// Double. The rest of §3.9 comes with a later issue.

import { errors } from '../../values/errors';
import { wrapLong } from '../../values/types';
import { asNumber, elemPos, evalList } from '../args';
import { define } from '../registry';

type Num = bigint | number;

/** Longs fold with `long`; as soon as a Double is involved both sides become Doubles. */
function arith(head: string, long: (a: bigint, b: bigint) => bigint, double: (a: number, b: number) => number, checkZero = false) {
  define(head, async (call, env, ctx) => {
    const vs = await evalList(call, head, env, ctx);
    // Every operand is type-checked before any arithmetic (errors name the element's position).
    const ns: Num[] = vs.map((v, i) => asNumber(v, elemPos(call, head, i)));
    let acc = ns[0];
    for (let i = 1; i < ns.length; i++) {
      const b = ns[i];
      // `b == 0` is true for 0n, 0.0 and -0.0.
      if (checkZero && b == 0) throw errors.invalidArgument('Illegal division by zero.', call.pos);
      acc = typeof acc === 'bigint' && typeof b === 'bigint' ? wrapLong(long(acc, b)) : double(Number(acc), Number(b));
    }
    return acc;
  });
}

arith('add', (a, b) => a + b, (a, b) => a + b);
arith('subtract', (a, b) => a - b, (a, b) => a - b);
arith('multiply', (a, b) => a * b, (a, b) => a * b);
// BigInt `/` truncates toward zero and `%` keeps the dividend's sign, exactly like Java's long ops;
// JS `%` on numbers matches Java's double remainder too.
arith('divide', (a, b) => a / b, (a, b) => a / b, true);
arith('modulo', (a, b) => a % b, (a, b) => a % b, true);
