// Walks of an operation's selections that run before graphql-js's validation (depth.ts,
// introspection.ts, validation.ts): fragments by name, and the fields one selection set merges.

import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionNode, type SelectionSetNode } from 'graphql';

type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

/** The document's fragment definitions by name (validation reports a name defined twice). */
export function fragmentsOf(document: DocumentNode): Fragments {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  return fragments;
}

/**
 * The fields graphql-js merges into `set`'s answer, in order: through inline fragments and fragment
 * spreads, each fragment once (unknown ones are validation's to report). `onSelection` sees every
 * selection on the way. Either stops the walk by throwing.
 */
export function eachMergedField(set: SelectionSetNode, fragments: Fragments, onField: (field: FieldNode) => void, onSelection?: (s: SelectionNode) => void): void {
  const spread = new Set<string>();
  const collect = (s: SelectionSetNode): void => {
    for (const sel of s.selections) {
      onSelection?.(sel);
      if (sel.kind === Kind.FIELD) onField(sel);
      else if (sel.kind === Kind.INLINE_FRAGMENT) collect(sel.selectionSet);
      else if (!spread.has(sel.name.value)) {
        spread.add(sel.name.value);
        const fragment = fragments.get(sel.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  collect(set);
}
