// FSL text in the browser, without the server's parser: a scan into pieces (comments, strings,
// numbers, words, punctuation) good enough to colour a schema file and to cut one collection's
// definition out of it. Strings and comments are skipped whole, so a brace inside one never counts.

import type { Piece } from './highlight';

/** FSL's keywords (SchemaItemParser.scala), coloured like the query editor's function names. */
const KEYWORDS = new Set([
  'collection', 'role', 'function', 'access', 'provider', 'index', 'terms', 'values', 'unique', 'check', 'compute',
  'migrations', 'backfill', 'drop', 'split', 'move', 'add', 'move_conflicts', 'move_wildcard', 'add_wildcard',
  'history_days', 'ttl_days', 'document_ttls', 'privileges', 'membership', 'predicate', 'read', 'write', 'create',
  'create_with_id', 'delete', 'history_read', 'history_write', 'unrestricted_read', 'call', 'issuer', 'jwks_uri',
]);
const LITERALS = new Set(['true', 'false', 'null']);

/** Where the piece that starts at `at` ends (past its last character). */
function pieceEnd(text: string, at: number): number {
  const rest = text.slice(at);
  if (rest.startsWith('//')) {
    const nl = text.indexOf('\n', at);
    return nl < 0 ? text.length : nl;
  }
  if (rest.startsWith('/*')) return blockCommentEnd(text, at);
  const c = text[at];
  if (c === '"' || c === "'") return stringEnd(text, at);
  if (/^<<[-+][A-Za-z_]/.test(rest)) return heredocEnd(text, at);
  const word = /^(?:@?[A-Za-z_][A-Za-z0-9_]*|`[^`\n]*`|\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?|\s+)/.exec(rest);
  return at + (word ? word[0].length : 1);
}

/** `/* … *\/`, nested as FQL nests them; an unclosed one runs to the end. */
function blockCommentEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (text.startsWith('/*', i)) {
      depth++;
      i++;
    } else if (text.startsWith('*/', i)) {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** A quoted string; in a double-quoted one, `#{…}` holds an expression with its own strings and braces. */
function stringEnd(text: string, at: number): number {
  const quote = text[at];
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === quote) return i + 1;
    else if (quote === '"' && text.startsWith('#{', i)) {
      let depth = 0;
      for (i += 1; i < text.length; i = pieceEnd(text, i)) {
        if (text[i] === '{') depth++;
        else if (text[i] === '}' && --depth === 0) break;
      }
    }
  }
  return text.length;
}

/** `<<-END` or `<<+END`, then lines up to one that is the delimiter alone. */
function heredocEnd(text: string, at: number): number {
  const delim = /^<<[-+]([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(at))![1];
  const close = new RegExp(`\\n[ \\t]*${delim}(?![A-Za-z0-9_])`, 'g');
  close.lastIndex = at;
  const m = close.exec(text);
  return m ? m.index + m[0].length : text.length;
}

function kindOf(piece: string): Piece['kind'] {
  if (piece.startsWith('//') || piece.startsWith('/*')) return 'comment';
  if (/^["'<]/.test(piece) && piece.length > 1) return 'string';
  if (/^\d/.test(piece)) return 'number';
  if (LITERALS.has(piece)) return 'literal';
  if (piece.startsWith('@') || KEYWORDS.has(piece)) return 'fn';
  if (/^[A-Za-z_`]/.test(piece)) return 'name';
  return /^\s/.test(piece) ? 'plain' : 'punct';
}

/** The text cut into pieces that cover all of it, each with its kind. */
export function fslPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  for (let at = 0; at < text.length; ) {
    const end = pieceEnd(text, at);
    pieces.push({ text: text.slice(at, end), kind: kindOf(text.slice(at, end)) });
    at = end;
  }
  return pieces;
}

/**
 * The definition of collection `name` in a file's text (from `collection` to its closing brace),
 * or null when the file defines no such collection at its top level.
 */
export function collectionDefinition(text: string, name: string): string | null {
  const pieces = fslPieces(text);
  const offsets: number[] = [];
  let at = 0;
  for (const p of pieces) {
    offsets.push(at);
    at += p.text.length;
  }
  const significant = (i: number) => pieces[i].kind !== 'plain' && pieces[i].kind !== 'comment';
  const next = (i: number) => {
    let j = i + 1;
    while (j < pieces.length && !significant(j)) j++;
    return j;
  };
  let depth = 0;
  for (let i = 0; i < pieces.length; i++) {
    const t = pieces[i].text;
    if (t === '{') depth++;
    else if (t === '}') depth--;
    if (depth !== 0 || t !== 'collection') continue;
    const n = next(i);
    if (n >= pieces.length || pieces[n].text.replace(/^`(.*)`$/, '$1') !== name) continue;
    let inner = 0;
    for (let j = next(n); j < pieces.length; j++) {
      if (pieces[j].text === '{') inner++;
      else if (pieces[j].text === '}' && --inner === 0) return text.slice(offsets[i], offsets[j] + 1);
    }
    return text.slice(offsets[i]);
  }
  return null;
}
