// One GraphQL request = one transaction (graphql.md A.1.1): authenticate, load the database's
// served API, parse and validate (cached per API), execute with graphql-js, and answer in the
// GraphQL shape. An operation that wrote and then failed is rolled back whole.

import { GraphQLError, execute, getOperationAST, parse, type DocumentNode, type ExecutionResult } from 'graphql';
import type { QueryMetrics, QueryService } from '../fql/api';
import type { LoggedDatabase } from '../logs/types';
import { QueryTimeout } from '../model/budget';
import { CLIENT_CLOSED_STATUS, LimitExceeded, QueryCancelled, type ClientLink } from '../model/budget';
import type { Pacer } from '../wire/json';
import { secretFromHeader } from '../model/auth';
import { failpoint } from '../failpoints';
import { ProtocolError, QueryError } from '../values/errors';
import { apiFor, type PreparedOperation, type ServedApi } from './api';
import { MAX_TOKENS, selectionDepthError, textDepthError } from './depth';
import { SchemaImportError } from './sdl';
import { executionError, syntaxError, validationError, type ErrorJson } from './errors';
import { secondIntrospectionError } from './introspection';
import { GqlContext } from './resolvers';
import { responseBody } from './response';
import { repeatedFieldsError, validateOperation } from './validation';
import { responseJson } from './values';
import { variablesFor } from './variables';

export interface GraphqlRequest {
  query: unknown;
  variables?: unknown;
  operationName?: unknown;
}

export interface GraphqlAnswer {
  status: number;
  /** JSON text, or its UTF-8 bytes (a long answer, written a slice at a time). */
  body: string | Buffer;
  headers?: Record<string, string>;
  txnTime?: bigint;
  metrics?: QueryMetrics;
  /** The database the secret acts in, once authenticated (for the query log). */
  database?: LoggedDatabase;
}

export interface RunOptions {
  timeoutMs?: number;
  /** X-Last-Seen-Txn: the request reads no older state than this (writes made through other processes). */
  lastSeenTxn?: bigint;
  /** GET requests may only run queries. */
  queriesOnly?: boolean;
  /** The request's client: the operation is cancelled once it is gone. */
  client?: ClientLink;
  /** The client's address as the failed-login throttle of Login in a resolver counts it (net/addresses clientAddressKey). */
  clientAddressKey?: string;
}

interface Payload {
  data?: unknown;
  errors?: ErrorJson[];
}

/** Thrown out of the transaction to roll back an operation that wrote and failed. */
class Rollback extends Error {
  constructor(readonly payload: Payload) {
    super('rollback');
  }
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_CACHED_OPERATIONS = 1000;
/** Longer operations are prepared each time: the cache must not keep megabytes of query text alive. */
const MAX_CACHED_QUERY_CHARS = 16 * 1024;
/** All the cached operations of one API together (their syntax trees are many times this). */
const MAX_CACHED_CHARS = 256 * 1024;

async function prepare(api: ServedApi, query: string, pacer: Pacer): Promise<PreparedOperation> {
  const hit = api.operations.get(query);
  if (hit) return hit;
  let prepared: PreparedOperation;
  const deep = textDepthError(query);
  let document: DocumentNode | undefined;
  if (deep) prepared = { errors: [deep] };
  else
    try {
      document = parse(query, { maxTokens: MAX_TOKENS });
      prepared = { document };
    } catch (e) {
      if (!(e instanceof GraphQLError)) throw e;
      prepared = { errors: [e], syntax: true };
    }
  if (document) {
    const refused = selectionDepthError(document) ?? secondIntrospectionError(document) ?? repeatedFieldsError(document);
    const errors = refused ? [refused] : await validateOperation(api.schema, document, pacer);
    if (errors.length) prepared = { errors };
  }
  if (query.length > MAX_CACHED_QUERY_CHARS) return prepared;
  if (api.operations.size >= MAX_CACHED_OPERATIONS || api.cachedChars + query.length > MAX_CACHED_CHARS) {
    api.operations.clear();
    api.cachedChars = 0;
  }
  api.operations.set(query, prepared);
  api.cachedChars += query.length;
  return prepared;
}

export function errorBody(message: string): string {
  return JSON.stringify({ errors: [{ message }] });
}

export async function runGraphql(
  service: QueryService,
  authorization: string | undefined,
  request: GraphqlRequest,
  opts: RunOptions = {},
): Promise<GraphqlAnswer> {
  if (!authorization || authorization.trim() === '') return { status: 401, body: errorBody('Missing authorization header.') };
  if (!secretFromHeader(authorization)) return { status: 401, body: errorBody('Invalid authorization header.') };
  const { query, variables, operationName } = request;
  if (typeof query !== 'string' || query.trim() === '')
    return { status: 200, body: JSON.stringify({ data: null, errors: [{ message: 'No query was given: the request needs a `query`.' }] }) };
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables)))
    return { status: 400, body: errorBody('`variables` must be an object.') };
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return { status: 400, body: errorBody('`operationName` must be a string.') };

  let database: LoggedDatabase | undefined;
  // The request's budget outlives the transaction: the answer is written under it (paced, and with
  // what the result holds still reserved), and released once it is.
  const budget = service.budget(opts.timeoutMs, opts.client);
  let dataText = 0; // the meter's estimate of the answer's data
  try {
    const run = await service.transact(
      authorization,
      async (ctx): Promise<Payload> => {
        database = { id: ctx.scope.db, path: ctx.scope.path };
        dataText = 0;
        failpoint('graphql.execute');
        const api = await apiFor(ctx.txn, ctx.scope.db);
        if (!api) return { data: null, errors: [{ message: 'No GraphQL schema has been imported into this database.' }] };
        const prepared = await prepare(api, query, ctx.budget);
        if (prepared.errors)
          return { data: null, errors: prepared.errors.map((e) => (prepared.syntax ? syntaxError(e) : validationError(e))) };
        const document = prepared.document!;
        const name = (operationName as string | null | undefined) ?? undefined;
        const op = getOperationAST(document, name);
        if (opts.queriesOnly && op && op.operation !== 'query') throw new HttpFailure(405, 'Only queries can be sent with GET: use POST for mutations.');
        // A mutation that finds nothing to change answers null, not an error: its transaction is
        // validated all the same (storage/store.ts), so that null holds after the request began.
        if (op?.operation === 'mutation') ctx.txn.intendsWrite();
        const rc = new GqlContext(ctx, api.model, api.ids);
        const variableValues = variablesFor(api.schema, document, name, (variables as Record<string, unknown> | null | undefined) ?? undefined);
        let result: ExecutionResult | undefined;
        try {
          result = await rc.meter.run(() => execute({ schema: api.schema, document, contextValue: rc, variableValues, operationName: name }));
        } finally {
          // An operation that failed may leave resolvers going (the meter stopped it, or graphql-js
          // ended it as soon as a non-null field failed): they end before the transaction does.
          // One without errors has had every resolver's promise settled.
          if (!result || result.errors) await rc.settled();
        }
        dataText = rc.meter.text;
        const errors = result.errors ?? [];
        for (const e of errors) if (e.originalError instanceof QueryTimeout) throw e.originalError;
        if (!('data' in result) || result.data === undefined) return { data: null, errors: errors.map(requestError) };
        const payload: Payload = { data: result.data };
        if (errors.length) payload.errors = errors.map(executionError);
        if (errors.length && ctx.txn.hasWrites) throw new Rollback({ data: null, errors: payload.errors });
        return payload;
      },
      { timeoutMs: opts.timeoutMs, lastSeenTxn: opts.lastSeenTxn, client: opts.client, clientAddressKey: opts.clientAddressKey, budget },
    );
    const estimate = dataText + errorsText(run.result.errors);
    const body = responseBody(run.result, run.ts, service.limits.maxResponseBytes, budget, estimate);
    return { status: 200, body: typeof body === 'string' ? body : await body, txnTime: run.ts, metrics: run.metrics, database };
  } catch (e) {
    const answer = failureAnswer(e);
    return database ? { ...answer, database } : answer;
  } finally {
    budget.release();
  }
}

/** What a failed GraphQL request answers (HTTP errors only for the HTTP kinds, graphql.md A.5). */
function failureAnswer(e: unknown): GraphqlAnswer {
  if (e instanceof Rollback) return { status: 200, body: responseJson(e.payload, 0n) };
  if (e instanceof HttpFailure) return { status: e.status, body: errorBody(e.message) };
  // A limit of the request as a whole (compute, memory, response size): a GraphQL error, as any
  // resolver error is; `data` is null since the operation did not run to its end.
  if (e instanceof LimitExceeded) return operationError(e);
  if (e instanceof ProtocolError) {
    if (e.status === 401) return { status: 200, body: errorBody('Invalid database secret.') };
    return { status: e.status, body: errorBody(e.description), headers: e.headers };
  }
  if (e instanceof QueryCancelled) return { status: CLIENT_CLOSED_STATUS, body: '' }; // nobody to tell
  if (e instanceof QueryTimeout) return { status: 503, body: errorBody('The transaction timed out before the query could complete.') };
  if (e instanceof SchemaImportError)
    return { status: 200, body: JSON.stringify({ data: null, errors: [{ message: `The stored GraphQL schema cannot be served: ${e.message} Import a schema again.` }] }) };
  if (e instanceof QueryError) return operationError(e);
  throw e;
}

/** An error that ended the operation: `data` null, the error with its code. */
function operationError(e: { description: string; code: string }): GraphqlAnswer {
  return { status: 200, body: JSON.stringify({ data: null, errors: [{ message: e.description, extensions: { code: e.code } }] }) };
}

/** Characters of an error's JSON beyond its message (locations, extensions), and per element of its path. */
const ERROR_TEXT = 96;
const PATH_TEXT = 12;

/** An estimate of the length of `errors` as JSON. */
function errorsText(errors: readonly ErrorJson[] | undefined): number {
  let chars = 0;
  for (const e of errors ?? []) chars += e.message.length + ERROR_TEXT + (e.path?.length ?? 0) * PATH_TEXT;
  return chars;
}

/** Errors that stop an operation before it runs (variable coercion, unknown operation name). */
function requestError(e: GraphQLError): ErrorJson {
  const out = validationError(e);
  return out;
}
