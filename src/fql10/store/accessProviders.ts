// `AccessProvider` (stdlib/AccessProviders.scala): JWT issuers whose tokens act with the given
// roles; v10 names a role, or gives `{ role, predicate }` with the predicate as v10 source.

import type { Value } from '../../values/types';
import { modelParams, nameOf, nativeCompanion, shownFields, type NativeSpec } from './natives';

/** Roles as v10 shows them: always an array of `{ role, predicate }` or names (docImplType). */
function roles(v: Value): Value {
  const list = Array.isArray(v) ? v : [v];
  return list.map((r) => (r instanceof Map ? new Map([...r].map(([k, x]) => [k, k === 'role' ? nameOf(x) : x])) : nameOf(r)));
}

export const ACCESS_PROVIDER_SPEC: NativeSpec = {
  native: 'access_providers',
  module: 'AccessProvider',
  docType: 'AccessProvider',
  label: 'AccessProvider',
  toModel: (_ctx, fields) => modelParams(fields, ['name', 'issuer', 'jwks_uri', 'roles', 'data']),
  display: (fields) => shownFields(fields, ['issuer', 'jwks_uri', 'roles', 'audience', 'data'], (k, v) => (k === 'roles' ? roles(v) : v)),
};

export const AccessProviderModule = nativeCompanion(ACCESS_PROVIDER_SPEC);
