// Token documents (the `tokens` native collection). Filled in by the identity issue.

import { errors } from '../values/errors';
import type { NativeType } from './nativeTypes';

export const tokenType: NativeType = {
  label: 'Token',
  async create(_ctx, _db, _params, pos) {
    throw errors.notImplemented('create tokens', pos);
  },
  async update(_ctx, _db, _id, _old, _params, _replace, pos) {
    throw errors.notImplemented('update tokens', pos);
  },
  render(_id, fields) {
    return [...fields];
  },
};
