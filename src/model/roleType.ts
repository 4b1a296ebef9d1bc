// Role documents (the `roles` native collection). Filled in by the identity issue.

import { errors } from '../values/errors';
import type { NativeType } from './nativeTypes';

export const roleType: NativeType = {
  label: 'Role',
  async create(_ctx, _db, _params, pos) {
    throw errors.notImplemented('create roles', pos);
  },
  async update(_ctx, _db, _id, _old, _params, _replace, pos) {
    throw errors.notImplemented('update roles', pos);
  },
  render(_id, fields) {
    return [...fields];
  },
};
