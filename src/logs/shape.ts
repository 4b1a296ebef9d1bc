// FQL_SHAPE: the request with its personal data removed (log-export.md §B.3, fql-v4.md §8.1).
//
// FQL v4 requests are JSON expressions. The shape keeps their structure (function keys, object field
// names, variable names, the names of collections, indexes, functions, databases and roles they
// refer to, booleans and null) and replaces every other literal by "?": strings, numbers, timestamps,
// dates, bytes, document ids. The value of every key containing `password`, `secret` or
// `key_from_secret` becomes "***" whatever it is (fql-v4.md §8.1). The result is compact JSON text, cut
// at SHAPE_MAX_CHARS. GraphQL text gets the same treatment (shapeGraphQL): string and number literals
// become "?" and 0, comments and extra whitespace go; variables are never part of the shape.

/** Longest FQL_SHAPE kept (characters); longer shapes end with "…". */
export const SHAPE_MAX_CHARS = 4096;
/**
 * Bodies above this are not parsed for a shape: the shape is cut at SHAPE_MAX_CHARS anyway, and
 * parsing a bulk request again only for its log record would cost a good part of the request.
 */
export const SHAPE_MAX_INPUT = 64 * 1024;

const HIDDEN = '***';
const LITERAL = '?';
const SENSITIVE_KEY = /password|secret|key_from_secret/i;

/** Keys whose string value names schema or code (not data), and is kept as is. */
const NAME_KEYS = new Set([
  'collection', 'class', 'index', 'function', 'database', 'role', 'access_provider',
  'collections', 'classes', 'indexes', 'functions', 'databases', 'roles', 'access_providers',
  'keys', 'tokens', 'credentials', 'var', 'lambda',
]);

/** Wire tags whose payload is a literal (fql-v4.md §2.1). */
const LITERAL_TAGS = new Set(['@ts', '@date', '@bytes']);

export function shapeFql(body: string): string {
  if (body.length === 0) return '';
  if (body.length > SHAPE_MAX_INPUT) return `<${Buffer.byteLength(body, 'utf8')} bytes, not shaped>`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `<invalid JSON, ${Buffer.byteLength(body, 'utf8')} bytes>`;
  }
  return cut(JSON.stringify(shapeValue(parsed, undefined, 0)));
}

const MAX_DEPTH = 64;

function shapeValue(v: unknown, key: string | undefined, depth: number): unknown {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (key === '@ref') return shapeRefPath(v);
    return key !== undefined && NAME_KEYS.has(key) ? v : LITERAL;
  }
  if (typeof v === 'number') return LITERAL;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(v)) {
    // Lambda parameter lists and the like are names; any other array's strings are literals.
    return v.map((x) => shapeValue(x, key === 'lambda' || key === 'var' ? key : undefined, depth + 1));
  }
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (SENSITIVE_KEY.test(k)) out[k] = HIDDEN;
      else if (LITERAL_TAGS.has(k)) out[k] = LITERAL;
      else out[k] = shapeValue(x, k, depth + 1);
    }
    return out;
  }
  return LITERAL;
}

/** `classes/users/123` → `classes/users/?`; paths without a document id are names and are kept. */
function shapeRefPath(path: string): string {
  const parts = path.split('/');
  const native = new Set(['classes', 'collections', 'indexes', 'functions', 'databases', 'roles', 'keys', 'tokens', 'credentials', 'access_providers']);
  if (parts.length >= 3 && (parts[0] === 'classes' || parts[0] === 'collections')) {
    return [parts[0], parts[1], ...parts.slice(2).map(() => LITERAL)].join('/');
  }
  if (parts.length >= 2 && (parts[0] === 'keys' || parts[0] === 'tokens' || parts[0] === 'credentials')) {
    return [parts[0], ...parts.slice(1).map(() => LITERAL)].join('/');
  }
  if (native.has(parts[0])) return path;
  return LITERAL;
}

function cut(s: string): string {
  return s.length <= SHAPE_MAX_CHARS ? s : `${s.slice(0, SHAPE_MAX_CHARS - 1)}…`;
}

/**
 * GraphQL request text without its literals: block and ordinary strings → "?", numbers → 0,
 * comments removed, whitespace collapsed. Names, arguments, variables' names and structure stay.
 */
export function shapeGraphQL(text: string): string {
  if (text.length > SHAPE_MAX_INPUT) return `<${Buffer.byteLength(text, 'utf8')} bytes, not shaped>`;
  const out: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '#') {
      while (i < n && text[i] !== '\n' && text[i] !== '\r') i++;
      continue;
    }
    if (text.startsWith('"""', i)) {
      const end = findBlockStringEnd(text, i + 3);
      out.push('"?"');
      i = end;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < n && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
      out.push('"?"');
      continue;
    }
    if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const prev = out.length ? out[out.length - 1] : '';
      if (!/[_A-Za-z0-9]$/.test(prev)) {
        i++;
        while (i < n && /[0-9.eE+-]/.test(text[i])) i++;
        out.push('0');
        continue;
      }
    }
    if (/\s|,/.test(c)) {
      while (i < n && /\s|,/.test(text[i])) i++;
      out.push(' ');
      continue;
    }
    out.push(c);
    i++;
  }
  return cut(out.join('').replace(/ +/g, ' ').trim());
}

function findBlockStringEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    if (text.startsWith('\\"""', i)) i += 4;
    else if (text.startsWith('"""', i)) return i + 3;
    else i++;
  }
  return text.length;
}
