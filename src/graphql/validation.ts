// graphql-js's validation of an operation, kept from holding the event loop: it is synchronous, and
// an operation of up to MAX_TOKENS tokens takes hundreds of ms to validate, so large ones are
// validated a few rules at a time, giving the loop away in between. One rule is superlinear:
// OverlappingFieldsCanBeMerged compares every pair of fields of the same response name in a
// selection set (fragments included), so a few thousand `x: f { … }` take seconds. Such an
// operation is refused first, by a cheap count of those pairs.

import {
  GraphQLError,
  Kind,
  TypeInfo,
  ValidationContext,
  specifiedRules,
  validate,
  visit,
  visitInParallel,
  visitWithTypeInfo,
  type ASTNode,
  type ASTVisitor,
  type DocumentNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Pacer } from '../wire/json';
import { eachMergedField, fragmentsOf } from './selections';

/** Pairs of same-named fields in one selection set (what OverlappingFieldsCanBeMerged compares). */
export const MAX_FIELD_PAIRS = 250_000;
/** Selections looked at by that count, fragments followed into every selection set that spreads them. */
const MAX_VISITS = 1_000_000;
/** Operations shorter than this (characters) are validated at once. */
const SLICED_FROM = 16 * 1024;
/** Rules run in one go, between two pauses. */
const RULES_AT_ONCE = 6;

function tooComplex(message: string, node: ASTNode): GraphQLError {
  return new GraphQLError(`The query is too complex to validate: ${message}`, { nodes: node });
}

/** Refuses an operation that makes graphql-js compare too many pairs of fields. */
export function repeatedFieldsError(document: DocumentNode): GraphQLError | undefined {
  const fragments = fragmentsOf(document);
  let visits = 0;
  // The fields a selection set merges, counted by response key through fragments.
  const check = (set: SelectionSetNode): void => {
    const counts = new Map<string, number>();
    let pairs = 0;
    eachMergedField(
      set,
      fragments,
      (field) => {
        const key = field.alias?.value ?? field.name.value;
        const count = (counts.get(key) ?? 0) + 1;
        counts.set(key, count);
        pairs += count - 1;
        if (pairs > MAX_FIELD_PAIRS) throw tooComplex(`'${key}' is selected too many times in one selection set.`, field);
      },
      (sel) => {
        if (++visits > MAX_VISITS) throw tooComplex('its fragments are spread in too many places.', sel);
      },
    );
  };
  // Every selection set of the document (depth.ts has bounded their nesting).
  const walk = (set: SelectionSetNode): void => {
    check(set);
    for (const sel of set.selections) if (sel.kind !== Kind.FRAGMENT_SPREAD && sel.selectionSet) walk(sel.selectionSet);
  };
  try {
    for (const def of document.definitions)
      if (def.kind === Kind.OPERATION_DEFINITION || def.kind === Kind.FRAGMENT_DEFINITION) walk(def.selectionSet);
  } catch (e) {
    if (e instanceof GraphQLError) return e;
    throw e;
  }
  return undefined;
}

/** Errors graphql-js's validation reports before it stops (and says so in one more). */
const MAX_ERRORS = 100;
/** Thrown out of a pass that found more than MAX_ERRORS. */
const ABORT = Symbol('abort');

/**
 * graphql-js's validation; a long operation's a few rules at a time, with `pacer` pausing between,
 * and answering what one pass with every rule would: the same errors, in the same order (each pass
 * walks the document alike, so an error is placed by the step of the walk it was reported at, then
 * by its rule), the first MAX_ERRORS of them and graphql-js's error for the rest.
 */
export async function validateOperation(schema: GraphQLSchema, document: DocumentNode, pacer: Pacer): Promise<readonly GraphQLError[]> {
  if ((document.loc?.end ?? 0) < SLICED_FROM) return validate(schema, document);
  const found: { error: GraphQLError; step: number }[] = [];
  let more = false;
  for (let i = 0; i < specifiedRules.length; i += RULES_AT_ONCE) {
    await pacer.pause();
    const typeInfo = new TypeInfo(schema);
    let step = 0;
    let count = 0;
    const context = new ValidationContext(schema, document, typeInfo, (error) => {
      if (++count > MAX_ERRORS) throw ABORT; // this pass's first MAX_ERRORS are enough
      found.push({ error, step });
    });
    const steps: ASTVisitor = { enter: () => void step++, leave: () => void step++ };
    const rules = specifiedRules.slice(i, i + RULES_AT_ONCE).map((rule) => rule(context));
    try {
      visit(document, visitWithTypeInfo(typeInfo, visitInParallel([steps, ...rules])));
    } catch (e) {
      if (e !== ABORT) throw e;
      more = true;
    }
  }
  found.sort((a, b) => a.step - b.step); // stable: in rule order within a step
  const errors = found.slice(0, MAX_ERRORS).map((f) => f.error);
  if (more || found.length > MAX_ERRORS) errors.push(new GraphQLError('Too many validation errors, error limit reached. Validation aborted.'));
  return errors;
}
