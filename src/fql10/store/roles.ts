// `Role` (stdlib/Roles.scala): roles written in v10 name their resources and keep their
// predicates as FQL v10 source; model/permissions.ts runs those through the v10 language
// (lambdaLanguage.ts) for requests of either language. A v4 role shows its refs by name.

import { Ref, type Obj, type Value } from '../../values/types';
import { modelParams, nameOf, nativeCompanion, shownFields, type NativeSpec } from './natives';

/** A v4 entry's resource ref by name, as v10 shows it. */
function entries(v: Value): Value {
  const one = (e: Value): Value => {
    if (!(e instanceof Map)) return e;
    const out: Obj = new Map(e);
    const r = e.get('resource');
    if (r instanceof Ref) out.set('resource', r.collection === undefined ? r.id : nameOf(r));
    return out;
  };
  return Array.isArray(v) ? v.map(one) : one(v);
}

export const ROLE_SPEC: NativeSpec = {
  native: 'roles',
  module: 'Role',
  docType: 'Role',
  label: 'Role',
  toModel: (_ctx, fields) => modelParams(fields, ['name', 'privileges', 'membership', 'data']),
  display: (fields) => shownFields(fields, ['privileges', 'membership', 'data'], (k, v) => (k === 'data' ? v : entries(v))),
};

export const RoleModule = nativeCompanion(ROLE_SPEC);
