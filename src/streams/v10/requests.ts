// The bodies of POST /stream/1 and POST /feed/1 (api/fql2/StreamRequest.scala, FeedRequest.scala):
// `{token, start_ts?, cursor?}` and, for feeds, `page_size`. Failures are `invalid_request` with
// the core's words: the feed's end in a period, the stream's do not.

import { readJson, type Undecided } from '../../wire/v10/json';
import { badRequest, type ProtocolFailure } from '../../wire/v10/errors';
import { MAXIMUM_ELEMENTS, DEFAULT_PAGE_SIZE } from '../../fql10/runtime/sets';
import { cursorFromString, eventSourceFromToken, MAX_ORDINAL, type EventCursor, type EventSourceV } from '../../fql10/store/eventSources';

export interface EventsRequest {
  readonly source: EventSourceV & { cursor: EventCursor };
  /** The `cursor` or `start_ts` given, which replaces the token's own. */
  readonly override: EventCursor | undefined;
  readonly pageSize: number;
}

const invalid = (detail: string): ProtocolFailure => badRequest(`Invalid request body: ${detail}`);

function describe(v: Undecided): string {
  if (typeof v === 'string') return `string value '${v}'`;
  if (typeof v === 'boolean') return `boolean value '${v}'`;
  if (v === null) return 'null value';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Map) return 'object';
  return `number value '${v}'`;
}

function field<T>(body: Map<string, Undecided>, key: string, cast: (v: Undecided) => T | undefined): T | undefined {
  const v = body.get(key);
  if (v === undefined || v === null) return undefined;
  const out = cast(v);
  if (out === undefined) throw invalid(`Unexpected ${describe(v)}.`);
  return out;
}

const asString = (v: Undecided) => (typeof v === 'string' ? v : undefined);
const asLong = (v: Undecided) => (typeof v === 'bigint' ? v : undefined);

/** Throws ProtocolFailure (400) for a body the core refuses. */
export function parseEventsRequest(text: string, kind: 'stream' | 'feed'): EventsRequest {
  const dot = kind === 'feed' ? '.' : '';
  let body: Undecided;
  try {
    body = readJson(text);
  } catch (e) {
    throw invalid((e as Error).message.replace(/^Invalid request body:? ?/, ''));
  }
  if (!(body instanceof Map)) throw invalid(`Unexpected ${describe(body)}.`);
  const token = field(body, 'token', asString);
  if (token === undefined) throw invalid('Value for key token not found.');
  const startTs = field(body, 'start_ts', asLong);
  const cursorText = field(body, 'cursor', asString);
  const pageSizeRaw = kind === 'feed' ? field(body, 'page_size', asLong) : undefined;
  if (startTs !== undefined && cursorText !== undefined) throw invalid(`can not provide both \`start_ts\` and \`cursor\`${dot}`);
  const source = eventSourceFromToken(token);
  if (source === undefined) throw invalid(`invalid event source provided${dot}`);
  let override: EventCursor | undefined;
  if (cursorText !== undefined) {
    override = cursorFromString(cursorText);
    if (override === undefined) throw invalid(`invalid event cursor provided${dot}`);
  } else if (startTs !== undefined) {
    if (startTs < 0n) throw invalid(`Unexpected number value '${startTs}'.`);
    // A stream's start time skips the whole transaction; a feed's only its first event (the core's).
    override = { ts: startTs, ord: kind === 'stream' ? MAX_ORDINAL : 0 };
  }
  const pageSize = pageSizeRaw === undefined ? DEFAULT_PAGE_SIZE : pageSizeRaw;
  if (pageSize <= 0n) throw invalid('page size must be greater than zero.');
  if (pageSize > BigInt(MAXIMUM_ELEMENTS)) throw invalid(`page size can not be greater than ${MAXIMUM_ELEMENTS}.`);
  return { source, override, pageSize: Number(pageSize) };
}
