// Lambdas stored in a collection's schema (computed fields, check constraints), parsed once per
// body text and applied read-only to a document.

import { parseLambda } from '../parser';
import { Failures } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { Lambda, type RtValue } from '../runtime/values';
import type { SchemaEntry } from '../../model/catalog';
import { THIS_NAME } from '../ast';

const parsed = new Map<string, Lambda | null>();

/** The lambda a schema body holds (no closure), or null when it does not parse. */
export function schemaLambda(body: string, srcName: string): Lambda | null {
  const key = `${srcName}\u0000${body}`;
  let l = parsed.get(key);
  if (l === undefined) {
    const r = parseLambda(body, { name: srcName, text: body });
    l = !r.ok
      ? null
      : r.value.kind === 'ShortLambda'
        ? new Lambda([THIS_NAME], undefined, r.value.body, null)
        : new Lambda(
            r.value.params.map((x) => (x === null ? null : x.str)),
            r.value.variadic === null ? undefined : r.value.variadic.name === null ? null : r.value.variadic.name.str,
            r.value.body,
            null,
          );
    if (parsed.size > 1000) parsed.clear();
    parsed.set(key, l);
  }
  return l;
}

/** A computed field's value for `doc` (ComputedField.eval), evaluated read-only. */
export async function applyComputed(ctx: CallCtx, entry: SchemaEntry, name: string, body: string, doc: RtValue): Promise<RtValue> {
  const fn = schemaLambda(body, `*computed_field:${entry.name}:${name}*`);
  if (fn === null) throw Failures.invalidArgument('computed_field', `\`${name}\` does not parse`, ctx.trace);
  return ctx.readOnly('computed fields').apply(fn, [doc]);
}
