// A nesting limit for operations. graphql-js parses, validates and executes recursively, so a query
// nested a few thousand levels deep (in the text, or through chains of fragments) would overflow the
// stack: such a query gets a clear error instead, before graphql-js recurses into it.

import { GraphQLError, Kind, Lexer, Source, TokenKind, type DocumentNode, type SelectionSetNode } from 'graphql';
import { fragmentsOf } from './selections';

/** Far above real operations (a full introspection query nests 10 levels). */
export const MAX_DEPTH = 100;

const OPEN: ReadonlySet<string> = new Set([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSE: ReadonlySet<string> = new Set([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

function tooDeep(source?: Source, position?: number): GraphQLError {
  return new GraphQLError(`The query is nested too deeply: at most ${MAX_DEPTH} levels are allowed.`, {
    ...(source && position !== undefined ? { source, positions: [position] } : {}),
  });
}

/** Tokens an operation or a schema may have (graphql-js's parser stops past them). */
export const MAX_TOKENS = 100_000;

/**
 * Where the text first nests braces, brackets or parentheses deeper than MAX_DEPTH, found with the
 * (iterative) lexer so that the recursive parser never sees such a text; or 'too long' when it has
 * more than MAX_TOKENS tokens before that (the parser would refuse it there). Lexer errors are left
 * to the parser.
 */
export function overBoundsAt(source: Source): number | 'too long' | undefined {
  const lexer = new Lexer(source);
  let depth = 0;
  let tokens = 0;
  try {
    for (let t = lexer.advance(); t.kind !== TokenKind.EOF; t = lexer.advance()) {
      if (++tokens > MAX_TOKENS) return 'too long';
      if (OPEN.has(t.kind) && ++depth > MAX_DEPTH) return t.start;
      if (CLOSE.has(t.kind)) depth--;
    }
  } catch (e) {
    if (e instanceof GraphQLError) return undefined;
    throw e;
  }
  return undefined;
}

/** The nesting error of an operation's text; one over MAX_TOKENS is left to the parser (its syntax error). */
export function textDepthError(query: string): GraphQLError | undefined {
  const source = new Source(query);
  const at = overBoundsAt(source);
  return typeof at === 'number' ? tooDeep(source, at) : undefined;
}

/** Checks the depth of selections with fragment spreads followed (each fragment measured once). */
export function selectionDepthError(document: DocumentNode): GraphQLError | undefined {
  const fragments = fragmentsOf(document);
  const measured = new Map<string, number>();
  const open = new Set<string>();

  // `level` counts the calls on the way down (spreads included), so that recursion stays bounded.
  const depthOf = (set: SelectionSetNode, level: number): number => {
    if (level > MAX_DEPTH) throw tooDeep(set.loc?.source, set.loc?.start);
    let max = 0;
    for (const s of set.selections) {
      let d: number;
      if (s.kind === Kind.FIELD) d = s.selectionSet ? 1 + depthOf(s.selectionSet, level + 1) : 1;
      else if (s.kind === Kind.INLINE_FRAGMENT) d = depthOf(s.selectionSet, level + 1);
      else {
        const name = s.name.value;
        const frag = fragments.get(name);
        if (measured.has(name)) d = measured.get(name)!;
        else if (!frag || open.has(name)) d = 0; // unknown or cyclic: validation reports it
        else {
          open.add(name);
          d = depthOf(frag.selectionSet, level + 1);
          open.delete(name);
          measured.set(name, d);
        }
      }
      if (d > MAX_DEPTH) throw tooDeep(s.loc?.source, s.loc?.start);
      max = Math.max(max, d);
    }
    return max;
  };

  try {
    for (const def of document.definitions) if (def.kind === Kind.OPERATION_DEFINITION) depthOf(def.selectionSet, 1);
  } catch (e) {
    if (e instanceof GraphQLError) return e;
    throw e;
  }
  return undefined;
}
