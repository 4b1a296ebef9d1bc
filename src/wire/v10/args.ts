// Query arguments and template values as values (the core's UndecidedValue.toValue).
//
// `arguments` are decoded in the request's format: simple (plain JSON: integers are Ints, other
// numbers Doubles, objects structs whatever their keys) or tagged (also for `decorated`): numbers must
// be tagged (`@int`, `@long`, `@double`), and `@time`, `@date`, `@bytes`, `@mod`, `@doc`/`@ref` and
// `@object` (a struct whose keys may start with `@`) are read. Template values are always tagged.
//
// Modules and documents are named by the query's database: the caller answers, synchronously, what a
// name is (an ArgResolver over the database's schema, loaded beforehand). A document reference
// becomes a Flora Ref: `Ref.doc(collection, id)`, `Ref(id, Ref('keys'|'tokens'|'credentials'))` or
// `Ref.schema(native, name)`.

import { Bytes, DateV, Ref, Time, type NamedNative } from '../../values/types';
import { parseDate } from '../time';
import { badRequest } from './errors';
import type { ValueFormat } from './headers';
import type { Undecided, UndecidedObject } from './json';
import { Module, SmallLong } from './model';
import type { FqlQuery } from './request';
import { parseBase64, parseDouble, parseInt32, parseInt64, parseTimestamp } from './scalars';

export type InputValue =
  | null
  | boolean
  | string
  | bigint
  | SmallLong
  | number
  | Time
  | DateV
  | Bytes
  | Ref
  | Module
  | InputValue[]
  | InputObject;
export type InputObject = Map<string, InputValue>;

/** What a global name is, as an argument's `@mod` or a reference's `coll`. */
export type ModuleKind =
  /** A user collection; `name` is its canonical name (the name given may be an alias). */
  | { readonly kind: 'collection'; readonly name: string }
  /** Key, Token, Credential: documents by id. */
  | { readonly kind: 'keyed'; readonly native: 'keys' | 'tokens' | 'credentials' }
  /** Collection, Function, Role, AccessProvider, Database: documents by name. */
  | { readonly kind: 'schema'; readonly native: NamedNative }
  /** Any other module (Math, Time, …). */
  | { readonly kind: 'other' };

export interface ArgResolver {
  /** The module a global name is, or undefined when none is (a user function is not a module). */
  module(name: string): ModuleKind | undefined;
  /** Whether the schema document `name` exists in `native` (staged schema included). */
  hasSchemaDoc(native: NamedNative, name: string): boolean;
}

/** A value the core cannot read; the message is lower case, as it is put in a sentence. */
export class InvalidValue extends Error {}

/** Decodes `arguments`; a bad one is `invalid_request` "Invalid argument '<name>': <reason>". */
export function decodeArguments(args: UndecidedObject, format: ValueFormat, resolver: ArgResolver): Map<string, InputValue> {
  const out = new Map<string, InputValue>();
  for (const [name, raw] of args) {
    try {
      out.set(name, format === 'simple' ? simple(raw) : new Tagged(resolver).decode(raw));
    } catch (e) {
      if (e instanceof InvalidValue) throw badRequest(`Invalid argument '${name}': ${e.message}`);
      throw e;
    }
  }
  return out;
}

/** A template value that cannot be read: an `invalid_query` error at its placeholder (`offset`). */
export class TemplateValueError extends InvalidValue {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** The query's template values, `$0`, `$1`, … in order (always tagged). */
export function decodeTemplateValues(query: FqlQuery, resolver: ArgResolver): InputValue[] {
  const tagged = new Tagged(resolver);
  return query.values.map(({ value, offset }) => {
    try {
      return tagged.decode(value);
    } catch (e) {
      if (e instanceof InvalidValue) throw new TemplateValueError(e.message, offset);
      throw e;
    }
  });
}

/** UndecidedValue.parseSimple. */
function simple(v: Undecided): InputValue {
  if (Array.isArray(v)) return v.map(simple);
  if (v instanceof Map) {
    const o: InputObject = new Map();
    for (const [k, item] of v) o.set(k, simple(item));
    return o;
  }
  return v;
}

class Tagged {
  constructor(private readonly resolver: ArgResolver) {}

  decode(v: Undecided): InputValue {
    switch (typeof v) {
      case 'bigint':
      case 'number':
        throw new InvalidValue('numbers must be tagged');
      case 'string':
      case 'boolean':
        return v;
    }
    if (v === null) return null;
    if (Array.isArray(v)) return v.map((item) => this.decode(item));
    for (const key of v.keys()) {
      if (key.startsWith('@')) {
        if (v.size > 1) throw new InvalidValue('too many keys in tagged value');
        return this.tag(key, v.get(key)!);
      }
    }
    return this.object(v);
  }

  private object(v: UndecidedObject): InputObject {
    const o: InputObject = new Map();
    for (const [k, item] of v) o.set(k, this.decode(item));
    return o;
  }

  private tag(tag: string, v: Undecided): InputValue {
    switch (tag) {
      case '@int':
        return parseInt32(str(tag, v)) ?? invalid('invalid integer');
      case '@long':
      {
        // The core keeps it a Long whatever its value.
        const n = parseInt64(str(tag, v)) ?? invalid('invalid long');
        return n >= -(2n ** 31n) && n < 2n ** 31n ? new SmallLong(n) : n;
      }
      case '@double':
        return parseDouble(str(tag, v)) ?? invalid('invalid double');
      case '@object':
        if (!(v instanceof Map)) throw new InvalidValue(`${tag} requires an object value`);
        return this.object(v);
      case '@time': {
        const nanos = parseTimestamp(str(tag, v));
        return nanos === undefined ? invalid('invalid time') : new Time(nanos);
      }
      case '@date': {
        const days = parseDate(str(tag, v));
        return days === undefined ? invalid('invalid date') : new DateV(days);
      }
      case '@bytes': {
        const bytes = parseBase64(str(tag, v));
        return bytes === undefined ? invalid('invalid bytes') : new Bytes(bytes);
      }
      case '@mod': {
        const name = str(tag, v);
        if (this.resolver.module(name) === undefined) throw new InvalidValue(`no such module '${name}'`);
        return new Module(name);
      }
      case '@doc':
      case '@ref':
        return this.ref(tag, this.decode(v));
      default:
        throw new InvalidValue(`invalid tag '${tag}'`);
    }
  }

  /** `{coll, id}` / `{coll, name}`, or the older string `Coll:id`, as a Ref. */
  private ref(tag: string, v: InputValue): Ref {
    if (typeof v === 'string') return this.refString(v);
    if (!(v instanceof Map)) throw new InvalidValue(`${tag} requires an object value`);
    const coll = v.get('coll');
    if (coll === undefined) throw new InvalidValue(`${tag} field 'coll' is required`);
    const kind = coll instanceof Module ? this.resolver.module(coll.name) : undefined;
    if (kind === undefined || kind.kind === 'other') throw new InvalidValue(`${tag} field 'coll' requires a module value`);
    if (kind.kind === 'schema') {
      const name = v.get('name');
      if (name === undefined) throw new InvalidValue(`${tag} field 'name' is required`);
      if (typeof name !== 'string') throw new InvalidValue(`${tag} field 'name' requires a string value`);
      if (!this.resolver.hasSchemaDoc(kind.native, name)) throw new InvalidValue(`no such schema object '${name}'`);
      return Ref.schema(kind.native, name);
    }
    const id = v.get('id');
    if (id === undefined) throw new InvalidValue(`${tag} field 'id' is required`);
    if (typeof id !== 'string') throw new InvalidValue(`${tag} field 'id' requires a string value`);
    const n = parseInt64(id);
    if (n === undefined) throw new InvalidValue(`${tag} field 'id' must be an integer`);
    return docRef(kind, n);
  }

  private refString(s: string): Ref {
    const sections = javaSplit3(s);
    if (sections.length !== 2) throw new InvalidValue('doc id must be in the format <coll>:<id>');
    const [coll, id] = sections;
    const kind = this.resolver.module(coll);
    if (kind?.kind === 'schema') {
      if (!this.resolver.hasSchemaDoc(kind.native, id)) throw new InvalidValue(`no such schema definition document '${id}'`);
      return Ref.schema(kind.native, id);
    }
    if (kind?.kind === 'collection' || kind?.kind === 'keyed') {
      const n = parseInt64(id);
      if (n === undefined) throw new InvalidValue(`invalid document id '${id}'`);
      return docRef(kind, n);
    }
    throw new InvalidValue(`no such collection '${coll}'`);
  }
}

function docRef(kind: { kind: 'collection'; name: string } | { kind: 'keyed'; native: string }, id: bigint): Ref {
  return kind.kind === 'collection' ? Ref.doc(kind.name, id.toString()) : new Ref(id.toString(), Ref.native(kind.native));
}

function str(tag: string, v: Undecided): string {
  if (typeof v !== 'string') throw new InvalidValue(`${tag} requires a string value`);
  return v;
}

function invalid(message: string): never {
  throw new InvalidValue(message);
}

/** Java's s.split(":", 3): at most 3 parts, empty ones kept. */
function javaSplit3(s: string): string[] {
  const first = s.indexOf(':');
  if (first < 0) return [s];
  const second = s.indexOf(':', first + 1);
  if (second < 0) return [s.slice(0, first), s.slice(first + 1)];
  return [s.slice(0, first), s.slice(first + 1, second), s.slice(second + 1)];
}
