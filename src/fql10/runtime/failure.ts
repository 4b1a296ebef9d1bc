// Runtime failures (QueryFailure.scala's QueryRuntimeFailure): a code, a message, the stack of
// spans where it happened (innermost first) and hints. The first span is the error's; the rest
// render as trace hints, as the core's `hints` does.

import type { Diagnostic, Hint } from '../diagnostic';
import type { Span } from '../span';
import type { MValue } from '../../wire/v10/model';
import type { ConstraintFailure } from '../../wire/v10/envelope';
import { displayPath } from '../../model/schema10/schemaType';
import type { Arity, NullCause } from './values';
import { arityDisplay } from './values';

/** A stack trace: the innermost frame first; shared tails, as the core's List. */
export interface Trace {
  readonly span: Span;
  readonly next: Trace | null;
}

function traceSpans(t: Trace | null): Span[] {
  const out: Span[] = [];
  for (let f = t; f !== null; f = f.next) out.push(f.span);
  return out;
}

export function push(span: Span, t: Trace | null): Trace {
  return { span, next: t };
}

export class QueryRuntimeFailure extends Error {
  constructor(
    readonly code: string,
    readonly failureMessage: string,
    readonly trace: Trace | null,
    readonly errorHints: Hint[] = [],
    /** What `abort(value)` returned, materialized. */
    readonly abortValue?: MValue,
    /** A `constraint_failure`'s failures (the response's `constraint_failures`). */
    readonly constraintFailures?: readonly ConstraintFailure[],
  ) {
    super(failureMessage);
  }

  get span(): Span | undefined {
    return this.trace?.span;
  }

  withHint(h: Hint): QueryRuntimeFailure {
    return new QueryRuntimeFailure(this.code, this.failureMessage, this.trace, [...this.errorHints, h], this.abortValue, this.constraintFailures);
  }

  /** The summary's message: the failure's, then its constraint failures (QueryRuntimeFailure.message). */
  private summaryMessage(): string {
    if (this.constraintFailures === undefined || this.constraintFailures.length === 0) return this.failureMessage;
    let out = `${this.failureMessage}\nconstraint failures:`;
    for (const f of this.constraintFailures) {
      const label = f.label ?? f.paths.map(displayPath).join(',');
      out += `\n  ${(label ? `${label}: ${f.message}` : f.message).replace(/\n/g, '\n      ')}`;
    }
    return out;
  }

  /** The error as the summary renders it. */
  toDiagnostic(): Diagnostic | undefined {
    const spans = traceSpans(this.trace);
    if (spans.length === 0) return undefined;
    const hints: Hint[] = [...this.errorHints];
    spans.slice(1).forEach((span, i) =>
      hints.push({ message: '', span, hintType: i === 0 && this.errorHints.length > 0 ? 'namedTrace' : 'trace' }),
    );
    const d: { name: 'error'; message: string; span: Span; hints?: Hint[] } = { name: 'error', message: this.summaryMessage(), span: spans[0] };
    if (hints.length > 0) d.hints = hints;
    return d;
  }
}

/** Span.overlaps */
function overlaps(outer: Span, inner: Span): boolean {
  return outer.src === inner.src && ((inner.start >= outer.start && inner.start <= outer.end) || (inner.end >= outer.start && inner.end <= outer.end));
}

const nullHint = (span: Span): Hint => ({ message: 'Null value created here', span });

// The variant constructors the evaluator and the standard library use (QueryRuntimeFailure object).
export const Failures = {
  unboundVariable: (name: string, t: Trace | null) => new QueryRuntimeFailure('unbound_variable', `Unbound variable \`${name}\``, t),
  indexOutOfBounds: (idx: bigint | number, length: number, t: Trace | null) =>
    new QueryRuntimeFailure('index_out_of_bounds', `index ${idx} out of bounds for length ${length}`, t),
  invalidType: (expected: string, actual: string, t: Trace | null) =>
    new QueryRuntimeFailure('type_mismatch', `expected type: ${expected}, received ${actual}`, t),
  invalidArgument: (arg: string, reason: string, t: Trace | null) => new QueryRuntimeFailure('invalid_argument', `invalid argument \`${arg}\`: ${reason}`, t),
  invalidArgumentType: (arg: string, expected: string, actual: string, t: Trace | null) =>
    new QueryRuntimeFailure('invalid_argument', `expected value for \`${arg}\` of type ${expected}, received ${actual}`, t),
  invalidArgumentTypes: (fn: string, expected: string, actual: string, t: Trace | null) =>
    new QueryRuntimeFailure('invalid_argument', `expected arguments to \`${fn}\` of type ${expected}, received ${actual}`, t),
  invalidBounds: (arg: string, predicate: string, actual: string, t: Trace | null) =>
    new QueryRuntimeFailure('invalid_bounds', `expected \`${arg}\` to be ${predicate}, received ${actual}`, t),
  invalidRegex: (description: string, index: number, t: Trace | null) =>
    new QueryRuntimeFailure('invalid_regex', `Invalid regular expression. ${description} at index ${index}`, t),
  invalidFuncParamArity: (arg: string, expected: number, actual: Arity, t: Trace | null) =>
    new QueryRuntimeFailure(
      'invalid_argument',
      `\`${arg}\` should accept ${expected} parameter${expected === 1 ? '' : 's'}, provided function requires ${arityDisplay(actual, 'parameter')}.`,
      t,
    ),
  invalidFuncArity: (expected: Arity, actual: number, t: Trace | null) =>
    new QueryRuntimeFailure(
      'invalid_function_invocation',
      `callee function expects ${arityDisplay(expected)}, but ${actual} ${actual === 1 ? 'was' : 'were'} provided.`,
      t,
    ),
  functionDoesNotExist: (field: string, callee: string, t: Trace | null) =>
    new QueryRuntimeFailure('invalid_function_invocation', `The function \`${field}\` does not exist on \`${callee}\``, t),
  nullValue: (message: string, t: Trace | null, nullSpan: Span) =>
    new QueryRuntimeFailure('null_value', message, t, t !== null && !overlaps(t.span, nullSpan) ? [nullHint(nullSpan)] : []),
  invalidFieldFunctionInvalidType: (field: string, actual: string, t: Trace | null) =>
    new QueryRuntimeFailure('invalid_function_invocation', `\`${field}\`: Expected a function, found \`${actual}\``, t),
  invalidNullAccess: (field: string, nullSpan: Span, t: Trace | null) =>
    new QueryRuntimeFailure('invalid_null_access', `Cannot access \`${field}\` on null.`, t, [nullHint(nullSpan)]),
  invalidCursor: (t: Trace | null) => new QueryRuntimeFailure('invalid_cursor', 'Cursor cursor is invalid or expired.', t),
  divideByZero: (t: Trace | null) => new QueryRuntimeFailure('divide_by_zero', 'Attempted integer division by zero.', t),
  invalidId: (s: string, t: Trace | null) => new QueryRuntimeFailure('invalid_id', `\`${s}\` is not a valid ID.`, t),
  invalidTime: (s: string, t: Trace | null) => new QueryRuntimeFailure('invalid_time', `\`${s}\` is not a valid time.`, t),
  invalidTimeUnit: (s: string, t: Trace | null) => new QueryRuntimeFailure('invalid_unit', `\`${s}\` is not a valid time unit.`, t),
  minimumTimeOverflow: (t: Trace | null) => new QueryRuntimeFailure('invalid_time', 'Time exceeds the minimum value.', t),
  maximumTimeOverflow: (t: Trace | null) => new QueryRuntimeFailure('invalid_time', 'Time exceeds the maximum value.', t),
  invalidDate: (s: string, t: Trace | null) => new QueryRuntimeFailure('invalid_date', `\`${s}\` is not a valid date.`, t),
  invalidDateUnit: (s: string, t: Trace | null) => new QueryRuntimeFailure('invalid_unit', `\`${s}\` is not a valid date unit.`, t),
  valueTooLarge: (reason: string, t: Trace | null) => new QueryRuntimeFailure('value_too_large', `Value too large: ${reason}.`, t),
  aborted: (v: MValue, t: Trace | null) => new QueryRuntimeFailure('abort', 'Query aborted.', t, [], v),
  stackOverflow: (limit: number, t: Trace | null) => new QueryRuntimeFailure('stack_overflow', `number of stack frames exceeded limit of ${limit}`, t),
  invalidReceiver: (method: string, reason: string, t: Trace | null) =>
    new QueryRuntimeFailure('invalid_receiver', `can't call \`${method}\` because ${reason}`, t),
};

/** A query the core rejects before running it, or a construct it does not run (QueryCheckFailure):
 *  code `invalid_query`. */
export class QueryCheckFailure extends Error {
  constructor(readonly errors: Diagnostic[]) {
    super(`The query failed ${errors.length} validation ${errors.length > 1 ? 'checks' : 'check'}`);
  }
  get code(): string {
    return 'invalid_query';
  }
}

/** FQLInterpreter.handleNullCause: the `!` of a null. */
export function nullCauseFailure(cause: NullCause, trace: Trace): QueryRuntimeFailure {
  switch (cause.kind) {
    case 'invalidNumber':
      return Failures.nullValue('Null value, due to invalid number', trace, cause.span);
    case 'missingField':
      return Failures.nullValue(`Null value, due to missing field \`${cause.field.str}\``, trace, cause.span);
    case 'noSuchElement':
      return Failures.nullValue(`Null value, due to ${cause.reason}`, trace, cause.span);
    case 'lit':
      return Failures.nullValue('Null literal value', trace, cause.span);
    case 'ext': {
      const f = cause.failure?.(trace, false);
      if (f === undefined) return Failures.nullValue('Null value', trace, cause.span);
      return overlaps(trace.span, cause.span) ? f : f.withHint(nullHint(cause.span));
    }
  }
}
