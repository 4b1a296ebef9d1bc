// `Database` (stdlib/Databases.scala): child databases, through model/ as v4 makes them (a
// database's keys and documents live under its own scope); `global_id` is derived from its id.

import { zbase32 } from '../../model/ids';
import { modelParams, nativeCompanion, shownFields, type NativeSpec } from './natives';

export const DATABASE_SPEC: NativeSpec = {
  native: 'databases',
  module: 'Database',
  docType: 'DatabaseDef',
  label: 'Database',
  toModel: (_ctx, fields) => modelParams(fields, ['name', 'priority', 'typechecked', 'protected', 'data']),
  display: (fields, id) => [['global_id', zbase32(id)], ...shownFields(fields, ['priority', 'typechecked', 'protected', 'data'])],
};

export const DatabaseModule = nativeCompanion(DATABASE_SPEC);
