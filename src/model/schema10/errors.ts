// A write refused by a v10 collection schema: the core's constraint failures, shown by each
// language its own way. v10 answers `constraint_failure` with `summary` as the message and the
// failures as `constraint_failures` ({paths, message}); v4 answers one error per failure,
// `schema validation failed` "path: message" (WriteAdaptor SchemaConstraintViolation) or
// `check constraint failure` with the check's message (CheckConstraintEvalError).

import { QueryError, type Position } from '../../values/errors';
import { displayPath, type ConstraintFailure } from './schemaType';

export class ConstraintFailureError extends QueryError {
  /** The v10 error code it answers with. */
  readonly v10Code: string = 'constraint_failure';
  constructor(
    /** The v10 message: "Failed to create Collection.", "Failed to update document with id 1 in collection `User`.". */
    readonly summary: string,
    readonly constraintFailures: ConstraintFailure[],
    pos: Position,
    /** Check constraint failures: v4 reports them as `check constraint failure`. */
    readonly check = false,
  ) {
    const [first] = constraintFailures;
    super(check ? 'check constraint failure' : 'schema validation failed', v4Text(first, check), pos);
    this.also = constraintFailures.slice(1).map((f) => new QueryError(this.code, v4Text(f, check), pos));
  }
}

/** A schema change the database refuses as a whole (TypeEnvValidator.mkFailure): v10's `invalid_schema`. */
export class InvalidSchemaUpdate extends ConstraintFailureError {
  override readonly v10Code = 'invalid_schema';
  constructor(constraintFailures: ConstraintFailure[], pos: Position) {
    super('Invalid database schema update.\n', constraintFailures, pos);
  }
}

function v4Text(f: ConstraintFailure, check: boolean): string {
  return check ? f.message : `${f.paths.map(displayPath).join(',')}: ${f.message}`;
}

/** The core's summary of a refused write (CollectionConfig.constraintViolationMessage). */
export function violationSummary(action: 'create' | 'update' | 'replace' | 'delete', coll: string, id?: bigint): string {
  // A replace is an update to the core (its DocAction has no replace).
  const verb = action === 'replace' ? 'update' : action;
  return id === undefined
    ? `Failed to ${verb} document in collection \`${coll}\`.`
    : `Failed to ${verb} document with id ${id} in collection \`${coll}\`.`;
}
