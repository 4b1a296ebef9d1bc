// At most one `__schema` or `__type` root field per operation. Each answers with (a walk of) the
// whole schema; aliases and fragments would let one short operation ask for it thousands of times.
// Tools ask once (GraphiQL's and graphql-js's introspection query, fauna-gql-upload). Fields are
// counted by response key, through fragments and inline fragments, as graphql-js merges them:
// `{ __schema { a } __schema { b } }` is one field. Checked before graphql-js's own validation,
// which such an operation would make long.

import { GraphQLError, Kind, type DocumentNode } from 'graphql';
import { eachMergedField, fragmentsOf } from './selections';

const INTROSPECTION_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type']);

/** The error for the first operation of `document` with a second introspection field, if any. */
export function secondIntrospectionError(document: DocumentNode): GraphQLError | undefined {
  const fragments = fragmentsOf(document);
  try {
    for (const def of document.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION) continue;
      // Only the root's fields (depth.ts bounds the nesting of its fragments).
      const keys = new Set<string>();
      eachMergedField(def.selectionSet, fragments, (field) => {
        if (!INTROSPECTION_FIELDS.has(field.name.value)) return;
        const key = field.alias?.value ?? field.name.value;
        keys.add(key);
        if (keys.size > 1)
          throw new GraphQLError(`Only one '__schema' or '__type' field is allowed per operation: '${key}' is a second one.`, { nodes: field });
      });
    }
  } catch (e) {
    if (e instanceof GraphQLError) return e;
    throw e;
  }
  return undefined;
}
