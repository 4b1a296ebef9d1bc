// Errors in Fauna's format. Query errors carry a `position` (path into the request JSON);
// protocol errors (401, 404 route, 405, 413, …) do not.

export type Position = (string | number)[];

export interface ValidationFailure {
  field: (string | number)[];
  code: string;
  description: string;
}

export class QueryError extends Error {
  constructor(
    readonly code: string,
    readonly description: string,
    public position: Position = [],
    readonly status: number = statusFor(code),
    readonly failures?: ValidationFailure[],
    override readonly cause?: QueryError[],
    /** Parse errors win over argument errors, which win over permission errors (fql-v4.md §1.8). */
    readonly priority: number = priorityFor(code),
  ) {
    super(`${code}: ${description}`);
  }

  /** Further errors reported after this one (the elements of an array or object literal, fql-v4.md §1.7). */
  also: QueryError[] = [];

  /** The first of several errors, carrying the others. */
  static accumulate(list: QueryError[]): QueryError {
    const [first, ...rest] = list;
    first.also = [...first.also, ...rest.flatMap((e) => [e, ...e.also])];
    for (const e of rest) e.also = [];
    return first;
  }

  at(position: Position): QueryError {
    this.position = position;
    return this;
  }
}

/** An error raised by the HTTP layer or by authentication: rendered without `position`. */
export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${code}: ${description}`);
  }
}

function statusFor(code: string): number {
  switch (code) {
    case 'value not found':
    case 'instance not found':
    case 'schema not found':
      return 404;
    case 'permission denied':
      return 403;
    default:
      return 400;
  }
}

function priorityFor(code: string): number {
  switch (code) {
    case 'invalid expression':
      return 3;
    case 'invalid argument':
      return 2;
    case 'permission denied':
      return 1;
    default:
      return 0;
  }
}

// Constructors for the common errors, with Fauna's exact descriptions.
export const errors = {
  invalidExpression: (description: string, position: Position = []) =>
    new QueryError('invalid expression', description, position),
  invalidArgument: (description: string, position: Position = []) =>
    new QueryError('invalid argument', description, position),
  typeMismatch: (expected: string, actual: string, position: Position = []) =>
    new QueryError('invalid argument', `${expected} expected, ${actual} provided.`, position),
  invalidRef: (description: string, position: Position = []) =>
    new QueryError('invalid ref', description, position),
  notFound: (description = 'Document not found.', position: Position = []) =>
    new QueryError('instance not found', description, position),
  alreadyExists: (description = 'Document already exists.', position: Position = []) =>
    new QueryError('instance already exists', description, position),
  valueNotFound: (path: (string | number)[], position: Position = []) =>
    new QueryError('value not found', `Value not found at path [${path.join(',')}].`, position),
  permissionDenied: (position: Position = []) =>
    new QueryError('permission denied', 'Insufficient privileges to perform the action.', position),
  validationFailed: (failures: ValidationFailure[], position: Position = []) =>
    new QueryError('validation failed', 'document data is not valid.', position, 400, failures),
  aborted: (message: string, position: Position = []) =>
    new QueryError('transaction aborted', message, position),
  notImplemented: (fn: string, position: Position = []) =>
    new QueryError(
      'invalid expression',
      `The function '${fn}' is not implemented yet in this server.`,
      position,
    ),
  unauthorized: () =>
    new ProtocolError(401, 'unauthorized', 'Unauthorized', { 'www-authenticate': 'Basic realm="Unauthorized"' }),
  badRequest: (description: string) => new ProtocolError(400, 'bad request', description),
};
