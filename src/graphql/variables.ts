// Variables as graphql-js coerces them. The request JSON keeps integers beyond 2^53 as bigints so that
// a Long keeps all 64 bits; graphql-js's own scalars only know JS numbers, so such an integer given to
// an ID becomes its exact decimal string (ids are 18 digits), and to any other scalar a number.

import {
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  getOperationAST,
  typeFromAST,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';

export function variablesFor(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const op = getOperationAST(document, operationName);
  if (!variables || !op) return variables;
  const out: Record<string, unknown> = { ...variables };
  for (const def of op.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const type = typeFromAST(schema, def.type) as GraphQLInputType | undefined;
    if (type && Object.prototype.hasOwnProperty.call(out, name)) out[name] = convert(out[name], type);
  }
  return out;
}

function convert(v: unknown, type: GraphQLInputType): unknown {
  if (type instanceof GraphQLNonNull) return convert(v, type.ofType);
  if (type instanceof GraphQLList) return Array.isArray(v) ? v.map((x) => convert(x, type.ofType)) : convert(v, type.ofType);
  if (type instanceof GraphQLInputObjectType) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const fields = type.getFields();
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const f = fields[k];
      Object.defineProperty(out, k, { value: f ? convert(x, f.type) : x, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (typeof v !== 'bigint' || !(type instanceof GraphQLScalarType) || type.name === 'Long') return v;
  return type.name === 'ID' ? v.toString() : Number(v);
}
