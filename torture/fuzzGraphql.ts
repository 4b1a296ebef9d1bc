// GraphQL inputs for the fuzz part: a schema with relations, embedded types, enums, inputs, @index
// and @resolver queries is imported once; operations are then drawn from its introspection: valid
// in shape with random arguments, and mutated (wrong argument types, unknown fields, missing
// arguments, selections past the depth limit, variables of the wrong type, text cut or spliced).

import type { Rand } from './fuzzFql';

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const int = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

export const FUZZ_SDL = `
enum Status { OPEN DONE ARCHIVED }
type Address @embedded { street: String  zip: Int }
type Author { name: String! @unique  age: Int  books: [Book!] @relation  address: Address }
type Book { title: String!  pages: Int  price: Float  status: Status  author: Author  tags: [String!]  published: Time  released: Date }
type Shelf { label: String!  books: [Book!] }
input Range { min: Int  max: Int }
type Query {
  allBooks: [Book!]
  allAuthors: [Author!]
  booksByStatus(status: Status!): [Book!] @index(name: "books_by_status")
  authorByName(name: String!): Author @index(name: "author_by_name")
  shelvesByLabel(label: String): [Shelf!]
  pagesIn(range: Range, limit: Int): [Int!] @resolver(name: "fuzz_pages_in")
  echo(text: String, times: Int, flag: Boolean, f: Float, id: ID): String @resolver(name: "fuzz_gql_echo")
}
type Mutation {
  shout(text: String!): String! @resolver(name: "fuzz_gql_shout")
}
`;

/** FQL run after the import: the resolvers' bodies (stubs would only abort). */
export const GRAPHQL_SETUP: readonly unknown[] = [
  { update: { function: 'fuzz_gql_echo' }, params: { object: { body: { '@query': { lambda: ['text', 'times', 'flag', 'f', 'id'], expr: { format: '%s %s %s %s %s', values: [{ var: 'text' }, { var: 'times' }, { var: 'flag' }, { var: 'f' }, { var: 'id' }] } } } } } },
  { update: { function: 'fuzz_gql_shout' }, params: { object: { body: { '@query': { lambda: ['text'], expr: { uppercase: { var: 'text' } } } } } } },
  { update: { function: 'fuzz_pages_in' }, params: { object: { body: { '@query': { lambda: ['range', 'limit'], expr: [1, 2, 3] } } } } },
];

export const INTROSPECTION = `{ __schema { queryType { name } mutationType { name } types { name kind enumValues { name } inputFields { name type { ...T } } fields { name args { name type { ...T } } type { ...T } } } } }
fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`;

interface TypeRef { kind: string; name: string | null; ofType: TypeRef | null }
interface Field { name: string; args: { name: string; type: TypeRef }[]; type: TypeRef }
interface FullType { name: string; kind: string; enumValues: { name: string }[] | null; inputFields: { name: string; type: TypeRef }[] | null; fields: Field[] | null }

export interface GraphqlSchema {
  types: Map<string, FullType>;
  query: string;
  mutation: string | undefined;
}

export function schemaOf(introspection: { data: { __schema: { queryType: { name: string }; mutationType: { name: string } | null; types: FullType[] } } }): GraphqlSchema {
  const s = introspection.data.__schema;
  return { types: new Map(s.types.map((t) => [t.name, t])), query: s.queryType.name, mutation: s.mutationType?.name };
}

const named = (t: TypeRef): TypeRef => (t.ofType ? named(t.ofType) : t);

const STRINGS = ['', 'x', 'é', '\u0000', '"', '\\', 'a'.repeat(1000), '${x}', '{ }', '#', '\n', '\u{1F600}'];
const INTS = ['0', '-1', '2147483647', '2147483648', '-2147483649', '9223372036854775808', '1e3', '01', '-0'];
const FLOATS = ['0.0', '-0.0', '1e308', '1e309', '4.9e-324', '1.', '.5', 'NaN'];

/** A GraphQL literal for an input of type `t` (a valid one unless `wrong`). */
function literal(rand: Rand, schema: GraphqlSchema, t: TypeRef, depth: number, wrong: boolean): string {
  if (wrong && rand() < 0.3) return pick(rand, ['null', '"x"', '1', '1.5', 'true', '[]', '{}', 'DONE', '[1, "a"]', '{ nope: 1 }', '$undeclared']);
  if (t.kind === 'NON_NULL') return literal(rand, schema, t.ofType!, depth, wrong);
  if (t.kind === 'LIST') return `[${Array.from({ length: int(rand, 0, 3) }, () => literal(rand, schema, t.ofType!, depth + 1, wrong)).join(', ')}]`;
  const type = schema.types.get(t.name ?? '');
  if (type?.kind === 'ENUM') return pick(rand, type.enumValues!.map((e) => e.name));
  if (type?.kind === 'INPUT_OBJECT') {
    if (depth > 4) return '{}';
    const fields = type.inputFields!.filter(() => rand() < 0.7);
    return `{ ${fields.map((f) => `${f.name}: ${literal(rand, schema, f.type, depth + 1, wrong)}`).join(', ')} }`;
  }
  switch (t.name) {
    case 'Int': case 'Long': return rand() < 0.7 ? String(int(rand, -5, 300)) : pick(rand, INTS);
    case 'Float': return rand() < 0.7 ? (rand() * 100).toFixed(2) : pick(rand, FLOATS);
    case 'Boolean': return pick(rand, ['true', 'false']);
    case 'ID': return JSON.stringify(pick(rand, ['1', '0', '-1', '9223372036854775808', 'x', '', '300000000000000000']));
    case 'Time': return JSON.stringify(pick(rand, ['2020-01-01T00:00:00Z', 'now', '2020-13-01T00:00:00Z', '']));
    case 'Date': return JSON.stringify(pick(rand, ['2020-01-01', '2020-02-30', '']));
    default: return JSON.stringify(pick(rand, STRINGS));
  }
}

/** A selection set for `t`, `depth` levels at most. */
function selection(rand: Rand, schema: GraphqlSchema, t: TypeRef, depth: number, wrong: boolean): string {
  const type = schema.types.get(named(t).name ?? '');
  if (!type || !type.fields) return '';
  if (depth <= 0) return '{ __typename }';
  const fields = type.fields.filter((f) => rand() < 0.6);
  if (fields.length === 0) fields.push(type.fields[0]);
  const parts = fields.map((f) => {
    const args = f.args.length && rand() < 0.5 ? `(${f.args.map((a) => `${a.name}: ${literal(rand, schema, a.type, 0, wrong)}`).join(', ')})` : '';
    return `${rand() < 0.1 ? 'alias_' + f.name + ': ' : ''}${f.name}${args} ${selection(rand, schema, f.type, depth - 1, wrong)}`;
  });
  if (wrong && rand() < 0.3) parts.push(pick(rand, ['nope', '__schema { types { name } }', '...on Nope { x }', 'title(x: 1)', '_id @skip(if: "x")']));
  return `{ ${parts.join(' ')} }`;
}

function operation(rand: Rand, schema: GraphqlSchema, wrong: boolean): string {
  const isMutation = schema.mutation && rand() < 0.3;
  const root = schema.types.get(isMutation ? schema.mutation! : schema.query)!;
  const fields = root.fields!.filter(() => rand() < 0.4);
  if (fields.length === 0) fields.push(pick(rand, root.fields!));
  const body = fields.map((f) => {
    let args = f.args.filter((a) => a.type.kind === 'NON_NULL' || rand() < 0.5);
    if (wrong && args.length && rand() < 0.3) args = args.slice(1); // a required argument missing
    const text = args.map((a) => `${a.name}: ${literal(rand, schema, a.type, 0, wrong)}`).join(', ');
    return `${f.name}${text ? `(${text})` : ''} ${selection(rand, schema, f.type, int(rand, 1, wrong ? 12 : 3), wrong)}`;
  });
  return `${isMutation ? 'mutation' : 'query'} ${body.length > 1 && rand() < 0.5 ? 'Op ' : ''}{ ${body.join(' ')} }`;
}

/** Text cut, spliced, or with tokens repeated. */
function mangle(rand: Rand, text: string): string {
  const at = int(rand, 0, text.length);
  switch (int(rand, 0, 4)) {
    case 0: return text.slice(0, at);
    case 1: return text.slice(0, at) + pick(rand, ['{', '}', '(', ')', ':', '$', '@', '...', '"', '#', '\u0000', '!', '[', '=']) + text.slice(at);
    case 2: return text.slice(0, at) + text.slice(int(rand, at, text.length));
    case 3: return text.slice(0, at) + text.slice(at, at + 20).repeat(int(rand, 2, 50)) + text.slice(at);
    default: return text.replace(/\w+/, pick(rand, ['query', 'mutation', 'subscription', 'fragment', 'on', 'null', '__schema']));
  }
}

export interface GraphqlInput {
  kind: string;
  /** The request body as sent. */
  body: string;
}

/** One request body for POST /graphql. */
export function drawGraphql(rand: Rand, schema: GraphqlSchema): GraphqlInput {
  const roll = rand();
  if (roll < 0.35) return { kind: 'gql-valid', body: JSON.stringify({ query: operation(rand, schema, false) }) };
  if (roll < 0.65) return { kind: 'gql-wrong', body: JSON.stringify({ query: operation(rand, schema, true) }) };
  if (roll < 0.8) return { kind: 'gql-mangled', body: JSON.stringify({ query: mangle(rand, operation(rand, schema, rand() < 0.5)) }) };
  if (roll < 0.9) {
    // Variables of the wrong type, operation names that do not exist, bodies of the wrong shape.
    const query = 'query Q($s: Status!, $n: Int, $r: Range) { booksByStatus(status: $s) { data { title } } pagesIn(range: $r, limit: $n) }';
    const variables = pick(rand, [{ s: 'OPEN' }, { s: 'NOPE' }, { s: 1 }, { s: 'OPEN', n: 1e20 }, { s: 'OPEN', r: { min: 'x' } }, { s: null }, 'x', [1], null, { s: 'OPEN', r: { nope: 1 } }]);
    const body = pick(rand, [
      { query, variables },
      { query, variables, operationName: pick(rand, ['Q', 'Nope', 1, null]) },
      { query: pick(rand, [1, null, [], {}, '']) },
      { variables },
      { query: `${query} query Q { __typename }` },
    ]);
    return { kind: 'gql-variables', body: JSON.stringify(body) };
  }
  return { kind: 'gql-body', body: mangle(rand, JSON.stringify({ query: operation(rand, schema, false) })) };
}
