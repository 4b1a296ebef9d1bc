// The schema items a database holds now, as FSL (SchemaTranslator.translateSchema): its
// collections (v4 ones included), and the functions, roles and access providers written in v10
// terms. A v4 function (its body a v4 lambda) or a role with a v4 predicate has no FSL; files
// neither show nor manage it.

import type { SchemaEntry } from '../../model/catalog';
import type { TxnContext } from '../../model/context';
import { schemaOf } from '../../model/resolve';
import { definitionOf } from '../../model/schema10/api';
import { type Obj, type Value } from '../../values/types';
import type { SchemaItem } from '../fsl/ast';
import { itemDefinition } from '../fsl/definition';
import { displayItem } from '../fsl/display';
import { accessProviderFromDefinition, collectionFromDefinition, functionFromDefinition, roleFromDefinition, type TakenNames } from '../fsl/fromDefinition';
import { ACCESS_PROVIDER_SPEC } from '../store/accessProviders';
import { FUNCTION_SPEC } from '../store/functions';
import type { NativeSpec } from '../store/natives';
import { ROLE_SPEC } from '../store/roles';

/** What the database holds, each item with its normal form (see normalForm). */
export interface CurrentSchema {
  readonly items: SchemaItem[];
  readonly taken: TakenNames;
}

const byId = (a: SchemaEntry, b: SchemaEntry) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A plain value all through: strings, numbers, booleans, arrays and objects of them. */
function plain(v: Value | undefined): boolean {
  if (v === undefined || v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint') return true;
  if (Array.isArray(v)) return v.every(plain);
  if (v instanceof Map) return [...v.values()].every(plain);
  return false;
}

function shown(spec: NativeSpec, e: SchemaEntry): Obj {
  return new Map<string, Value>([['name', e.name], ...spec.display(e.fields, e.id)]);
}

export async function currentSchema(tx: TxnContext): Promise<CurrentSchema> {
  const db = tx.scope.db;
  const schema = await schemaOf(tx, db);
  const collections = schema.all('collections').sort(byId);
  const functions = schema.all('functions').sort(byId).filter((e) => typeof e.fields.get('body') === 'string');
  const roles = schema.all('roles').sort(byId).filter((e) => plain(e.fields.get('privileges')) && plain(e.fields.get('membership')));
  const providers = schema.all('access_providers').sort(byId).filter((e) => plain(e.fields.get('roles')));
  const taken: TakenNames = { collections: new Set(collections.map((e) => e.name)), functions: new Set(functions.map((e) => e.name)) };
  const items: SchemaItem[] = [];
  for (const e of collections) {
    const def = await definitionOf(tx, db, e.name);
    if (def !== undefined) items.push(collectionFromDefinition(def));
  }
  for (const e of functions) items.push(functionFromDefinition(shown(FUNCTION_SPEC, e), taken));
  for (const e of roles) items.push(roleFromDefinition(shown(ROLE_SPEC, e)));
  for (const e of providers) items.push(accessProviderFromDefinition(shown(ACCESS_PROVIDER_SPEC, e)));
  return { items, taken };
}

/** An item as FSL once stored and read back: two items with the same normal form define the same thing. */
export function normalForm(item: SchemaItem, taken: TakenNames): string {
  const def = itemDefinition(item);
  switch (item.kind) {
    case 'collection': return displayItem(collectionFromDefinition(def));
    case 'function': return displayItem(functionFromDefinition(def, taken));
    case 'role': return displayItem(roleFromDefinition(def));
    case 'access provider': return displayItem(accessProviderFromDefinition(def));
  }
}
