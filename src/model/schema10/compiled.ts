// A collection document's v10 schema compiled once per schema entry: the type of its documents'
// data (defined fields, wildcard), defaults, check constraints and computed field names. A
// collection without v10 fields compiles to undefined: v4 collections are unchanged.

import type { Obj } from '../../values/types';
import type { SchemaEntry } from '../catalog';
import { ANY, type FieldSchema, type SchemaType } from './schemaType';
import { parseSignature } from './signature';

export interface CheckConstraint {
  name: string;
  body: string;
}

export interface CompiledSchema {
  /** The type of a document's data: defined fields, then the wildcard (Any when neither is given). */
  data: SchemaType & { t: 'record' };
  /** Defined fields with a default expression, by name. */
  defaults: Map<string, string>;
  checks: CheckConstraint[];
  /** Computed field name → lambda body. */
  computed: Map<string, string>;
}

const compiled = new WeakMap<SchemaEntry, CompiledSchema | null>();

export function compiledSchema(coll: SchemaEntry): CompiledSchema | undefined {
  let c = compiled.get(coll);
  if (c === undefined) compiled.set(coll, (c = compile(coll.fields) ?? null));
  return c ?? undefined;
}

function compile(f: Obj): CompiledSchema | undefined {
  const fields = f.get('fields');
  const wildcard = f.get('wildcard');
  const constraints = f.get('constraints');
  const computedDefs = f.get('computed_fields');
  if (fields === undefined && wildcard === undefined && constraints === undefined && computedDefs === undefined) return undefined;
  const typed = new Map<string, FieldSchema>();
  const defaults = new Map<string, string>();
  if (fields instanceof Map)
    for (const [name, def] of fields) {
      if (!(def instanceof Map)) continue;
      const sig = def.get('signature');
      const dflt = def.get('default');
      typed.set(name, { type: typeof sig === 'string' ? parseSignature(sig) : ANY, optional: false });
      if (typeof dflt === 'string') defaults.set(name, dflt);
    }
  // No defined fields and no wildcard: anything goes (Wildcard.expectedSchemaType).
  const wild = typeof wildcard === 'string' ? parseSignature(wildcard) : typed.size ? undefined : ANY;
  const checks: CheckConstraint[] = [];
  if (Array.isArray(constraints))
    for (const c of constraints) {
      const check = c instanceof Map ? c.get('check') : undefined;
      if (!(check instanceof Map)) continue;
      const name = check.get('name');
      const body = check.get('body');
      if (typeof name === 'string' && typeof body === 'string') checks.push({ name, body });
    }
  const computed = new Map<string, string>();
  if (computedDefs instanceof Map)
    for (const [name, def] of computedDefs) {
      const body = def instanceof Map ? def.get('body') : undefined;
      if (typeof body === 'string') computed.set(name, body);
    }
  return { data: { t: 'record', fields: typed, wildcard: wild }, defaults, checks, computed };
}
