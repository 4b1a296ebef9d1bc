// Function documents (the `functions` native collection). Filled in by the identity issue.

import { errors } from '../values/errors';
import type { NativeType } from './nativeTypes';

export const functionType: NativeType = {
  label: 'Function',
  async create(_ctx, _db, _params, pos) {
    throw errors.notImplemented('create functions', pos);
  },
  async update(_ctx, _db, _id, _old, _params, _replace, pos) {
    throw errors.notImplemented('update functions', pos);
  },
  render(_id, fields) {
    return [...fields];
  },
};
