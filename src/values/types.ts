// FQL v4 value types. Long and Double stay distinct end to end:
// a Long is a JS `bigint` (64-bit signed, wrapped with BigInt.asIntN), a Double is a JS `number`.
// Objects are Maps so that key order is preserved exactly and any key (even "__proto__") is safe.

export type Value =
  | null
  | boolean
  | string
  | bigint // Long
  | number // Double
  | Value[]
  | Obj
  | Ref
  | Time
  | DateV
  | Bytes
  | SetV
  | Lambda
  | Page
  | TxnTime;

export type Obj = Map<string, Value>;

export function obj(entries?: Iterable<readonly [string, Value]>): Obj {
  return new Map(entries as Iterable<[string, Value]>);
}

export function isObj(v: Value): v is Obj {
  return v instanceof Map;
}

/** Native collections whose members are named schema documents (ref id = name). */
export const NAMED_NATIVES = ['databases', 'collections', 'indexes', 'functions', 'roles', 'access_providers'] as const;
export type NamedNative = (typeof NAMED_NATIVES)[number];

/** Names of the native (system) collections, as rendered under API v4. */
export const NATIVE_NAMES = [...NAMED_NATIVES, 'keys', 'tokens', 'credentials'] as const;
export type NativeName = (typeof NATIVE_NAMES)[number];

/** Internal collection ids of the native collections: a RefAddr's `coll` (user collections start at 1024). */
export const NATIVE_IDS: Record<NativeName, number> = {
  databases: 1,
  collections: 2,
  indexes: 3,
  functions: 4,
  roles: 5,
  access_providers: 6,
  keys: 7,
  tokens: 8,
  credentials: 9,
};

/** User collections get internal ids 1024…32767 (fql-v4.md §4.1). */
export const FIRST_USER_COLLECTION_ID = 1024;

const NATIVE_BY_ID = new Map<number, NativeName>(NATIVE_NAMES.map((n) => [NATIVE_IDS[n], n]));

/** The native collection whose internal id is `id`, if any. */
export function nativeById(id: number | bigint): NativeName | undefined {
  return NATIVE_BY_ID.get(Number(id));
}

export function isNativeName(s: string): s is NativeName {
  return (NATIVE_NAMES as readonly string[]).includes(s);
}

export const SCHEMA_NATIVES: ReadonlySet<string> = new Set(NAMED_NATIVES);

/**
 * Where a ref points, by internal ids that never change (a rename changes only a name): the
 * database scope id, the internal id of the collection (`ADDR_NATIVE` for a native collection
 * itself), and the document id (for a schema document, its internal id). Stored refs keep only
 * this; names are looked up when a stored value is read.
 */
export interface RefAddr {
  readonly db: bigint;
  readonly coll: number;
  readonly id: bigint;
}

/** `RefAddr.coll` of a native collection itself (e.g. `collections`); its `id` is the native id. */
export const ADDR_NATIVE = 0;

/**
 * A reference. Refs from the wire are symbolic (names), resolved to internal ids when used, so a
 * ref to something that does not exist is still a value (it fails with `invalid ref` on use).
 * Refs read from storage also carry their `addr`, which resolution prefers to the names: it stays
 * right across renames, `At` and reused names. A `dangling` ref points at a schema document or
 * database that no longer exists: it renders as Fauna rendered it (nothing) and fails on use.
 *
 * Shapes:
 *  - native collection:  Ref(id='collections', collection=undefined)
 *  - schema document:    Ref(id='widgets', collection=Ref('collections'))
 *  - user document:      Ref(id='123', collection=Ref('widgets', Ref('collections')))
 *  - key/token/cred:     Ref(id='123', collection=Ref('keys'))
 * `database` scopes the ref into a child database (relative to the caller's database). For user
 * documents it sits on the collection ref, for everything else on the ref itself.
 */
export class Ref {
  constructor(
    readonly id: string,
    readonly collection?: Ref,
    readonly database?: Ref,
    readonly addr?: RefAddr,
    readonly dangling = false,
  ) {}

  /** True for the ref of a native collection itself (e.g. `collections`). */
  get isNativeCollection(): boolean {
    return this.collection === undefined;
  }

  /** The native collection name this ref lives in, when the ref is a schema/key/token/credential doc. */
  get nativeParent(): string | undefined {
    return this.collection && this.collection.collection === undefined ? this.collection.id : undefined;
  }

  /** True for a document in a user collection. */
  get isUserDocument(): boolean {
    return this.collection !== undefined && this.collection.nativeParent === 'collections';
  }

  static native(name: string, database?: Ref): Ref {
    return new Ref(name, undefined, database);
  }

  static schema(native: string, name: string, database?: Ref): Ref {
    return new Ref(name, new Ref(native), database);
  }

  static collection(name: string, database?: Ref): Ref {
    return new Ref(name, new Ref('collections'), database);
  }

  static doc(collection: string, id: string, database?: Ref): Ref {
    return new Ref(id, Ref.collection(collection, database));
  }

  /**
   * A ref known only by its address (names not looked up, placeholders instead): for code that only
   * re-encodes or compares it, never for a value a user sees.
   */
  static anonymous(addr: RefAddr): Ref {
    const { coll, id } = addr;
    if (coll === ADDR_NATIVE) return new Ref(nativeById(id) ?? `#${id}`, undefined, undefined, addr);
    const native = nativeById(coll);
    if (native !== undefined) {
      const named = (NAMED_NATIVES as readonly string[]).includes(native);
      return new Ref(named ? `#${id}` : String(id), new Ref(native), undefined, addr);
    }
    return new Ref(String(id), new Ref(`#${coll}`, new Ref('collections')), undefined, addr);
  }

  /** The same ref, carrying its address. */
  at(addr: RefAddr): Ref {
    return new Ref(this.id, this.collection, this.database, addr, this.dangling);
  }

  equals(other: Ref): boolean {
    return refEquals(this, other);
  }

  toString(): string {
    const parts: string[] = [];
    if (this.collection) parts.push(this.collection.toString());
    parts.push(this.id);
    const s = parts.join('/');
    return this.database ? `${this.database.toString()}::${s}` : s;
  }
}

export function addrEquals(a: RefAddr, b: RefAddr): boolean {
  return a.id === b.id && a.coll === b.coll && a.db === b.db;
}

/** Two refs with addresses are equal when the addresses are; otherwise names decide. */
export function refEquals(a: Ref | undefined, b: Ref | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  if (a.addr && b.addr) return addrEquals(a.addr, b.addr);
  if (a.dangling || b.dangling) return false;
  return a.id === b.id && refEquals(a.collection, b.collection) && refEquals(a.database, b.database);
}

/**
 * An event object ({ts, action, document, data}) as Events, Paginate with events and Insert make
 * them: its `document` key renders as `instance` for API versions before 2.7.
 */
export class EventObj extends Map<string, Value> {}

/** An instant with nanosecond precision: nanoseconds since the Unix epoch (signed). */
export class Time {
  constructor(readonly nanos: bigint) {}
  static fromMicros(us: bigint): Time {
    return new Time(us * 1000n);
  }
  get micros(): bigint {
    // floor division so that negative times round toward -infinity
    const q = this.nanos / 1000n;
    return this.nanos < 0n && q * 1000n !== this.nanos ? q - 1n : q;
  }
}

/** A calendar date: days since 1970-01-01 (signed). */
export class DateV {
  constructor(readonly days: number) {}
}

export class Bytes {
  constructor(readonly bytes: Uint8Array) {}
}

/**
 * A set value. `expr` is the set in its rendered shape (e.g. {documents: Ref} or
 * {match: Ref, terms: …}), kept as an object of values so it can render as `{"@set": …}`
 * and be decoded back from `@set` literals. Issue 3 attaches evaluation to these shapes.
 */
export class SetV {
  constructor(readonly expr: Obj) {}
}

/**
 * A lambda / query value (`@query`). `params` is a name, `_`, or an array of those
 * (destructuring); `body` is the unevaluated body as the wire JSON tree it came from,
 * so it can be re-rendered verbatim and re-decoded; `compiled` caches the decoded expression.
 * Captured variables are closed over in `closure` and rendered as a `let` around the body.
 */
export class Lambda {
  compiled?: unknown;
  constructor(
    readonly params: LambdaParams,
    readonly body: unknown, // JSON tree (see wire/json.ts JsonValue)
    readonly apiVersion: string | undefined,
    readonly closure?: ReadonlyMap<string, Value>,
  ) {}
}
export type LambdaParams = string | LambdaParams[];

/** A page of results from Paginate. Cursors are arrays (or event objects) as FQL renders them. */
export class Page {
  constructor(
    readonly data: Value[],
    readonly before?: Value,
    readonly after?: Value,
  ) {}
  withData(data: Value[]): Page {
    return new Page(data, this.before, this.after);
  }
}

/**
 * The commit time of the running transaction, unknown until commit. Documents written by the
 * transaction carry it as their `ts`; it renders (and is stored) as the final commit time.
 */
export class TxnTime {
  static readonly instance = new TxnTime();
  private constructor() {}
}

/** FQL type names as used in error messages (fql-v4.md §2.6). */
export function typeName(v: Value): string {
  if (v === null) return 'Null';
  switch (typeof v) {
    case 'boolean':
      return 'Boolean';
    case 'string':
      return 'String';
    case 'bigint':
      return 'Integer';
    case 'number':
      return 'Double';
  }
  if (Array.isArray(v)) return 'Array';
  if (v instanceof Map) return 'Object';
  if (v instanceof Ref) {
    if (v.collection === undefined) return 'Ref';
    switch (v.nativeParent) {
      case 'collections':
        return 'Collection Ref';
      case 'indexes':
        return 'Index Ref';
      case 'databases':
        return 'Database Ref';
      case 'keys':
        return 'Key Ref';
      case 'functions':
        return 'User Function Ref';
      case 'roles':
        return 'Role Ref';
      case 'access_providers':
        return 'Access Provider Ref';
    }
    return 'Ref';
  }
  if (v instanceof Time) return 'Time';
  if (v instanceof DateV) return 'Date';
  if (v instanceof Bytes) return 'Bytes';
  if (v instanceof SetV) return 'Set';
  if (v instanceof Lambda) return 'Lambda';
  if (v instanceof Page) return 'Page';
  if (v instanceof TxnTime) return 'Unresolved Transaction Time';
  return 'Any';
}

export const LONG_MIN = -(2n ** 63n);
export const LONG_MAX = 2n ** 63n - 1n;

export function wrapLong(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}
