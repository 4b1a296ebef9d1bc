// The documents that define schema back to schema items (SchemaTranslator.scala): what a
// collection, function, role or access provider made through FQL (or v4) reads as in FSL, for
// `fauna schema pull` (display.ts writes the items). The definitions are the ones FQL shows
// (`Collection.byName("X")!.definition`, itemDefinition's form); their code strings were checked
// when stored, so one that does not parse is a bug and throws, as the core's translator does.

import type { Block, Expr, Name, TypeExpr } from '../ast';
import type { Diagnostic } from '../diagnostic';
import { parseExpr, parseLambda, parseTypeExpr, run, type ParseResult } from '../parser';
import { typeTerm } from '../parser/types';
import { NULL_SPAN, type Src } from '../span';
import { parseFieldPath } from '../../model/schema10/definition';
import { isObj, type Obj, type Value } from '../../values/types';
import {
  ACTIONS, type AccessProvider, type Action, type Collection, type FieldPath, type FslAnnotation, type FunctionItem, type IndexTerm,
  type IndexValue, type Lambda, type Membership, type MigrationItem, type Privilege, type Role, type SchemaTypeExpr, type Field,
} from './ast';
import { schemaType } from './schemaType';

const STORED: Src = { name: '*null*' };
const name = (str: string): Name => ({ str, span: NULL_SPAN });
const annotation = (keyword: string, value: string): FslAnnotation => ({ keyword: name(keyword), value: name(value), span: NULL_SPAN });

function ok<T>(r: ParseResult<T>, what: string, text: string): T {
  if (!r.ok) throw new Error(`stored ${what} does not parse: ${JSON.stringify(text)}: ${r.errors.map((e) => e.message).join('; ')}`);
  return r.value;
}

const lambda = (text: string): Lambda => ok(parseLambda(text, STORED), 'lambda', text);
const expr = (text: string): Expr => ok(parseExpr(text, STORED), 'expression', text);
const type = (text: string): TypeExpr => ok(parseTypeExpr(text, STORED), 'signature', text);

/** A field's stored signature, defaults of its object fields included. */
function schemaTypeOf(text: string): SchemaTypeExpr {
  const r = run(text, STORED, false, (c) => {
    c.nl();
    const defaults = new Map<Name, Expr>();
    c.typeDefaults = defaults;
    const t = typeTerm(c) ?? c.abort();
    c.typeDefaults = null;
    c.nl();
    if (!c.atEnd()) {
      c.note('end-of-input');
      c.abort();
    }
    return { t, defaults };
  });
  const { t, defaults } = ok(r, 'signature', text);
  const errors: Diagnostic[] = [];
  const st = schemaType(t, defaults, (d) => errors.push(d), null);
  if (errors.length > 0) throw new Error(`stored signature has misplaced defaults: ${JSON.stringify(text)}`);
  return st;
}

function path(text: string): FieldPath {
  const elems = parseFieldPath(text);
  if (elems === undefined) throw new Error(`stored field path does not parse: ${JSON.stringify(text)}`);
  return { elems: elems.map((e) => (typeof e === 'number' ? { kind: 'index', index: e, span: NULL_SPAN } : { kind: 'field', name: e, span: NULL_SPAN })), span: NULL_SPAN };
}

const str = (v: Value | undefined): string | null => (typeof v === 'string' ? v : null);
const entries = (v: Value | undefined): [string, Value][] => (v instanceof Map ? [...v] : []);
const list = (v: Value | undefined): Value[] => (Array.isArray(v) ? v : []);
const field = (o: Value, k: string): Value | undefined => (isObj(o) ? o.get(k) : undefined);

/** `{ field, mva }` or a bare path string, as terms and unique constraints store them. */
function term(v: Value): IndexTerm {
  const f = typeof v === 'string' ? v : str(field(v, 'field')) ?? '';
  return { path: path(f), mva: field(v, 'mva') === true, span: NULL_SPAN };
}

export function collectionFromDefinition(def: Obj): Collection {
  const alias = str(def.get('alias'));
  const fields: Field[] = [];
  for (const [n, f] of entries(def.get('fields'))) {
    const d = str(field(f, 'default'));
    fields.push({ kind: 'defined', name: name(n), ty: schemaTypeOf(str(field(f, 'signature')) ?? 'Any'), default: d === null ? null : expr(d), span: NULL_SPAN });
  }
  for (const [n, f] of entries(def.get('computed_fields'))) {
    const sig = str(field(f, 'signature'));
    fields.push({ kind: 'computed', kwSpan: NULL_SPAN, name: name(n), ty: sig === null ? null : type(sig), value: lambda(str(field(f, 'body')) ?? ''), span: NULL_SPAN });
  }
  const wildcard = str(def.get('wildcard'));
  if (wildcard !== null) fields.push({ kind: 'wildcard', ty: type(wildcard), span: NULL_SPAN });

  const indexes = entries(def.get('indexes')).map(([n, idx]) => {
    const terms = list(field(idx, 'terms')).map(term);
    const values = list(field(idx, 'values')).map((v): IndexValue => ({ ...term(v), asc: field(v, 'order') !== 'desc' }));
    return {
      name: name(n),
      terms: terms.length > 0 ? { terms, span: NULL_SPAN } : null,
      values: values.length > 0 ? { values, span: NULL_SPAN } : null,
      span: NULL_SPAN,
    };
  });

  const uniques = [];
  const checks = [];
  for (const c of list(def.get('constraints'))) {
    const u = field(c, 'unique');
    if (u !== undefined) uniques.push({ terms: list(u).map(term), termsSpan: NULL_SPAN, span: NULL_SPAN });
    const ch = field(c, 'check');
    if (ch !== undefined) checks.push({ name: name(str(field(ch, 'name')) ?? ''), predicate: lambda(str(field(ch, 'body')) ?? ''), span: NULL_SPAN });
  }

  const migrations = list(def.get('migrations')).map(migration);
  // No history_days is unbounded history (the core shows Long.MaxValue days); 0 is the default.
  const hd = def.get('history_days');
  const days = typeof hd === 'bigint' ? hd : typeof hd === 'number' ? BigInt(Math.trunc(hd)) : 0x7fffffffffffffffn;
  const ttl = def.get('ttl_days');
  const docTTLs = def.get('document_ttls');
  return {
    kind: 'collection',
    name: name(str(def.get('name')) ?? ''),
    alias: alias === null ? null : annotation('alias', alias),
    fields,
    migrations: migrations.length > 0 ? { items: migrations, span: NULL_SPAN } : null,
    indexes,
    uniques,
    checks,
    historyDays: { value: days, span: days === 0n ? null : NULL_SPAN },
    ttlDays: typeof ttl === 'bigint' ? { value: ttl, span: NULL_SPAN } : typeof ttl === 'number' ? { value: BigInt(Math.trunc(ttl)), span: NULL_SPAN } : null,
    documentTTLs: typeof docTTLs === 'boolean' ? { value: docTTLs, span: NULL_SPAN } : null,
    span: NULL_SPAN,
    docComment: null,
  };
}

function migration(m: Value): MigrationItem {
  const [kind, body] = entries(m)[0] ?? ['', null];
  const p = (k: string) => path(str(field(body, k)) ?? '');
  switch (kind) {
    case 'backfill': {
      const value = expr(str(field(body, 'value')) ?? '');
      return { kind: 'Backfill', path: p('field'), value: { kind: 'Lit', expr: value, span: value.span }, span: NULL_SPAN };
    }
    case 'drop': return { kind: 'Drop', path: p('field'), span: NULL_SPAN };
    case 'split': return { kind: 'Split', from: p('field'), to: list(field(body, 'to')).map((t) => path(str(t) ?? '')), span: NULL_SPAN };
    case 'move': return { kind: 'Move', from: p('field'), to: p('to'), span: NULL_SPAN };
    case 'add': return { kind: 'Add', path: p('field'), span: NULL_SPAN };
    case 'move_conflicts': return { kind: 'MoveConflicts', into: p('into'), span: NULL_SPAN };
    case 'move_wildcard': return { kind: 'MoveWildcard', into: p('into'), span: NULL_SPAN };
    case 'add_wildcard': return { kind: 'AddWildcard', span: NULL_SPAN };
    default: throw new Error(`unknown stored migration ${JSON.stringify(kind)}`);
  }
}

/** Names already taken, for a function sharing a collection's name: it gets an alias
 *  `<name>Function` (more `Function`s until free), as the core's translator gives it. */
export interface TakenNames {
  readonly collections: ReadonlySet<string>;
  readonly functions: ReadonlySet<string>;
}

/** A v10 function (its body a string; a v4 function has none to show). */
export function functionFromDefinition(def: Obj, taken: TakenNames): FunctionItem {
  const fname = str(def.get('name')) ?? '';
  const l = lambda(str(def.get('body')) ?? '');
  let alias = str(def.get('alias'));
  if (alias === null && taken.collections.has(fname)) {
    alias = fname + 'Function';
    while (taken.functions.has(alias) || taken.collections.has(alias)) alias += 'Function';
  }
  const role = str(def.get('role'));
  const sigText = str(def.get('signature'));
  const sig = sigText === null ? null : type(sigText);
  const sigLambda = sig !== null && sig.kind === 'TypeLambda' ? sig : null;
  const args = l.kind === 'LongLambda'
    ? [
      ...l.params.map((p, i) => ({ name: p ?? name('_'), ty: sigLambda?.params[i]?.[1] ?? null, variadic: false })),
      ...(l.variadic === null ? [] : [{ name: l.variadic.name ?? name('_'), ty: sigLambda?.variadic?.[1] ?? null, variadic: true }]),
    ]
    : [{ name: name('$this'), ty: sigLambda?.params[0]?.[1] ?? null, variadic: false }];
  const body: Block = l.body.kind === 'Block' ? l.body : { kind: 'Block', body: [{ kind: 'ExprStmt', expr: l.body, span: l.body.span }], span: NULL_SPAN };
  return {
    kind: 'function',
    name: name(fname),
    alias: alias === null ? null : annotation('alias', alias),
    role: role === null ? null : annotation('role', role),
    sig: { args, ret: sigLambda?.ret ?? null, span: NULL_SPAN },
    body,
    span: NULL_SPAN,
    docComment: null,
  };
}

/** A v10 role (predicates as strings); actions set to false are left out, as unset. */
export function roleFromDefinition(def: Obj): Role {
  const privileges: Privilege[] = list(def.get('privileges')).map((p) => {
    const actions = entries(field(p, 'actions'))
      .filter(([, v]) => v !== false)
      .map(([a, v]) => {
        if (!(ACTIONS as ReadonlyArray<string>).includes(a)) throw new Error(`invalid stored action ${JSON.stringify(a)}`);
        return { action: a as Action, predicate: typeof v === 'string' ? lambda(v) : null, span: NULL_SPAN };
      });
    return { resource: name(str(field(p, 'resource')) ?? ''), actions, span: NULL_SPAN };
  });
  const membership: Membership[] = list(def.get('membership')).map((m) => {
    const pred = str(field(m, 'predicate'));
    return { name: name(str(field(m, 'resource')) ?? ''), predicate: pred === null ? null : lambda(pred), span: NULL_SPAN };
  });
  return { kind: 'role', name: name(str(def.get('name')) ?? ''), privileges, membership, span: NULL_SPAN, docComment: null };
}

export function accessProviderFromDefinition(def: Obj): AccessProvider {
  const roles: Membership[] = list(def.get('roles')).map((r) => {
    if (typeof r === 'string') return { name: name(r), predicate: null, span: NULL_SPAN };
    const pred = str(field(r, 'predicate'));
    return { name: name(str(field(r, 'role')) ?? ''), predicate: pred === null ? null : lambda(pred), span: NULL_SPAN };
  });
  return {
    kind: 'access provider',
    name: name(str(def.get('name')) ?? ''),
    issuer: { value: str(def.get('issuer')) ?? '', span: NULL_SPAN },
    jwksUri: { value: str(def.get('jwks_uri')) ?? '', span: NULL_SPAN },
    roles,
    span: NULL_SPAN,
    docComment: null,
  };
}
