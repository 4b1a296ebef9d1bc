// Runs a query that must fail and returns the parts of Fauna's error the tests check; or just the
// status a query gets.

import assert from 'node:assert/strict';
import type faunadb from 'faunadb';

export interface Failure {
  status: number;
  code: string;
  description: string;
  position: unknown;
  failures?: { field: unknown[]; code: string; description: string }[];
}

export async function failure(client: faunadb.Client, expr: unknown): Promise<Failure> {
  try {
    await client.query(expr as faunadb.ExprArg);
  } catch (e) {
    const err = e as { requestResult?: { statusCode: number; responseContent: { errors: Omit<Failure, 'status'>[] } } };
    assert.ok(err.requestResult, `not a Fauna error: ${String(e)}`);
    return { status: err.requestResult.statusCode, ...err.requestResult.responseContent.errors[0] };
  }
  assert.fail('query unexpectedly succeeded');
}

/** The HTTP status a query gets: 200 when it succeeds, else the status of Fauna's error. */
export async function statusOf(client: faunadb.Client, expr: unknown): Promise<number> {
  try {
    await client.query(expr as faunadb.ExprArg);
    return 200;
  } catch (e) {
    return (e as { requestResult?: { statusCode: number } }).requestResult?.statusCode ?? -1;
  }
}
