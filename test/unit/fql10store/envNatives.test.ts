// The members the core's static environment (api/src/test/resources/
// static_environment_response_v1.json) lists for the native collections and their documents,
// checked against the store's tables. A user function's `apply` is its being a function value and
// its `definition` is checked by natives.test.ts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STORE_GLOBALS } from '../../../src/fql10/store/resolver';
import { NativeDocV, type NativeSpec } from '../../../src/fql10/store/natives';
import { FUNCTION_SPEC } from '../../../src/fql10/store/functions';
import { ROLE_SPEC } from '../../../src/fql10/store/roles';
import { KEY_SPEC } from '../../../src/fql10/store/keys';
import { DATABASE_SPEC } from '../../../src/fql10/store/databases';
import { ACCESS_PROVIDER_SPEC } from '../../../src/fql10/store/accessProviders';
import { CREDENTIAL_SPEC } from '../../../src/fql10/store/credentials';
import { TOKEN_SPEC } from '../../../src/fql10/store/tokens';
import { ModuleV } from '../../../src/fql10/runtime/values';
import type { FieldTable } from '../../../src/fql10/runtime/table';

const MEMBERS: Readonly<Record<string, readonly string[]>> = {"DatabaseCollection": ["all", "byName", "create", "firstWhere", "toString", "where"], "DatabaseDef": ["coll", "delete", "exists", "replace", "update"], "KeyCollection": ["all", "byId", "create", "firstWhere", "toString", "where", "apply"], "Key": ["coll", "delete", "exists", "replace", "update"], "RoleCollection": ["all", "byName", "create", "firstWhere", "toString", "where"], "Role": ["coll", "delete", "exists", "replace", "update"], "FunctionCollection": ["all", "byName", "create", "firstWhere", "toString", "where", "apply"], "FunctionDef": ["coll", "delete", "exists", "replace", "update"], "AccessProviderCollection": ["all", "byName", "create", "firstWhere", "toString", "where"], "AccessProvider": ["coll", "delete", "exists", "replace", "update"], "CredentialCollection": ["all", "byDocument", "byId", "create", "firstWhere", "toString", "where", "apply"], "Credential": ["coll", "delete", "exists", "login", "replace", "update", "verify"], "TokenCollection": ["all", "byDocument", "byId", "create", "firstWhere", "toString", "where", "apply"], "Token": ["coll", "delete", "exists", "replace", "update"]};

const SPECS: Readonly<Record<string, NativeSpec>> = {
  Database: DATABASE_SPEC,
  Key: KEY_SPEC,
  Role: ROLE_SPEC,
  Function: FUNCTION_SPEC,
  AccessProvider: ACCESS_PROVIDER_SPEC,
  Credential: CREDENTIAL_SPEC,
  Token: TOKEN_SPEC,
};

function tableFor(type: string): FieldTable {
  if (type.endsWith('Collection')) {
    const m = STORE_GLOBALS.get(type.slice(0, -'Collection'.length));
    assert.ok(m instanceof ModuleV, type);
    return m.table;
  }
  const spec = SPECS[type.replace(/Def$/, '')];
  return new NativeDocV(spec, 0n, 'x').table();
}

function has(t: FieldTable, member: string): boolean {
  return member === 'apply' ? t.applyImpl !== undefined : t.hasResolver(member);
}

test('every listed member of the native collections and their documents is implemented', () => {
  const missing: Record<string, string[]> = {};
  for (const [type, members] of Object.entries(MEMBERS)) {
    const gaps = members.filter((m) => !has(tableFor(type), m));
    if (gaps.length > 0) missing[type] = gaps;
  }
  assert.deepEqual(missing, {});
});

test('the native collections are globals, Credentials an alias of Credential', () => {
  for (const g of ['AccessProvider', 'Collection', 'Credential', 'Credentials', 'Database', 'Function', 'Key', 'Role', 'Token']) assert.ok(STORE_GLOBALS.get(g) instanceof ModuleV, g);
  assert.equal(STORE_GLOBALS.get('Credentials'), STORE_GLOBALS.get('Credential'));
});
