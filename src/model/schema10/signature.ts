// Type signature strings of a v10 collection schema (`fields.x.signature`, `wildcard`,
// `computed_fields.x.signature`): parsed into the SchemaType values are checked against. The
// grammar is the core's schema type expressions (fql Parser.schemaTypeExpr): names with type
// arguments (`Array<String>`, `Ref<User>`), `T?`, `A | B`, records `{ a: T, b?: U, *: V }`, tuples
// `[A, B]`, literals (`"a"`, `1`, `true`, `null`) and parentheses. A name that is not a scalar
// type is a collection's documents.

import { ANY, NULL, nullable, scalar, type FieldSchema, type Scalar, type SchemaType } from './schemaType';

const SCALARS = new Set<Scalar>(['Any', 'Null', 'Int', 'Long', 'Double', 'Number', 'Boolean', 'String', 'Time', 'Date', 'Bytes', 'UUID', 'ID']);
/** Aliases the core's typer resolves to the types above. */
const ALIASES: Record<string, SchemaType> = { Float: scalar('Double'), Object: { t: 'record', fields: new Map(), wildcard: ANY } };

export class SignatureError extends Error {
  constructor(
    message: string,
    /** 0-based offset of the failure in the signature. */
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Parses a signature, throwing SignatureError at the first failure. */
export function parseSignature(src: string): SchemaType {
  const p = new Parser(src);
  const t = p.union();
  p.skipSpace();
  if (p.i < src.length) throw new SignatureError('Expected end-of-input', p.i);
  return t;
}

/**
 * The core's failure for a signature that does not parse (Validators.UserSigValidator), its
 * diagnostic rendered as the core renders an inline source named `*field*`.
 */
export function signatureFailure(src: string, field: string): string | undefined {
  try {
    parseSignature(src);
    return undefined;
  } catch (e) {
    if (!(e instanceof SignatureError)) throw e;
    const line = src.split('\n')[0];
    const caret = ' '.repeat(Math.min(e.offset, line.length)) + '^';
    return [
      'Failed parsing user-provided signature.',
      `error: ${e.message}`,
      `at *${field}*:1:${e.offset + 1}`,
      '  |',
      `1 | ${line}`,
      `  | ${caret}`,
      '  |',
    ].join('\n');
  }
}

class Parser {
  i = 0;
  constructor(private readonly s: string) {}

  skipSpace(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i++;
  }

  private peek(): string {
    this.skipSpace();
    return this.s[this.i] ?? '';
  }

  private eat(c: string): boolean {
    if (this.peek() !== c) return false;
    this.i++;
    return true;
  }

  private expect(c: string): void {
    if (!this.eat(c)) throw new SignatureError(`Expected \`${c}\``, this.i);
  }

  union(): SchemaType {
    const members = [this.postfix()];
    while (this.eat('|')) members.push(this.postfix());
    return members.length === 1 ? members[0] : { t: 'union', of: members };
  }

  private postfix(): SchemaType {
    let t = this.primary();
    while (this.eat('?')) t = nullable(t);
    return t;
  }

  private primary(): SchemaType {
    const c = this.peek();
    if (c === '(') {
      this.i++;
      const t = this.union();
      this.expect(')');
      return t;
    }
    if (c === '{') return this.record();
    if (c === '[') {
      this.i++;
      const of: SchemaType[] = [];
      while (!this.eat(']')) {
        of.push(this.union());
        if (!this.eat(',')) {
          this.expect(']');
          break;
        }
      }
      return { t: 'tuple', of };
    }
    if (c === '"' || c === "'") return { t: 'literal', value: this.string() };
    const num = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(this.s.slice(this.i));
    if (num) {
      this.i += num[0].length;
      return { t: 'literal', value: num[1] || /[eE]/.test(num[0]) ? Number(num[0]) : BigInt(num[0]) };
    }
    const name = this.ident();
    if (name === undefined) throw new SignatureError('Expected type', this.i);
    if (name === 'true' || name === 'false') return { t: 'literal', value: name === 'true' };
    if (name === 'null') return { t: 'literal', value: null };
    const args: SchemaType[] = [];
    if (this.eat('<')) {
      do args.push(this.union());
      while (this.eat(','));
      this.expect('>');
    }
    return named(name, args, this.i);
  }

  private ident(): string | undefined {
    this.skipSpace();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i));
    if (!m) return undefined;
    this.i += m[0].length;
    return m[0];
  }

  private string(): string {
    const quote = this.s[this.i];
    let out = '';
    for (this.i++; this.i < this.s.length; this.i++) {
      const ch = this.s[this.i];
      if (ch === quote) {
        this.i++;
        return out;
      }
      if (ch === '\\') {
        const next = this.s[++this.i];
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      } else out += ch;
    }
    throw new SignatureError('Unterminated string', this.i);
  }

  private record(): SchemaType {
    this.expect('{');
    const fields = new Map<string, FieldSchema>();
    let wildcard: SchemaType | undefined;
    while (!this.eat('}')) {
      if (this.eat('*')) {
        this.expect(':');
        wildcard = this.union();
      } else {
        const c = this.peek();
        const key = c === '"' || c === "'" ? this.string() : this.ident();
        if (key === undefined) throw new SignatureError('Expected field name', this.i);
        const optional = this.eat('?');
        this.expect(':');
        fields.set(key, { type: this.union(), optional });
      }
      if (!this.eat(',')) {
        this.expect('}');
        break;
      }
    }
    return { t: 'record', fields, wildcard };
  }
}

function named(name: string, args: SchemaType[], at: number): SchemaType {
  const arity = (n: number): void => {
    if (args.length !== n) throw new SignatureError(`Type \`${name}\` takes ${n} type argument${n === 1 ? '' : 's'}`, at);
  };
  if (name === 'Array') {
    arity(1);
    return { t: 'array', of: args[0] };
  }
  if (name === 'Ref') {
    arity(1);
    if (args[0].t !== 'doc') throw new SignatureError('Expected a collection name', at);
    return args[0];
  }
  arity(0);
  if (SCALARS.has(name as Scalar)) return name === 'Null' ? NULL : scalar(name as Scalar);
  return ALIASES[name] ?? { t: 'doc', coll: name };
}
