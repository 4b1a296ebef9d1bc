// The queries of the Functions, Roles and Access providers screens, in the driver's syntax (names
// spliced as JSON strings); values typed by the user (a body, a predicate, a role) arrive as wire
// already and are placed into the objects as the driver would place them.

import type { JsonValue } from '../wire/expr';
import { everyDocument, fql, listCollections, listKeys, str } from './queries';
import { callArguments } from './fqlChecks';
import { objectExpr } from './values';

export const listFunctions = (): JsonValue => everyDocument('Functions()');
export const listRoles = (): JsonValue => everyDocument('Roles()');
export const listAccessProviders = (): JsonValue => everyDocument('AccessProviders()');
/** What may use a role: [keys, functions, access providers], each read whole. */
export const roleUsers = (): JsonValue => [listKeys(), listFunctions(), listAccessProviders()];
/** What a role's privileges can name: [collections, indexes, functions] (pages of refs). */
export const roleResources = (): JsonValue => [listCollections(), fql('Paginate(Indexes(), {size: 1000})'), fql('Paginate(Functions(), {size: 1000})')];

/** CreateFunction with a body (Query(Lambda) wire) and a role expression, or none. */
export const createFunction = (name: string, body: JsonValue, role: JsonValue): JsonValue =>
  new Map([['create_function', objectExpr({ name, body, role: role ?? undefined })]]);
/** Update(Function(name), {body, role}): a null role removes the function's role. */
export const updateFunction = (name: string, body: JsonValue, role: JsonValue): JsonValue =>
  new Map<string, JsonValue>([['update', fql(`Function(${str(name)})`)], ['params', objectExpr({ body, role })]]);
export const deleteFunction = (name: string): JsonValue => fql(`Delete(Function(${str(name)}))`);
/** Call(Function(name), ...args), exactly as the driver sends it. */
export const callFunction = (name: string, args: JsonValue[]): JsonValue =>
  new Map<string, JsonValue>([['call', fql(`Function(${str(name)})`)], ['arguments', callArguments(args)]]);

export const createRole = (params: JsonValue): JsonValue => new Map([['create_role', params]]);
export const updateRole = (name: string, params: JsonValue): JsonValue => new Map<string, JsonValue>([['update', fql(`Role(${str(name)})`)], ['params', params]]);
export const deleteRole = (name: string): JsonValue => fql(`Delete(Role(${str(name)}))`);

export interface ProviderRole {
  role: string;
  predicate: JsonValue | null;
}

/** CreateAccessProvider: each role a Role(name), or {role, predicate} when it has a predicate. */
export function createAccessProvider(name: string, issuer: string, jwksUri: string, roles: readonly ProviderRole[]): JsonValue {
  const roleExprs = roles.map((r) => (r.predicate === null ? fql(`Role(${str(r.role)})`) : objectExpr({ role: fql(`Role(${str(r.role)})`), predicate: r.predicate })));
  return new Map([['create_access_provider', objectExpr({ name, issuer, jwks_uri: jwksUri, roles: roleExprs.length ? roleExprs : undefined })]]);
}
export const deleteAccessProvider = (name: string): JsonValue => fql(`Delete(AccessProvider(${str(name)}))`);
/** A child database's global id, read in its parent: the part of the audience its providers get. */
export const globalIdOf = (database: string): JsonValue => fql(`Select("global_id", Get(Database(${str(database)})))`);
