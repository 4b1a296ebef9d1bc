// FQL v10 identifiers (the core's Tokens.isValidIdent): names of fields, indexes and constraints.

const KEYWORDS = new Set(['if', 'else', 'at', 'match', 'case', 'let', 'null', 'true', 'false', 'isa', 'join', 'on', 'of']);

export function isValidIdentifier(s: string): boolean {
  return !KEYWORDS.has(s) && /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(s);
}
