// HTTP handlers of the GraphQL API (graphql.md A.1): POST|GET /graphql (JSON `{data, errors}`;
// GraphQL-level failures are HTTP 200) and POST /import (raw SDL in, text/plain out). The work is
// in src/graphql/; these only read requests and shape answers.

import type { QueryService } from '../fql/api';
import { errorBody, runGraphql, type GraphqlAnswer, type GraphqlRequest } from '../graphql/execute';
import { importSchema, type ImportMode } from '../graphql/importer';
import { RequestJsonError, parseRequestJson } from '../graphql/requestJson';
import { shapeGraphQL } from '../logs/shape';
import { BodyTooLarge, type RequestContext } from './context';
import { lastSeenOf, parseQueryHeaders } from './headers';
import { refuseUnauthenticated, type AuthFailure } from './authFirst';
import { readBodyText } from './bodies';
import { turnFor } from './turn';
import { QueryCancelled, TooBusy } from '../model/budget';
import { clientClosed, internalErrorText, logInternalError, type Outcome } from './responses';
import type { Handler } from './router';

const JSON_TYPE = 'application/json;charset=utf-8';
const TEXT_TYPE = 'text/plain;charset=utf-8';

/** `X-Schema-Preview` codes: the partial-update preview was promoted, so it is accepted and ignored. */
const PREVIEW_CODES: ReadonlySet<string> = new Set(['partial-update-mutation']);

function badPreview(ctx: RequestContext): string | undefined {
  const header = ctx.headers['x-schema-preview'];
  if (header === undefined) return undefined;
  for (const code of header.split(/[\s,]+/).filter(Boolean))
    if (!PREVIEW_CODES.has(code)) return `Invalid schema preview code: '${code}'.`;
  return undefined;
}

function json(status: number, body: string | Buffer, extra?: Partial<Outcome>): Outcome {
  return { status, body, ...extra, headers: { ...extra?.headers, 'content-type': JSON_TYPE } };
}

function text(status: number, body: string, extra?: Partial<Outcome>): Outcome {
  return { status, body, ...extra, headers: { ...extra?.headers, 'content-type': TEXT_TYPE } };
}

function timeoutOf(ctx: RequestContext): number | undefined {
  try {
    return parseQueryHeaders(ctx.headers).timeoutMs;
  } catch {
    return undefined;
  }
}

async function answer(service: QueryService, ctx: RequestContext, request: GraphqlRequest, queriesOnly: boolean): Promise<Outcome> {
  const preview = badPreview(ctx);
  if (preview) return json(400, errorBody(preview));
  // The request waits for its turn; a process too full for it to wait answers 429 now.
  let leave: () => void;
  try {
    leave = await turnFor(service, ctx);
  } catch (err) {
    if (err instanceof TooBusy) return busy(ctx);
    if (err instanceof QueryCancelled) return clientClosed();
    throw err;
  }
  const started = process.hrtime.bigint();
  let a: GraphqlAnswer;
  try {
    const opts = { queriesOnly, timeoutMs: timeoutOf(ctx), lastSeenTxn: lastSeenOf(ctx.headers), client: ctx, clientAddressKey: ctx.clientKeys.address };
    a = await runGraphql(service, ctx.headers.authorization, request, opts);
  } catch (err) {
    const id = logInternalError(err, ctx);
    return json(500, errorBody(internalErrorText(id)), { headers: { 'x-request-id': id } });
  } finally {
    leave();
  }
  const queryTimeMs = Number((process.hrtime.bigint() - started) / 1_000_000n);
  const log = { database: a.database, fqlShape: typeof request.query === 'string' ? shapeGraphQL(request.query) : undefined };
  return json(a.status, a.body, { headers: a.headers, txnTime: a.txnTime, metrics: a.metrics, queryTimeMs, log });
}

/** 429 with Retry-After in GraphQL's shape; the request's body is left unread. */
function busy(ctx: RequestContext): Outcome {
  ctx.discardBody();
  return json(429, errorBody('Too many pending requests.'), { headers: new TooBusy().headers });
}

/** graphql.md A.5: a missing or unreadable header is a 401; a secret that does not authenticate is a GraphQL error. */
function graphqlRefusal(why: AuthFailure): Outcome {
  if (why === 'missing') return json(401, errorBody('Missing authorization header.'));
  if (why === 'malformed') return json(401, errorBody('Invalid authorization header.'));
  return json(200, errorBody('Invalid database secret.'));
}

function importRefusal(why: AuthFailure): Outcome {
  if (why === 'missing') return text(401, 'Missing authorization header.');
  if (why === 'malformed') return text(401, 'Invalid authorization header.');
  return text(401, 'Invalid database secret.');
}

export function graphqlHandlers(service: QueryService): { post: Handler; get: Handler; importSchema: Handler } {
  const maxBody = service.limits.maxBodyBytes;
  return {
    post: async (ctx) => {
      // A full process refuses before it reads or authenticates anything (the client retries).
      if (service.admission.full) return busy(ctx);
      const refused = await refuseUnauthenticated(service, ctx, graphqlRefusal);
      if (refused) return refused;
      let body: string;
      try {
        body = await readBodyText(ctx, maxBody);
      } catch (err) {
        if (err instanceof BodyTooLarge) return json(413, errorBody('The request body is too large.'));
        if (err instanceof TooBusy) return busy(ctx);
        throw err;
      }
      const type = (ctx.headers['content-type'] ?? '').toLowerCase();
      let request: GraphqlRequest;
      if (type.startsWith('application/graphql')) request = { query: body, operationName: ctx.query.get('operationName') ?? undefined };
      else if (body.trim() === '') request = { query: undefined };
      else {
        let parsed: unknown;
        try {
          parsed = await parseRequestJson(body, service.limits.sliceMs);
        } catch (err) {
          if (err instanceof RequestJsonError) return json(400, errorBody(err.message));
          throw err;
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
          return json(400, errorBody('The request body must be a JSON object with a `query`.'));
        request = parsed as GraphqlRequest;
      }
      return answer(service, ctx, request, false);
    },
    get: async (ctx) => {
      const variables = ctx.query.get('variables');
      let parsed: unknown;
      if (variables) {
        try {
          parsed = await parseRequestJson(variables, service.limits.sliceMs);
        } catch (err) {
          if (err instanceof RequestJsonError) return json(400, errorBody(`The \`variables\` parameter: ${err.message}`));
          throw err;
        }
      }
      return answer(service, ctx, { query: ctx.query.get('query') ?? undefined, variables: parsed, operationName: ctx.query.get('operationName') ?? undefined }, true);
    },
    importSchema: async (ctx) => {
      const preview = badPreview(ctx);
      if (preview) return text(400, preview);
      const mode = ctx.query.get('mode') ?? 'merge';
      if (mode !== 'merge' && mode !== 'replace' && mode !== 'override')
        return text(400, `Invalid mode '${mode}': use merge, replace or override.`);
      // The schema is read and parsed only for a caller who may be told what is wrong with it.
      const refused = await refuseUnauthenticated(service, ctx, importRefusal);
      if (refused) return refused;
      let body: string;
      try {
        body = await readBodyText(ctx, maxBody);
      } catch (err) {
        if (err instanceof BodyTooLarge) return text(413, 'The schema is too large.');
        if (err instanceof TooBusy) return text(429, 'Too many pending requests.', { headers: err.headers });
        throw err;
      }
      try {
        const a = await importSchema(service, ctx.headers.authorization, body, mode as ImportMode);
        return { ...text(a.status, a.body), bytesIn: Buffer.byteLength(body, 'utf8'), log: { database: a.database, fqlShape: shapeGraphQL(body) } };
      } catch (err) {
        const id = logInternalError(err, ctx);
        return text(500, internalErrorText(id), { headers: { 'x-request-id': id } });
      }
    },
  };
}
