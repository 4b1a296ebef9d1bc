// SDL text → checked graphql-js document (graphql.md A.2): what is accepted, and how a new schema
// is merged into the stored one. Every error names the line and column it is about.

import {
  Kind,
  getLocation,
  parse,
  print,
  GraphQLError,
  Source,
  type ASTNode,
  type ConstArgumentNode,
  type ConstDirectiveNode,
  type DefinitionNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type ObjectTypeDefinitionNode,
} from 'graphql';
import { MAX_DEPTH, MAX_TOKENS, overBoundsAt } from './depth';

/** An import that cannot be accepted: HTTP 400 with this message (text/plain). */
export class SchemaImportError extends Error {}

export const BUILTIN_SCALARS = ['String', 'Int', 'Float', 'Boolean', 'ID'] as const;
export const FAUNA_SCALARS = ['Date', 'Time', 'Long'] as const;
export const ALL_SCALARS: ReadonlySet<string> = new Set([...BUILTIN_SCALARS, ...FAUNA_SCALARS]);

/** The directives an SDL may use, where, and their arguments (name → type). */
const DIRECTIVES: Record<string, { on: 'type' | 'field' | 'query' | 'root'; args: Record<string, 'String' | 'String!' | 'Boolean'> }> = {
  embedded: { on: 'type', args: {} },
  collection: { on: 'type', args: { name: 'String!' } },
  generateUDFResolvers: { on: 'type', args: {} },
  index: { on: 'query', args: { name: 'String!' } },
  resolver: { on: 'root', args: { name: 'String', paginated: 'Boolean' } },
  relation: { on: 'field', args: { name: 'String' } },
  unique: { on: 'field', args: { index: 'String' } },
};
export const DIRECTIVE_NAMES: ReadonlySet<string> = new Set(Object.keys(DIRECTIVES));

export function nodeError(message: string, node: ASTNode | undefined): SchemaImportError {
  const loc = node?.loc;
  if (!loc) return new SchemaImportError(message);
  return new SchemaImportError(message + excerpt(loc.source, loc.start));
}

/** ` (line L, column C):\n<line>\n<caret>` as Sangria printed it. */
export function excerpt(source: Source, offset: number): string {
  const { line, column } = getLocation(source, offset);
  const text = source.body.split(/\r\n|\r|\n/)[line - 1] ?? '';
  return ` (line ${line}, column ${column}):\n${text}\n${' '.repeat(column - 1)}^`;
}

/** Parses SDL text (no location info is lost: errors need it). */
export function parseSdl(text: string): DocumentNode {
  if (text.trim() === '') throw new SchemaImportError('The schema is empty.');
  const source = new Source(text);
  const over = overBoundsAt(source);
  if (over === 'too long') throw new SchemaImportError(`The schema is too large: at most ${MAX_TOKENS} tokens are allowed.`);
  if (over !== undefined) throw new SchemaImportError(`The schema is nested too deeply: at most ${MAX_DEPTH} levels are allowed.${excerpt(source, over)}`);
  try {
    return parse(source, { maxTokens: MAX_TOKENS });
  } catch (e) {
    if (e instanceof GraphQLError && e.source && e.positions?.length) {
      const message = e.message.replace(/^Syntax Error: /, '');
      throw new SchemaImportError(`Syntax error while parsing the schema: ${message}${excerpt(e.source, e.positions[0])}`);
    }
    throw new SchemaImportError(`Cannot parse the schema: ${(e as Error).message}`);
  }
}

export function directive(node: { directives?: readonly ConstDirectiveNode[] }, name: string): ConstDirectiveNode | undefined {
  return node.directives?.find((d) => d.name.value === name);
}

export function stringArg(d: ConstDirectiveNode | undefined, name: string): string | undefined {
  const a = d?.arguments?.find((x) => x.name.value === name);
  return a && a.value.kind === Kind.STRING ? a.value.value : undefined;
}

export function booleanArg(d: ConstDirectiveNode | undefined, name: string): boolean | undefined {
  const a = d?.arguments?.find((x) => x.name.value === name);
  return a && a.value.kind === Kind.BOOLEAN ? a.value.value : undefined;
}

const ROOTS = new Set(['Query', 'Mutation']);

/**
 * Rejects everything Fauna's import did not accept: interfaces, unions, custom scalars,
 * subscriptions, custom directives, misplaced Fauna directives, names starting with `_`.
 * Declarations of the Fauna directives and scalars themselves (as in a downloaded schema) are
 * accepted and ignored.
 */
export function checkDocument(doc: DocumentNode): DocumentNode {
  const kept: DefinitionNode[] = [];
  const seen = new Map<string, ASTNode>();
  for (const def of doc.definitions) {
    switch (def.kind) {
      case Kind.DIRECTIVE_DEFINITION:
        if (!DIRECTIVE_NAMES.has(def.name.value))
          throw nodeError(`Custom directives are not supported: '@${def.name.value}'.`, def);
        continue;
      case Kind.SCALAR_TYPE_DEFINITION:
        if (!(FAUNA_SCALARS as readonly string[]).includes(def.name.value))
          throw nodeError(`Custom scalars are not supported: '${def.name.value}'.`, def);
        continue;
      case Kind.SCHEMA_DEFINITION:
        for (const op of def.operationTypes) {
          const expected = op.operation === 'query' ? 'Query' : op.operation === 'mutation' ? 'Mutation' : undefined;
          if (expected === undefined) throw nodeError('Subscriptions are not supported.', op);
          if (op.type.name.value !== expected)
            throw nodeError(`The ${op.operation} root type must be named '${expected}'.`, op);
        }
        continue;
      case Kind.INTERFACE_TYPE_DEFINITION:
        throw nodeError(`Interfaces are not supported: '${def.name.value}'.`, def);
      case Kind.UNION_TYPE_DEFINITION:
        throw nodeError(`Unions are not supported: '${def.name.value}'.`, def);
      case Kind.OBJECT_TYPE_DEFINITION:
      case Kind.ENUM_TYPE_DEFINITION:
      case Kind.INPUT_OBJECT_TYPE_DEFINITION:
        break;
      case Kind.OPERATION_DEFINITION:
      case Kind.FRAGMENT_DEFINITION:
        throw nodeError('A schema may not contain operations or fragments.', def);
      default:
        throw nodeError('Type extensions are not supported.', def);
    }
    const name = def.name.value;
    if (name === 'Subscription') throw nodeError('Subscriptions are not supported.', def);
    if (ALL_SCALARS.has(name)) throw nodeError(`The type name '${name}' is reserved.`, def.name);
    checkName(name, def.name);
    if (seen.has(name)) throw nodeError(`The type '${name}' is declared more than once.`, def.name);
    seen.set(name, def);
    if (def.kind === Kind.OBJECT_TYPE_DEFINITION) checkObject(def);
    else if (def.kind === Kind.ENUM_TYPE_DEFINITION) {
      noDirectives(def, `enum '${name}'`);
      for (const value of def.values ?? []) {
        checkName(value.name.value, value.name);
        noDirectives(value, `enum value '${name}.${value.name.value}'`);
      }
    } else {
      noDirectives(def, `input '${name}'`);
      for (const f of def.fields ?? []) {
        checkName(f.name.value, f.name);
        noDirectives(f, `input field '${name}.${f.name.value}'`);
      }
    }
    kept.push(def);
  }
  return { kind: Kind.DOCUMENT, definitions: kept };
}

function checkName(name: string, node: ASTNode): void {
  if (name.startsWith('_')) throw nodeError(`Names may not start with '_': '${name}'.`, node);
}

function noDirectives(node: { directives?: readonly ConstDirectiveNode[] }, what: string): void {
  const d = node.directives?.[0];
  if (d) throw misplaced(d, what);
}

function misplaced(d: ConstDirectiveNode, what: string): SchemaImportError {
  if (!DIRECTIVE_NAMES.has(d.name.value)) return nodeError(`Unknown directive '@${d.name.value}'.`, d);
  return nodeError(`The directive '@${d.name.value}' cannot be used on ${what}.`, d);
}

function checkObject(def: ObjectTypeDefinitionNode): void {
  const name = def.name.value;
  const root = ROOTS.has(name);
  if (def.interfaces?.length) throw nodeError(`Interfaces are not supported: '${def.interfaces[0].name.value}'.`, def.interfaces[0]);
  checkDirectives(def.directives, root ? undefined : 'type', `type '${name}'`);
  const embedded = !!directive(def, 'embedded');
  if (embedded && directive(def, 'collection'))
    throw nodeError(`The embedded type '${name}' cannot have a collection.`, directive(def, 'collection'));
  if (embedded && directive(def, 'generateUDFResolvers'))
    throw nodeError(`The embedded type '${name}' cannot use @generateUDFResolvers.`, directive(def, 'generateUDFResolvers'));
  const fields = new Set<string>();
  for (const f of def.fields ?? []) {
    const fname = f.name.value;
    checkName(fname, f.name);
    if (fields.has(fname)) throw nodeError(`The field '${name}.${fname}' is declared more than once.`, f.name);
    fields.add(fname);
    const where = `field '${name}.${fname}'`;
    if (name === 'Query') checkDirectives(f.directives, 'query', where);
    else if (name === 'Mutation') checkDirectives(f.directives, 'root', where);
    else {
      checkDirectives(f.directives, 'field', where);
      if (f.arguments?.length) throw nodeError(`Arguments are not supported on ${where}.`, f.arguments[0]);
    }
    const args = new Set<string>();
    for (const a of f.arguments ?? []) {
      checkName(a.name.value, a.name);
      if (args.has(a.name.value)) throw nodeError(`The argument '${a.name.value}' is declared more than once.`, a.name);
      args.add(a.name.value);
      noDirectives(a, `argument '${a.name.value}'`);
    }
  }
  if (!root && fields.size === 0) throw nodeError(`The type '${name}' must have fields.`, def.name);
}

/** `placement`: where the directives are (undefined = a root type, where none are allowed). */
function checkDirectives(
  list: readonly ConstDirectiveNode[] | undefined,
  placement: 'type' | 'field' | 'query' | 'root' | undefined,
  what: string,
): void {
  const seen = new Set<string>();
  for (const d of list ?? []) {
    const spec = DIRECTIVES[d.name.value];
    if (!spec) throw nodeError(`Unknown directive '@${d.name.value}'.`, d);
    // @resolver is accepted on any field; it only does something on Query and Mutation (A.2.5).
    const ok = spec.on === placement || (spec.on === 'root' && (placement === 'query' || placement === 'field'));
    if (!ok) throw misplaced(d, what);
    if (seen.has(d.name.value)) throw nodeError(`The directive '@${d.name.value}' is repeated on ${what}.`, d);
    seen.add(d.name.value);
    const given = new Set<string>();
    for (const a of d.arguments ?? []) checkArg(d, a, spec.args, given);
    for (const [arg, type] of Object.entries(spec.args))
      if (type.endsWith('!') && !given.has(arg))
        throw nodeError(`The directive '@${d.name.value}' needs the argument '${arg}'.`, d);
  }
}

function checkArg(d: ConstDirectiveNode, a: ConstArgumentNode, args: Record<string, string>, given: Set<string>): void {
  const type = args[a.name.value];
  if (!type) throw nodeError(`Unknown argument '${a.name.value}' on directive '@${d.name.value}'.`, a);
  given.add(a.name.value);
  const kind = type.startsWith('String') ? Kind.STRING : Kind.BOOLEAN;
  if (a.value.kind !== kind)
    throw nodeError(`The argument '${a.name.value}' of '@${d.name.value}' must be a ${type.replace('!', '')}.`, a.value);
  if (kind === Kind.STRING && a.value.kind === Kind.STRING) {
    const s = a.value.value;
    if (s === '') throw nodeError(`The argument '${a.name.value}' of '@${d.name.value}' must not be empty.`, a.value);
    if (d.name.value === 'relation' && !/^[A-Za-z0-9_]+$/.test(s))
      throw nodeError(`The relation name '${s}' may contain only letters, digits and '_'.`, a.value);
  }
}

/**
 * `merge`: the stored schema with the new one laid over it. Types, enums and inputs are replaced
 * whole by a new definition of the same name; Query and Mutation fields one by one.
 */
export function mergeDocuments(old: DocumentNode, next: DocumentNode): DocumentNode {
  const byName = new Map<string, DefinitionNode>();
  const order: string[] = [];
  const put = (def: DefinitionNode) => {
    const name = (def as { name: { value: string } }).name.value;
    const prev = byName.get(name);
    if (!prev) order.push(name);
    if (prev && ROOTS.has(name) && prev.kind === Kind.OBJECT_TYPE_DEFINITION && def.kind === Kind.OBJECT_TYPE_DEFINITION) {
      const fields = new Map<string, FieldDefinitionNode>();
      for (const f of prev.fields ?? []) fields.set(f.name.value, f);
      for (const f of def.fields ?? []) fields.set(f.name.value, f);
      byName.set(name, { ...def, fields: [...fields.values()] });
      return;
    }
    byName.set(name, def);
  };
  for (const def of old.definitions) put(def);
  for (const def of next.definitions) put(def);
  return { kind: Kind.DOCUMENT, definitions: order.map((n) => byName.get(n)!) };
}

/** The text stored for a document (locations of a reparse then point into it). */
export function printDocument(doc: DocumentNode): string {
  return print(doc);
}
