// FQL_SHAPE: the request with its personal data removed (log-export.md §B.3, fql-v4.md §8.1).
//
// FQL v4 requests are JSON expressions. The shape keeps their structure (function keys, object field
// names, variable names, the names of collections, indexes, functions, databases and roles they
// refer to, booleans and null) and replaces every other literal by "?": strings, numbers, timestamps,
// dates, bytes, document ids. The value of every key containing `password`, `secret` or
// `key_from_secret` becomes "***" whatever it is, and a top-level `data` key is removed (fql-v4.md
// §8.1). The result is compact JSON text, cut at SHAPE_MAX_CHARS. GraphQL text gets the same treatment
// (shapeGraphQL): string and number literals become "?" and 0, comments and extra whitespace go;
// variables are never part of the shape.

/** Longest FQL_SHAPE kept (characters); longer shapes end with "…". */
export const SHAPE_MAX_CHARS = 4096;
/**
 * Bodies above this are not shaped at all. Below it the shaper reads the body only until the shape is
 * SHAPE_MAX_CHARS long, so a bulk request costs little more than a small one.
 */
export const SHAPE_MAX_INPUT = 1024 * 1024;

const HIDDEN = '"***"';
const LITERAL = '"?"';
const SENSITIVE_KEY = /password|secret|key_from_secret/i;

/** Keys whose string value names schema or code (not data), and is kept as is. */
const NAME_KEYS = new Set([
  'collection', 'class', 'index', 'function', 'database', 'role', 'access_provider',
  'collections', 'classes', 'indexes', 'functions', 'databases', 'roles', 'access_providers',
  'keys', 'tokens', 'credentials', 'var', 'lambda',
]);

/** Wire tags whose payload is a literal (fql-v4.md §2.1). */
const LITERAL_TAGS = new Set(['@ts', '@date', '@bytes']);

const MAX_DEPTH = 64;

class Invalid extends Error {}
class Full extends Error {}

/**
 * The shape of an FQL v4 JSON body, made in one pass over the text (no parse tree): this runs for
 * every request, so it must cost next to nothing.
 */
export function shapeFql(body: string): string {
  if (body.length === 0) return '';
  if (body.length > SHAPE_MAX_INPUT) return `<${Buffer.byteLength(body, 'utf8')} bytes, not shaped>`;
  const shaper = new Shaper(body);
  try {
    shaper.ws();
    shaper.value(undefined, 0);
    shaper.ws();
    if (shaper.i !== body.length) throw new Invalid();
    return shaper.out;
  } catch (err) {
    if (err instanceof Full) return `${shaper.out.slice(0, SHAPE_MAX_CHARS - 1)}…`;
    if (err instanceof Invalid || err instanceof SyntaxError) return `<invalid JSON, ${Buffer.byteLength(body, 'utf8')} bytes>`;
    throw err;
  }
}

class Shaper {
  i = 0;
  out = '';

  constructor(private readonly s: string) {}

  ws(): void {
    const s = this.s;
    let c = s.charCodeAt(this.i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++this.i);
  }

  private emit(text: string): void {
    this.out += text;
    if (this.out.length > SHAPE_MAX_CHARS) throw new Full();
  }

  private expect(ch: number): void {
    if (this.s.charCodeAt(this.i) !== ch) throw new Invalid();
    this.i++;
  }

  /** One value; `key` is the object key it belongs to (or the array's key, for names in lists). */
  value(key: string | undefined, depth: number): void {
    const c = this.s.charCodeAt(this.i);
    if (c === 0x7b /* { */) return depth >= MAX_DEPTH ? this.skipped() : this.object(depth);
    if (c === 0x5b /* [ */) return depth >= MAX_DEPTH ? this.skipped() : this.array(key, depth);
    if (c === 0x22 /* " */) {
      const start = this.i;
      const text = this.string();
      if (key === '@ref') this.emit(JSON.stringify(shapeRefPath(text)));
      else if (key !== undefined && NAME_KEYS.has(key)) this.emit(this.s.slice(start, this.i));
      else this.emit(LITERAL);
      return;
    }
    if (c === 0x74 /* t */) return this.word('true');
    if (c === 0x66 /* f */) return this.word('false');
    if (c === 0x6e /* n */) return this.word('null');
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      this.number();
      this.emit(LITERAL);
      return;
    }
    throw new Invalid();
  }

  private object(depth: number): void {
    this.i++;
    this.emit('{');
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x7d) {
      this.i++;
      this.emit('}');
      return;
    }
    let members = 0;
    for (;;) {
      this.ws();
      const start = this.i;
      const key = this.string();
      const keyText = this.s.slice(start, this.i);
      this.ws();
      this.expect(0x3a /* : */);
      this.ws();
      if (depth === 0 && key === 'data') {
        this.skip(); // the request's top-level `data` is removed, not shaped (fql-v4.md §8.1)
      } else {
        this.emit(`${members++ ? ',' : ''}${keyText}:`);
        if (SENSITIVE_KEY.test(key)) {
          this.skip();
          this.emit(HIDDEN);
        } else if (LITERAL_TAGS.has(key)) {
          this.skip();
          this.emit(LITERAL);
        } else {
          this.value(key, depth + 1);
        }
      }
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 0x7d /* } */) {
        this.emit('}');
        return;
      }
      if (c !== 0x2c /* , */) throw new Invalid();
    }
  }

  private array(key: string | undefined, depth: number): void {
    this.i++;
    this.emit('[');
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x5d) {
      this.i++;
      this.emit(']');
      return;
    }
    // Lambda parameter lists and the like are names; any other array's strings are literals.
    const inner = key === 'lambda' || key === 'var' ? key : undefined;
    for (;;) {
      this.ws();
      this.value(inner, depth + 1);
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 0x5d /* ] */) {
        this.emit(']');
        return;
      }
      if (c !== 0x2c /* , */) throw new Invalid();
      this.emit(',');
    }
  }

  /** A JSON string at i (decoded); i ends after its closing quote. */
  private string(): string {
    const s = this.s;
    if (s.charCodeAt(this.i) !== 0x22) throw new Invalid();
    const start = this.i;
    let j = start + 1;
    for (;;) {
      const q = s.indexOf('"', j);
      if (q < 0) throw new Invalid();
      let backslashes = 0;
      for (let k = q - 1; k > start && s.charCodeAt(k) === 0x5c; k--) backslashes++;
      if (backslashes % 2 === 0) {
        this.i = q + 1;
        const raw = s.slice(start + 1, q);
        return raw.includes('\\') ? (JSON.parse(s.slice(start, q + 1)) as string) : raw;
      }
      j = q + 1;
    }
  }

  private number(): void {
    const s = this.s;
    const start = this.i;
    let c = s.charCodeAt(this.i);
    while ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) c = s.charCodeAt(++this.i);
    if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(s.slice(start, this.i))) throw new Invalid();
  }

  private word(w: string): void {
    if (!this.s.startsWith(w, this.i)) throw new Invalid();
    this.i += w.length;
    this.emit(w);
  }

  /** Passes over one value without shaping it. */
  private skip(): void {
    const c = this.s.charCodeAt(this.i);
    if (c === 0x22) {
      this.string();
      return;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (c !== 0x7b && c !== 0x5b) {
      const w = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      if (!this.s.startsWith(w, this.i)) throw new Invalid();
      this.i += w.length;
      return;
    }
    let depth = 0;
    for (;;) {
      const ch = this.s.charCodeAt(this.i);
      if (Number.isNaN(ch)) throw new Invalid();
      if (ch === 0x22) {
        this.string();
        continue;
      }
      if (ch === 0x7b || ch === 0x5b) depth++;
      else if (ch === 0x7d || ch === 0x5d) depth--;
      this.i++;
      if (depth === 0) return;
    }
  }

  /** Too deep to shape: skipped, and marked. */
  private skipped(): void {
    this.skip();
    this.emit('"…"');
  }
}

/** `classes/users/123` → `classes/users/?`; paths without a document id are names and are kept. */
function shapeRefPath(path: string): string {
  const parts = path.split('/');
  if (parts.length >= 3 && (parts[0] === 'classes' || parts[0] === 'collections')) {
    return [parts[0], parts[1], ...parts.slice(2).map(() => '?')].join('/');
  }
  if (parts.length >= 2 && (parts[0] === 'keys' || parts[0] === 'tokens' || parts[0] === 'credentials')) {
    return [parts[0], ...parts.slice(1).map(() => '?')].join('/');
  }
  if (NATIVE_PATHS.has(parts[0])) return path;
  return '?';
}

const NATIVE_PATHS = new Set(['classes', 'collections', 'indexes', 'functions', 'databases', 'roles', 'keys', 'tokens', 'credentials', 'access_providers']);

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

/** Where a driver's template put a value (wire/v10 VALUE_SIGIL): values are arguments, never shaped. */
const V10_VALUE = '\u0000value>';
/** FQL v10 number literals: hexadecimal, binary, octal, decimal with fraction and exponent. */
const V10_NUMBER = /^(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?)/;

/** Shapes of recent v10 texts: a driver's template sends one text whatever its values, so a text
 *  repeats. Cleared when full (as the REQUEST_HEADERS cache is); long texts are shaped each time. */
const v10Shapes = new Map<string, string>();
const V10_SHAPES_MAX = 512;
const V10_SHAPED_TEXT_MAX = 4096;

/**
 * FQL v10 query text without its literals: strings (single or double quoted, heredocs) → "?",
 * numbers → 0, template values → <value>, comments removed, whitespace collapsed. Names, operators
 * and structure stay.
 */
export function shapeFql10(text: string): string {
  if (text.length > V10_SHAPED_TEXT_MAX) return shapeV10Text(text);
  let shape = v10Shapes.get(text);
  if (shape === undefined) {
    shape = shapeV10Text(text);
    if (v10Shapes.size >= V10_SHAPES_MAX) v10Shapes.clear();
    v10Shapes.set(text, shape);
  }
  return shape;
}

function shapeV10Text(text: string): string {
  if (text.length > SHAPE_MAX_INPUT) return `<${Buffer.byteLength(text, 'utf8')} bytes, not shaped>`;
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text[i];
    if (text.startsWith('//', i)) {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      out.push(' ');
      continue;
    }
    if (text.startsWith(V10_VALUE, i)) {
      out.push('<value>');
      i += V10_VALUE.length;
      continue;
    }
    if (c === "'" || c === '"') {
      i++;
      while (i < n && text[i] !== c) i += text[i] === '\\' ? 2 : 1;
      i++;
      out.push('"?"');
      continue;
    }
    const heredoc = /^<<([+-]?)([A-Za-z_]+)/.exec(text.slice(i, i + 64));
    if (heredoc) {
      const end = text.indexOf(heredoc[2], i + heredoc[0].length);
      i = end < 0 ? n : end + heredoc[2].length;
      out.push('"?"');
      continue;
    }
    if (/[0-9]/.test(c)) {
      const prev = out.length ? out[out.length - 1] : '';
      if (!/[_A-Za-z0-9$]$/.test(prev)) {
        i += V10_NUMBER.exec(text.slice(i, i + 1024))![0].length;
        out.push('0');
        continue;
      }
    }
    if (/\s/.test(c)) {
      while (i < n && /\s/.test(text[i])) i++;
      out.push(' ');
      continue;
    }
    out.push(c);
    i++;
  }
  return cut(out.join('').replace(/ +/g, ' ').trim());
}
