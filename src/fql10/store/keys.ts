// `Key` (stdlib/Keys.scala): keys made through model/, so a key made here authenticates v4
// requests and v4's keys are listed here. Only the secret's hash is stored; the create shows
// the secret once. v10 names the role and the child database.

import { Ref, type Obj } from '../../values/types';
import { modelParams, nameOf, nativeCompanion, shownFields, type NativeSpec } from './natives';

export const KEY_SPEC: NativeSpec = {
  native: 'keys',
  module: 'Key',
  docType: 'Key',
  label: 'Key',
  toModel(_ctx, fields) {
    const out: Obj = modelParams(fields, ['role', 'database', 'ttl', 'data']);
    const db = out.get('database');
    if (typeof db === 'string') out.set('database', Ref.schema('databases', db));
    return out;
  },
  display: (fields) => shownFields(fields, ['role', 'database', 'ttl', 'data'], (k, v) => (k === 'data' || k === 'ttl' ? v : nameOf(v))),
};

export const KeyModule = nativeCompanion(KEY_SPEC);
