// Times as people read them: a document's ts (microseconds since the epoch, exact) shown as a local
// date and time, the raw value kept in the element's title for whoever needs it (a query's At()).

import type { JsonValue } from '../wire/expr';
import { h } from './dom';

let format: Intl.DateTimeFormat | undefined;
/** Local date and time to the second; the formatter made on first use, off the first screen's path. */
const local = (ms: number): string => (format ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' })).format(ms);

/** ms since the epoch of a ts in µs (a bigint or number), or NaN when `ts` is not one. */
function tsMillis(ts: JsonValue | undefined): number {
  if (typeof ts === 'bigint') return Number(ts / 1000n);
  if (typeof ts === 'number' && Number.isFinite(ts)) return Math.floor(ts / 1000);
  return NaN;
}

/** `ts` (µs) as a local date and time; the value as it came when it is not a time. */
export function humanTs(ts: JsonValue | undefined): string {
  const ms = tsMillis(ts);
  return Number.isNaN(ms) ? String(ts ?? '') : local(ms);
}

/** What the title of a shown time says: the raw ts and the same instant in UTC. */
export function rawTsTitle(ts: JsonValue | undefined): string {
  const ms = tsMillis(ts);
  return Number.isNaN(ms) ? '' : `ts ${String(ts)} (${new Date(ms).toISOString()})`;
}

/** A <time> of a ts: human text, raw ts on hover, and `data-ts` for scripts and tests. */
export function tsElement(ts: JsonValue | undefined): HTMLElement {
  const ms = tsMillis(ts);
  return h('time', { 'data-ts': String(ts ?? ''), datetime: Number.isNaN(ms) ? undefined : new Date(ms).toISOString(), title: rawTsTitle(ts) }, humanTs(ts));
}

/** A <time> of an ISO instant (an API's `time_start`, say): local text, the instant as sent on hover. */
export function instantElement(iso: string): HTMLElement {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? h('span', {}, iso) : h('time', { datetime: iso, title: iso }, local(ms));
}
