// Reading what transfer/sources gives, for tests: every item of a path, and values in a form that
// compares exactly (Long vs Double, Time vs string, objects by sorted key).

import { openSource, type SourceItem } from '../../src/transfer/sources';
import { formatDate, formatTime } from '../../src/wire/time';
import { Bytes, DateV, Ref, Time, type Value } from '../../src/values/types';

/** A value's exact form: types (Long vs Double, Time vs string) and contents, objects by sorted key. */
export function canon(v: Value | undefined): string {
  if (v === undefined) return 'undefined';
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `L${v}`;
  if (typeof v === 'number') return `D${Object.is(v, -0) ? '-0' : v}`;
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (v instanceof Map) return `{${[...v.keys()].sort().map((k) => `${JSON.stringify(k)}:${canon(v.get(k))}`).join(',')}}`;
  if (v instanceof Ref) return `Ref(${v.toString()})`;
  if (v instanceof Time) return `Time(${formatTime(v.nanos)})`;
  if (v instanceof DateV) return `Date(${formatDate(v.days)})`;
  if (v instanceof Bytes) return `Bytes(${Buffer.from(v.bytes).toString('hex')})`;
  return `?${String(v)}`;
}

/** Every item openSource(p) gives. */
export async function collect(p: string, skipFiles?: Set<string>): Promise<SourceItem[]> {
  const source = await openSource(p);
  const out: SourceItem[] = [];
  for await (const item of source.items({ skipFiles })) out.push(item);
  return out;
}
