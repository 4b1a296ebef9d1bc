// Schema items to the documents that define them (SchemaToStruct.scala `toStruct`): a pushed
// collection becomes the object `Collection.create` takes (../../model/schema10/definition.ts
// validates it), a function, role or access provider the one its native collection takes. Code in
// the item (lambdas, defaults, backfill values) is stored as the core displays it.

import type { Obj, Value } from '../../values/types';
import type { AccessProvider, Collection, FunctionItem, Lambda, Role, SchemaItem } from './ast';
import { displayExpr, displayPath, displaySchemaType, displayType } from './display';

/** The definition of an item, as its native collection stores it (without `data`). */
export function itemDefinition(item: SchemaItem): Obj {
  switch (item.kind) {
    case 'collection': return collectionDefinition(item);
    case 'function': return functionDefinition(item);
    case 'role': return roleDefinition(item);
    case 'access provider': return accessProviderDefinition(item);
  }
}

/** A predicate's text: a short lambda is put in parentheses. */
function lambdaText(l: Lambda): string {
  return l.kind === 'ShortLambda' ? `(${displayExpr(l)})` : displayExpr(l);
}

function collectionDefinition(c: Collection): Obj {
  const def: Obj = new Map<string, Value>([['name', c.name.str]]);
  if (c.alias !== null) def.set('alias', c.alias.value.str);
  def.set('history_days', c.historyDays.value);
  if (c.ttlDays !== null) def.set('ttl_days', c.ttlDays.value);

  const indexes: Obj = new Map();
  for (const i of c.indexes) {
    const idx: Obj = new Map();
    if (i.terms !== null) idx.set('terms', i.terms.terms.map((t) => new Map<string, Value>([['field', displayPath(t.path)], ['mva', t.mva]])));
    if (i.values !== null) {
      idx.set('values', i.values.values.map((v) => new Map<string, Value>([['field', displayPath(v.path)], ['order', v.asc ? 'asc' : 'desc'], ['mva', v.mva]])));
    }
    indexes.set(i.name.str, idx);
  }

  const constraints: Value[] = c.uniques.map((u) => new Map<string, Value>([
    ['unique', u.terms.map((t) => new Map<string, Value>([['field', displayPath(t.path)], ['mva', t.mva]]))],
  ]));

  const migrations: Value[] = (c.migrations?.items ?? []).map((m): Value => {
    const one = (kind: string, entries: [string, Value][]) => new Map<string, Value>([[kind, new Map(entries)]]);
    switch (m.kind) {
      case 'Backfill': return one('backfill', [['field', displayPath(m.path)], ['value', displayExpr(m.value.expr)]]);
      case 'Drop': return one('drop', [['field', displayPath(m.path)]]);
      case 'Split': return one('split', [['field', displayPath(m.from)], ['to', m.to.map(displayPath)]]);
      case 'Move': return one('move', [['field', displayPath(m.from)], ['to', displayPath(m.to)]]);
      case 'Add': return one('add', [['field', displayPath(m.path)]]);
      case 'MoveConflicts': return one('move_conflicts', [['into', displayPath(m.into)]]);
      case 'MoveWildcard': return one('move_wildcard', [['into', displayPath(m.into)]]);
      case 'AddWildcard': return one('add_wildcard', []);
    }
  });

  const computed: Obj = new Map();
  const fields: Obj = new Map();
  for (const f of c.fields) {
    if (f.kind === 'computed') {
      const cf: Obj = new Map([['body', lambdaText(f.value)]]);
      if (f.ty !== null) cf.set('signature', displayType(f.ty));
      computed.set(f.name.str, cf);
    } else if (f.kind === 'defined') {
      const df: Obj = new Map([['signature', displaySchemaType(f.ty)]]);
      if (f.default !== null) df.set('default', displayExpr(f.default));
      fields.set(f.name.str, df);
    } else def.set('wildcard', displayType(f.ty));
  }
  for (const ch of c.checks) {
    constraints.push(new Map<string, Value>([['check', new Map<string, Value>([['name', ch.name.str], ['body', lambdaText(ch.predicate)]])]]));
  }

  // Set only when written: otherwise the model infers it from whether fields are defined.
  if (c.documentTTLs !== null) def.set('document_ttls', c.documentTTLs.value);
  def.set('indexes', indexes);
  def.set('constraints', constraints);
  if (computed.size > 0) def.set('computed_fields', computed);
  if (fields.size > 0) def.set('fields', fields);
  if (migrations.length > 0) def.set('migrations', migrations);
  return def;
}

function functionDefinition(f: FunctionItem): Obj {
  const params = f.sig.args.map((a) => `${a.variadic ? '...' : ''}${a.name.str}`).join(', ');
  const def: Obj = new Map<string, Value>([['name', f.name.str], ['body', `(${params}) => ${displayExpr(f.body)}`]]);
  // A signature only when every argument and the result have a type.
  if (f.sig.ret !== null && f.sig.args.every((a) => a.ty !== null)) {
    const args = f.sig.args.map((a) => `${a.name.str}: ${a.variadic ? '...' : ''}${displayType(a.ty!)}`).join(', ');
    def.set('signature', `(${args}) => ${displayType(f.sig.ret)}`);
  }
  if (f.alias !== null) def.set('alias', f.alias.value.str);
  if (f.role !== null) def.set('role', f.role.value.str);
  return def;
}

function roleDefinition(r: Role): Obj {
  const privileges: Value[] = r.privileges.map((p) => {
    const priv: Obj = new Map<string, Value>([['resource', p.resource.str]]);
    if (p.actions.length > 0) priv.set('actions', new Map<string, Value>(p.actions.map((a) => [a.action, a.predicate === null ? true : lambdaText(a.predicate)])));
    return priv;
  });
  const membership: Value[] = r.membership.map((m) => {
    const mem: Obj = new Map<string, Value>([['resource', m.name.str]]);
    if (m.predicate !== null) mem.set('predicate', lambdaText(m.predicate));
    return mem;
  });
  return new Map<string, Value>([['name', r.name.str], ['privileges', privileges], ['membership', membership]]);
}

function accessProviderDefinition(ap: AccessProvider): Obj {
  const def: Obj = new Map<string, Value>([['name', ap.name.str], ['issuer', ap.issuer.value], ['jwks_uri', ap.jwksUri.value]]);
  if (ap.roles.length > 0) {
    def.set('roles', ap.roles.map((r): Value => (r.predicate === null ? r.name.str : new Map<string, Value>([['role', r.name.str], ['predicate', lambdaText(r.predicate)]]))));
  }
  return def;
}
