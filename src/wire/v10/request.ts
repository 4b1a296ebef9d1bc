// A /query/1 request body, `{"query": …, "arguments": {…}}`, read as the core reads it
// (api/fql2/FQL2Request.scala, model/.../serialization/FQL2Query.scala).
//
// The query is a string, or a template of fragments the `fauna` driver builds from fql`…`:
// `{"fql": [frag…]}` (concatenated), `{"value": v}` (a value, decoded later as tagged),
// `{"array": [frag…]}`, `{"object": {k: frag…}}`. As in the core, a template becomes one query text
// in which every value stands as the placeholder VALUE_SIGIL, plus the values with their offsets: the
// parser reads the text in template mode (a placeholder is the variable `$<n>`, the n-th value) and
// an argument that fails to decode is reported at its placeholder. Text inside an array or object
// fragment is wrapped in parentheses; an array or object of values only becomes a single value.

import { badRequest } from './errors';
import { invalidBody, readJson, repeatedKey, type Undecided, type UndecidedObject } from './json';

/** The core's TemplateSigil.Value: where a value sits in the query text. */
export const VALUE_SIGIL = '\u0000value>';

export interface TemplateValue {
  /** The value's JSON, decoded with decodeTemplateValue (args.ts). */
  readonly value: Undecided;
  /** Where its VALUE_SIGIL starts in the query text. */
  readonly offset: number;
}

export interface FqlQuery {
  readonly text: string;
  readonly values: readonly TemplateValue[];
}

export interface QueryRequest {
  readonly query: FqlQuery;
  /** The `arguments` object, decoded with decodeArguments (args.ts) in the request's format. */
  readonly arguments?: UndecidedObject;
}

/**
 * Reads a request body (undefined or empty when the request had none). Throws ProtocolFailure
 * `invalid_request` with the core's message.
 */
export function parseQueryRequest(body: string | undefined): QueryRequest {
  if (body === undefined || body === '') throw badRequest('No request body provided');
  const json = readJson(body);
  if (!(json instanceof Map)) throw unexpected(json);
  let query: FqlQuery | undefined;
  let args: UndecidedObject | undefined;
  for (const [key, v] of json) {
    if (key === 'query') query = decodeQuery(v);
    else if (key === 'arguments') {
      if (v === null) args = undefined;
      else if (v instanceof Map) args = v;
      else throw unexpected(v, 'Object');
    } else throw invalidBody(undefined); // the core's record decoder has no case for other keys
  }
  if (query === undefined) throw invalidBody(undefined); // "No field query", not a parse error
  return args === undefined ? { query } : { query, arguments: args };
}

/** The core's JSONTypes labels. */
function label(v: Undecided): string {
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'bigint':
      return 'Integer';
    case 'number':
      return 'Double';
    case 'boolean':
      return 'Boolean';
  }
  if (v === null) return 'Null';
  return Array.isArray(v) ? 'Array Start' : 'Object Start';
}

/** JSONUnexpectedTypeException, as the endpoint words it. */
function unexpected(v: Undecided | 'end' | 'field', expected?: string) {
  const provided = v === 'end' ? 'Object End' : v === 'field' ? 'Object Field Name' : label(v);
  return invalidBody(`Unexpected JSON ${provided}.${expected === undefined ? '' : ` Expected ${expected}.`}`);
}

const SINGLE_KEY = "an object with a single key 'fql', 'value', 'array', or 'object'";

function decodeQuery(v: Undecided): FqlQuery {
  if (typeof v === 'string') return { text: v, values: [] };
  if (!(v instanceof Map)) throw unexpected(v, 'query template');
  const b = new TemplateBuilder();
  b.fragmentObject(v);
  return { text: b.text, values: b.values };
}

class TemplateBuilder {
  text = '';
  values: TemplateValue[] = [];
  /** Within an array or object fragment: text is parenthesised to keep its scope. */
  private inContainer = false;
  /** Whether query text was met (the container cannot become a value). */
  private hitQuery = false;

  private fragment(v: Undecided): void {
    if (typeof v === 'string') {
      if (v.includes('\u0000')) throw invalidBody('FQL strings cannot contain NUL characters');
      this.hitQuery = true;
      this.text += this.inContainer ? '(' + v + ')' : v;
    } else if (v instanceof Map) this.fragmentObject(v);
    else throw unexpected(v, 'query template');
  }

  fragmentObject(o: UndecidedObject): void {
    const first = o.entries().next();
    if (first.done) throw unexpected('end');
    const [key, v] = first.value;
    const outer = this.inContainer;
    switch (key) {
      case 'fql':
        this.inContainer = false;
        this.fql(v, outer);
        break;
      case 'value':
        this.values.push({ value: v, offset: this.text.length });
        this.text += VALUE_SIGIL;
        break;
      case 'array':
        this.inContainer = true;
        this.container(() => this.array(v));
        break;
      case 'object':
        this.inContainer = true;
        this.container(() => this.object(v));
        break;
      default:
        throw unexpected('field', SINGLE_KEY);
    }
    this.inContainer = outer;
    if (o.size > 1 || repeatedKey(o) !== undefined) throw unexpected('field', SINGLE_KEY);
  }

  private fql(v: Undecided, parens: boolean): void {
    if (!Array.isArray(v)) throw unexpected(v);
    if (parens) this.text += '(';
    for (const part of v) this.fragment(part);
    if (parens) this.text += ')';
  }

  /** Runs a container's decoder; when it met no query text, the container becomes one value. */
  private container(decode: () => Undecided): void {
    const hitBefore = this.hitQuery;
    this.hitQuery = false;
    const textStart = this.text.length;
    const valuesStart = this.values.length;
    const asValue = decode();
    if (!this.hitQuery) {
      this.text = this.text.slice(0, textStart) + VALUE_SIGIL;
      this.values.length = valuesStart;
      this.values.push({ value: asValue, offset: textStart });
    }
    this.hitQuery ||= hitBefore;
  }

  /** Writes `[a, b]`; returns the array of the values written, for when it had no query text. */
  private array(v: Undecided): Undecided[] {
    if (!Array.isArray(v)) throw unexpected(v);
    const valuesStart = this.values.length;
    this.text += '[';
    v.forEach((item, i) => {
      if (i > 0) this.text += ', ';
      this.fragment(item);
    });
    this.text += ']';
    return this.values.slice(valuesStart).map((t) => t.value);
  }

  /** Writes `{ "k": v }`; returns `{"@object": {…}}` of the values written (tagged-decoded later). */
  private object(v: Undecided): UndecidedObject {
    if (!(v instanceof Map)) throw unexpected(v);
    const duplicate = repeatedKey(v);
    const valuesStart = this.values.length;
    this.text += '{ ';
    let i = 0;
    for (const [k, item] of v) {
      if (i++ > 0) this.text += ', ';
      this.text += fqlStringLiteral(k) + ': ';
      this.fragment(item);
      if (k === duplicate) throw invalidBody(`Duplicate object field \`${k}\``);
    }
    this.text += ' }';
    const keys = [...v.keys()];
    const values = this.values.slice(valuesStart);
    const fields: UndecidedObject = new Map();
    for (let j = 0; j < Math.min(keys.length, values.length); j++) fields.set(keys[j], values[j].value);
    return new Map([['@object', fields]]);
  }
}

// fql/ast/Display.writeStrLit: FQL escapes, `\uXXXX` for characters not displayed, `\u{XXXXXX}` for
// code points beyond the BMP.
const FQL_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\0': '\\0',
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\v': '\\v',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '#': '\\#',
};

function isDisplay(c: number): boolean {
  return !(
    c <= 0x08 ||
    (c >= 0x0e && c <= 0x1f) ||
    c === 0x7f ||
    c >= 0xfff0 ||
    c === 0xfeff ||
    (c >= 0x2000 && c <= 0x200f) ||
    (c >= 0x2028 && c <= 0x202f) ||
    (c >= 0x2060 && c <= 0x206f)
  );
}

function fqlStringLiteral(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const esc = FQL_ESCAPES[ch];
    if (esc !== undefined) out += esc;
    else if (cp > 0xffff) out += '\\u{' + cp.toString(16).padStart(6, '0') + '}';
    else if (isDisplay(cp)) out += ch;
    else out += '\\u' + cp.toString(16).padStart(4, '0');
  }
  return out + '"';
}
