// What a well-formed answer to a hostile input looks like (fql-v4.md §1.7–1.9, graphql.md A.1): the
// fuzz part judges every response with these. A body that is not JSON, an error outside Fauna's
// shape or code list, or a description that leaks the server's internals (a stack, a JavaScript
// error, "undefined") is malformed: a person reading it could not act on it.

/** Fauna's FQL v4 error codes (query and protocol errors), and Flora's documented extras. */
export const FAUNA_CODES: ReadonlySet<string> = new Set([
  // query errors (§1.9)
  'invalid expression', 'invalid argument', 'invalid ref', 'instance not found', 'instance already exists',
  'instance not unique', 'validation failed', 'value not found', 'permission denied', 'authentication failed',
  'transaction aborted', 'call error', 'stack overflow', 'invalid write time', 'missing identity', 'invalid token',
  'invalid scope', 'feature not available', 'move database error', 'invalid object in container',
  'schema validation failed', 'check constraint failure', 'invalid url parameter', 'schema not found',
  // protocol errors
  'bad request', 'unauthorized', 'forbidden', 'not found', 'method not allowed', 'contended transaction',
  'request too large', 'too many requests', 'time out',
]);

/** Netty-level answers to malformed HTTP (fql-v4.md §1.7, README "Limits"): `{"error": …}`. */
const NETTY_ERRORS: ReadonlySet<string> = new Set([
  'bad request', 'request timeout: Client timed out.', 'request header fields too large',
]);

/**
 * Texts that only come from the server's own code going wrong. Each is checked only when the request
 * itself does not contain it (an `Abort` message or a variable name is echoed back verbatim).
 */
const INTERNALS: readonly RegExp[] = [
  /\bat .+:\d+:\d+\)?/, // a stack frame
  /(?<!refers to )\bundefined\b/, // but Fauna's own "Ref refers to undefined collection 'x'"
  /\[object \w+\]/,
  /\b(TypeError|ReferenceError|RangeError|SyntaxError|InternalError|AggregateError)\b/,
  /Cannot read propert/,
  /is not a function/,
  /is not iterable/,
  /Maximum call stack/,
  /\bNaN\b/,
  /Unexpected token/,
  /\bnull is not\b/,
  /Please create a ticket/,
];

/** 'logs': the log-export API (/api/v1/logs), whose errors are `{"message": …}` (service.md). */
export type Dialect = 'fql' | 'graphql' | 'logs' | 'http';

/** Bodies are judged from their first 64 KiB: a longer one is judged by how it begins. */
export const JUDGED_BYTES = 65536;

export interface Verdict {
  /** Empty when well formed; else why not. */
  problem?: string;
  /** The first error code, or 'ok' (for the outcome histogram). */
  outcome: string;
}

/** Judges one answer to `request` (the body sent, to tell echoes from leaks). */
export function judge(dialect: Dialect, status: number, body: string, request = ''): Verdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    if (Buffer.byteLength(body) >= JUDGED_BYTES - 4) return judgeHead(dialect, status, body);
    return { outcome: `${status} not json`, problem: `status ${status}: body is not JSON` };
  }
  if (!isObject(parsed)) return { outcome: `${status} not an object`, problem: `status ${status}: body is not a JSON object` };
  if ('error' in parsed && Object.keys(parsed).length === 1) {
    // Malformed HTTP, a body that arrived too slowly, a head too large: documented and terse.
    const text = parsed.error;
    if (typeof text === 'string' && NETTY_ERRORS.has(text) && [400, 408, 431].includes(status)) return { outcome: text };
    return { outcome: 'error', problem: `status ${status}: unknown {"error": …} answer ${JSON.stringify(text)}` };
  }
  if (dialect === 'logs') {
    if (status < 300) return { outcome: 'ok' };
    const problem = descriptionProblem(parsed.message, request);
    return problem ? { outcome: `${status} message`, problem: `status ${status}: message ${problem}` } : { outcome: `${status} message` };
  }
  if (dialect === 'graphql' && ('data' in parsed || isGraphqlErrors(parsed.errors))) return judgeGraphql(parsed, status, request);
  if (status < 300 && dialect !== 'graphql') {
    return 'resource' in parsed ? { outcome: 'ok' } : { outcome: 'no resource', problem: `status ${status} without a resource` };
  }
  return judgeFaunaErrors(parsed, status, request);
}

/** A body cut at JUDGED_BYTES: the shape its beginning promises. */
function judgeHead(dialect: Dialect, status: number, body: string): Verdict {
  const starts = dialect === 'graphql' ? ['{"data":', '{"errors":'] : status < 300 ? ['{"resource":'] : ['{"errors":[{'];
  if (starts.some((s) => body.startsWith(s))) return { outcome: 'long' };
  return { outcome: `${status} not json`, problem: `status ${status}: a long body that does not begin as it should: ${JSON.stringify(body.slice(0, 100))}` };
}

function judgeFaunaErrors(parsed: Record<string, unknown>, status: number, request: string): Verdict {
  const list = parsed.errors;
  if (!Array.isArray(list) || list.length === 0) return { outcome: `${status} no errors`, problem: `status ${status} without an errors list` };
  const first = list[0];
  const outcome = isObject(first) && typeof first.code === 'string' ? first.code : 'malformed';
  for (const e of list) {
    const problem = faunaErrorProblem(e, request);
    if (problem) return { outcome, problem: `status ${status}: ${problem}` };
  }
  return { outcome };
}

function faunaErrorProblem(e: unknown, request: string): string | undefined {
  if (!isObject(e)) return 'an error is not an object';
  if (typeof e.code !== 'string' || !FAUNA_CODES.has(e.code)) return `unknown error code ${JSON.stringify(e.code)}`;
  if ('position' in e && !Array.isArray(e.position)) return `position is not an array: ${JSON.stringify(e.position)}`;
  // An Abort's description is the message the query built, whatever it says.
  if (e.code === 'transaction aborted') return typeof e.description === 'string' ? undefined : 'transaction aborted: description is not a text';
  const problem = descriptionProblem(e.description, request);
  if (problem) return `${e.code}: ${problem}`;
  for (const nested of [...asArray(e.cause), ...asArray(e.failures)]) {
    const p = isObject(nested) && 'field' in nested ? descriptionProblem(nested.description, request) : faunaErrorProblem(nested, request);
    if (p) return `in a cause or failure: ${p}`;
  }
  return undefined;
}

function judgeGraphql(parsed: Record<string, unknown>, status: number, request: string): Verdict {
  const errors = parsed.errors;
  if (errors === undefined) return { outcome: 'ok' };
  if (!isGraphqlErrors(errors)) return { outcome: 'malformed', problem: `status ${status}: errors is not a list of {message}` };
  for (const e of errors) {
    const problem = descriptionProblem(e.message, request);
    if (problem) return { outcome: 'graphql error', problem: `status ${status}: ${problem}` };
  }
  return { outcome: 'graphql error' };
}

/** Why a description would not help a person (empty, or the server's internals), if it would not. */
export function descriptionProblem(text: unknown, request: string): string | undefined {
  if (typeof text !== 'string') return `description ${JSON.stringify(text)} is not a text`;
  // Short texts are fine when they are the request's own (an Abort message is echoed verbatim).
  if (text.trim().length < 3 && !request.includes(JSON.stringify(text))) return `description ${JSON.stringify(text)} says nothing`;
  for (const re of INTERNALS) {
    const m = re.exec(text);
    if (m && !request.includes(m[0])) return `description leaks internals (${JSON.stringify(m[0])}): ${JSON.stringify(text.slice(0, 300))}`;
  }
  return undefined;
}

function isGraphqlErrors(v: unknown): v is { message: unknown }[] {
  return Array.isArray(v) && v.length > 0 && v.every((e) => isObject(e) && 'message' in e);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
