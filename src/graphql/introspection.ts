// At most one `__schema` or `__type` root field per operation. Each answers with (a walk of) the
// whole schema; aliases and fragments would let one short operation ask for it thousands of times.
// Tools ask once (GraphiQL's and graphql-js's introspection query, fauna-gql-upload). Fields are
// counted by response key, through fragments and inline fragments, as graphql-js merges them:
// `{ __schema { a } __schema { b } }` is one field. Checked before graphql-js's own validation,
// which such an operation would make long.

import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

const INTROSPECTION_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type']);

/** The error for the first operation of `document` with a second introspection field, if any. */
export function secondIntrospectionError(document: DocumentNode): GraphQLError | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const keys = new Set<string>();
    const spread = new Set<string>();
    // Only the root's selections: fragments and inline fragments (depth.ts bounds their nesting).
    const visit = (set: SelectionSetNode): GraphQLError | undefined => {
      for (const s of set.selections) {
        let found: GraphQLError | undefined;
        if (s.kind === Kind.INLINE_FRAGMENT) found = visit(s.selectionSet);
        else if (s.kind === Kind.FRAGMENT_SPREAD) {
          const fragment = spread.has(s.name.value) ? undefined : fragments.get(s.name.value);
          spread.add(s.name.value);
          if (fragment) found = visit(fragment.selectionSet);
        } else if (INTROSPECTION_FIELDS.has(s.name.value)) {
          keys.add(s.alias?.value ?? s.name.value);
          if (keys.size > 1)
            found = new GraphQLError(`Only one '__schema' or '__type' field is allowed per operation: '${s.alias?.value ?? s.name.value}' is a second one.`, {
              nodes: s,
            });
        }
        if (found) return found;
      }
      return undefined;
    };
    const found = visit(def.selectionSet);
    if (found) return found;
  }
  return undefined;
}
