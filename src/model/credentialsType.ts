// Credentials documents (the `credentials` native collection). Filled in by the identity issue.

import { errors } from '../values/errors';
import type { NativeType } from './nativeTypes';

export const credentialsType: NativeType = {
  label: 'Credentials',
  async create(_ctx, _db, _params, pos) {
    throw errors.notImplemented('create credentials', pos);
  },
  async update(_ctx, _db, _id, _old, _params, _replace, pos) {
    throw errors.notImplemented('update credentials', pos);
  },
  render(_id, fields) {
    return [...fields];
  },
};
