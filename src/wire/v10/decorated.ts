// The `decorated` format: a value as FQL source text (fauna-shell prints it), sent as one JSON
// string. A copy of the core's MaterializedValue.Decorator: two-space indents, one element per line,
// heredocs for strings with newlines, identifiers bare as keys, documents expanded once (a document
// met again inside itself renders as its reference) and references as `Coll("id")` /
// `Coll.byName("name")`, with `/* cause */` after a missing one.

import { Bytes, DateV, Time, TxnTime } from '../../values/types';
import { formatDouble } from '../encode';
import { formatDate, formatTime } from '../time';
import { legacyRefText } from './encode';
import {
  Doc,
  DocRef,
  FunctionValue,
  LegacyRef,
  Module,
  NamedRef,
  NullDoc,
  SetPage,
  SetToken,
  StreamToken,
  type MValue,
  SmallLong,
} from './model';

/** `v` as decorated FQL text (not yet quoted as the JSON string the response carries). */
export function decorate(v: MValue, txnTs: bigint): string {
  const d = new Decorator(txnTs);
  d.encode(v);
  return d.sb;
}

// MaterializedValue.escape0: FQL string escapes, other characters as they are.
const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\0': '\\0',
  "'": "\\'",
  '"': '\\"',
  '`': '\\`',
  '\n': '\\n',
  '\r': '\\r',
  '\v': '\\v',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '#': '\\#',
};
const ESCAPED = /[\\\0'"`\n\r\v\t\b\f#]/g;

function quote(s: string): string {
  return '"' + s.replace(ESCAPED, (c) => ESCAPES[c]) + '"';
}

// MaterializedValue.isIdent: a letter, then letters, digits or `_` (Java's Character classes).
const IDENT = /^\p{L}[\p{L}\p{Nd}_]*$/u;

class Decorator {
  sb = '';
  private depth = 0;
  private needsIndent = true;
  /** Documents being expanded: met again inside themselves they render as references. */
  private readonly expanding = new Set<Doc>();

  constructor(private readonly txnTs: bigint) {}

  private write(v: string): void {
    if (this.needsIndent) {
      this.sb += '  '.repeat(this.depth);
      this.needsIndent = false;
    }
    this.sb += v;
    if (v.endsWith('\n')) this.needsIndent = true;
  }

  private writeln(v: string): void {
    this.write(v);
    this.write('\n');
  }

  private strLit(v: string): void {
    this.write(''); // the indent
    if (!v.includes('\n')) {
      this.sb += quote(v);
      return;
    }
    let sigil: string | undefined = 'END';
    if (v.includes('END')) {
      sigil = undefined;
      for (let i = 0; i < 10 && sigil === undefined; i++) if (!v.includes(`END${i}`)) sigil = `END${i}`;
    }
    if (sigil === undefined) {
      this.sb += quote(v);
      return;
    }
    this.writeln(`<<-${sigil}`);
    this.depth++;
    for (const line of javaLines(v)) this.writeln(line);
    this.depth--;
    this.write(sigil);
  }

  encode(v: MValue): void {
    switch (typeof v) {
      case 'string':
        this.strLit(v);
        return;
      case 'bigint':
        this.write(v.toString());
        return;
      case 'number':
        if (v !== v) this.write('Math.NaN');
        else if (v === Infinity) this.write('Math.Infinity');
        else if (v === -Infinity) this.write('-Math.Infinity');
        else this.write(formatDouble(v));
        return;
      case 'boolean':
        this.write(v ? 'true' : 'false');
        return;
    }
    if (v === null) this.write('null');
    else if (v instanceof SmallLong) this.write(v.value.toString());
    else if (Array.isArray(v)) this.array(v);
    else if (v instanceof Map) this.struct(v);
    else if (v instanceof Doc) {
      if (this.expanding.has(v)) this.ref(v.ref);
      else {
        this.expanding.add(v);
        this.struct(v.fields);
        this.expanding.delete(v);
      }
    } else if (v instanceof DocRef || v instanceof NamedRef) this.ref(v);
    else if (v instanceof NullDoc) {
      this.ref(v.ref);
      this.write(` /* ${v.cause} */`);
    } else if (v instanceof Module) this.module(v);
    else if (v instanceof Time) this.call('Time', formatTime(v.nanos));
    else if (v instanceof TxnTime) this.call('Time', formatTime(this.txnTs * 1000n));
    else if (v instanceof DateV) this.call('Date', formatDate(v.days));
    else if (v instanceof Bytes) this.call('Bytes', Buffer.from(v.bytes).toString('base64'));
    else if (v instanceof SetPage) {
      const page = new Map<string, MValue>([['data', v.data]]);
      if (v.after !== undefined) page.set('after', v.after);
      this.struct(page);
    } else if (v instanceof SetToken || v instanceof StreamToken) this.strLit(v.token);
    else if (v instanceof FunctionValue) this.strLit(v.name === undefined ? '[function <lambda>]' : `[function ${v.name}]`);
    else if (v instanceof LegacyRef) this.write(legacyRefText(v));
  }

  private call(fn: string, arg: string): void {
    this.write(fn + '(');
    this.strLit(arg);
    this.write(')');
  }

  private module(m: Module): void {
    if (m.parent) {
      this.module(m.parent);
      this.write('.');
    }
    this.write(m.name);
  }

  private ref(r: DocRef | NamedRef): void {
    this.module(r.coll);
    if (r instanceof DocRef) this.write(`("${r.id}")`);
    else {
      this.write('.byName(');
      this.strLit(r.name);
      this.write(')');
    }
  }

  private array(items: readonly MValue[]): void {
    if (items.length === 0) {
      this.write('[]');
      return;
    }
    this.writeln('[');
    this.depth++;
    items.forEach((item, i) => {
      this.encode(item);
      this.writeln(i === items.length - 1 ? '' : ',');
    });
    this.depth--;
    this.write(']');
  }

  private struct(o: ReadonlyMap<string, MValue>): void {
    if (o.size === 0) {
      this.write('{}');
      return;
    }
    this.writeln('{');
    this.depth++;
    let i = 0;
    for (const [k, v] of o) {
      if (IDENT.test(k)) this.write(k);
      else this.strLit(k);
      this.write(': ');
      this.encode(v);
      this.writeln(++i === o.size ? '' : ',');
    }
    this.depth--;
    this.write('}');
  }
}

/** Java's String.lines(): split at \n, \r or \r\n, with no empty last line after a final terminator. */
function javaLines(s: string): string[] {
  const lines = s.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
