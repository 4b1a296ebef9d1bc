// Pure helpers on stored data: null stripping, deep merge, validation failures.

import { errors, type Position, type ValidationFailure } from '../values/errors';
import { Bytes, DateV, Lambda, Ref, Time, type Obj, type Value } from '../values/types';

/** Stored data drops null object values and null array elements (DECISIONS #4, fql-v4.md §4.2). */
export function stripNulls(v: Value): Value {
  if (Array.isArray(v)) return v.filter((x) => x !== null).map(stripNulls);
  if (v instanceof Map) {
    const out: Obj = new Map();
    for (const [k, x] of v) if (x !== null) out.set(k, stripNulls(x));
    return out;
  }
  return v;
}

/** Update semantics: objects merge recursively, null removes a key, everything else replaces. */
export function deepMerge(base: Value, patch: Value): Value {
  if (!(patch instanceof Map) || !(base instanceof Map)) return patch instanceof Map ? stripNulls(patch) : patch;
  const out: Obj = new Map(base);
  for (const [k, x] of patch) {
    if (x === null) out.delete(k);
    else out.set(k, deepMerge(out.get(k) ?? null, x));
  }
  return out;
}

/** Type names of the storage IR, as validation failures print them. */
export function irTypeName(v: Value): string {
  if (v === null) return 'Null';
  if (typeof v === 'boolean') return 'Boolean';
  if (typeof v === 'string') return 'String';
  if (typeof v === 'bigint') return 'Long';
  if (typeof v === 'number') return 'Double';
  if (Array.isArray(v)) return 'Array';
  if (v instanceof Map) return 'Map';
  if (v instanceof Ref) return 'Ref';
  if (v instanceof Time) return 'Time';
  if (v instanceof DateV) return 'Date';
  if (v instanceof Bytes) return 'Bytes';
  if (v instanceof Lambda) return 'Query';
  return 'Any';
}

export class Failures {
  readonly list: ValidationFailure[] = [];

  add(field: (string | number)[], code: string, description: string): void {
    this.list.push({ field, code, description });
  }

  invalidType(field: (string | number)[], v: Value, expected: string): void {
    this.add(field, 'invalid type', `Invalid type ${irTypeName(v)}, expected type ${expected}.`);
  }

  required(field: (string | number)[]): void {
    this.add(field, 'value required', 'Required value not found.');
  }

  throwIfAny(pos: Position): void {
    if (this.list.length) throw errors.validationFailed(this.list, pos);
  }
}

const NAME_RE = /^[;@+$\-_.!~%\p{L}\p{N}\p{M}\p{Pc}]+$/u;

/** Schema names: `[;@+$\-_.!~%\w]+`, not `_`, not the path words `self`/`events`. */
export function validateName(v: Value | undefined, f: Failures, field: string[] = ['name']): string | undefined {
  if (v === undefined || v === null) {
    f.required(field);
    return undefined;
  }
  if (typeof v !== 'string') {
    f.invalidType(field, v, 'String');
    return undefined;
  }
  if (v === '_' || v === 'self' || v === 'events') {
    f.add(field, 'reserved name', `Invalid name ${v}. Reserved names: _, self, events.`);
    return undefined;
  }
  if (!NAME_RE.test(v)) {
    f.add(
      field,
      'invalid characters',
      `The name ${v} uses invalid characters. Valid characters must match: [;@+$\\-_.!~%\\w]+`,
    );
    return undefined;
  }
  return v;
}

/** Copies the named keys of `params` that are present, in the given order. */
export function pick(params: Obj, keys: readonly string[]): Obj {
  const out: Obj = new Map();
  for (const k of keys) if (params.has(k)) out.set(k, params.get(k) as Value);
  return out;
}
