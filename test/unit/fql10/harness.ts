// evalQuery(text, args?) for the evaluator's tests: parse, evaluate with trivial hooks (a counting
// compute budget, a fixed clock, sequential ids, cursors kept in memory), encode the result.

import { evaluate, summary } from '../../../src/fql10/eval/evaluate';
import { parseQuery } from '../../../src/fql10/parser';
import type { CursorCodec, EvalHooks } from '../../../src/fql10/runtime/hooks';
import type { PageTok } from '../../../src/fql10/runtime/sets';
import type { RtValue } from '../../../src/fql10/runtime/values';
import { renderSummary } from '../../../src/fql10/diagnostic';
import { Time } from '../../../src/values/types';
import { encodeValue } from '../../../src/wire/v10/encode';

/** The test budget's own failure, standing in for the endpoint's limit error. */
export class BudgetExceeded extends Error {}

export const NOW = new Time(1_700_000_000_000_000_000n);

export function testHooks(opts: { computeLimit?: number } = {}): EvalHooks {
  const limit = opts.computeLimit ?? 1_000_000;
  let used = 0;
  let id = 1000n;
  const cursors = new Map<string, { tok: PageTok; pageSize: number }>();
  const codec: CursorCodec = {
    encode(tok, pageSize) {
      const k = `cursor${cursors.size}`;
      cursors.set(k, { tok, pageSize });
      return k;
    },
    decode: (token) => cursors.get(token),
  };
  return {
    compute(n) {
      used += n;
      if (used > limit) throw new BudgetExceeded(`compute budget of ${limit} exceeded`);
    },
    snapshotTime: () => NOW,
    newId: () => ++id,
    maxStackFrames: 2048,
    cursors: codec,
  };
}

export type EvalResult =
  | { ok: true; tagged: string; simple: string }
  | { ok: false; code: string; message: string; summary: string; abort?: string };

export async function evalQuery(text: string, args: ReadonlyMap<string, RtValue> = new Map(), hooks: EvalHooks = testHooks()): Promise<EvalResult> {
  const parsed = parseQuery(text);
  if (!parsed.ok) return { ok: false, code: 'invalid_query', message: 'parse', summary: renderSummary(parsed.errors) };
  const out = await evaluate(parsed.value, args, hooks);
  if (out.ok) return { ok: true, tagged: encodeValue(out.value, 'tagged', 0n), simple: encodeValue(out.value, 'simple', 0n) };
  const f = out.failure;
  const r: EvalResult = { ok: false, code: f.code, message: f.message, summary: summary(out) };
  if ('abortValue' in f && f.abortValue !== undefined) r.abort = encodeValue(f.abortValue, 'tagged', 0n);
  return r;
}

/** The simple-format JSON of a query that must succeed. */
export async function ok(text: string): Promise<string> {
  const r = await evalQuery(text);
  if (!r.ok) throw new Error(`${text}: ${r.code}: ${r.message}\n${r.summary}`);
  return r.simple;
}

/** The tagged JSON of a query that must succeed. */
export async function tagged(text: string): Promise<string> {
  const r = await evalQuery(text);
  if (!r.ok) throw new Error(`${text}: ${r.code}: ${r.message}\n${r.summary}`);
  return r.tagged;
}

/** The failure of a query that must fail. */
export async function err(text: string): Promise<{ code: string; message: string; summary: string; abort?: string }> {
  const r = await evalQuery(text);
  if (r.ok) throw new Error(`${text}: expected a failure, got ${r.tagged}`);
  return r;
}
