// The schema the API serves, as SDL text generated from the model (graphql.md A.3): `_id`/`_ts`,
// `find<T>ByID`, create/update/delete/partialUpdate, inputs, relation inputs, pages, the Fauna
// directives and scalars with Fauna's docstrings. Resolvers are attached to the built schema by
// resolvers.ts.

import { print, type FieldDefinitionNode, type InputValueDefinitionNode, type StringValueNode, type TypeNode, Kind } from 'graphql';
import {
  opNamed,
  pageName,
  relationInputName,
  type GField,
  type GModel,
  type GOp,
  type GType,
} from './model';

const LONG_DOC =
  'The `Long` scalar type represents non-fractional signed whole numeric values. Long can represent values between -(2^63) and 2^63 - 1.';

const PREAMBLE = `
directive @embedded on OBJECT
directive @collection(name: String!) on OBJECT
directive @index(name: String!) on FIELD_DEFINITION
directive @resolver(name: String, paginated: Boolean! = false) on FIELD_DEFINITION
directive @relation(name: String) on FIELD_DEFINITION
directive @unique(index: String) on FIELD_DEFINITION
directive @generateUDFResolvers on OBJECT

scalar Date

${doc(LONG_DOC)}
scalar Long

scalar Time
`;

function doc(text: string | undefined, indent = ''): string {
  return text === undefined ? '' : `${indent}${JSON.stringify(text)}\n`;
}

function description(node: { description?: StringValueNode }): string | undefined {
  return node.description?.value;
}

/** A type with its outermost non-null removed. */
function nullable(t: TypeNode): TypeNode {
  return t.kind === Kind.NON_NULL_TYPE ? t.type : t;
}

/** The same list/non-null shape around another named type. */
function rename(t: TypeNode, named: string): string {
  switch (t.kind) {
    case Kind.NAMED_TYPE:
      return named;
    case Kind.NON_NULL_TYPE:
      return `${rename(t.type, named)}!`;
    case Kind.LIST_TYPE:
      return `[${rename(t.type, named)}]`;
  }
}

function printArgs(args: readonly InputValueDefinitionNode[] | undefined, extra: string[] = []): string {
  const parts = [...extra, ...(args ?? []).map((a) => print({ ...a, directives: [] }))];
  return parts.length ? `(${parts.join(', ')})` : '';
}

const PAGE_ARGS = ['_size: Int', '_cursor: String'];

export function servedSdl(model: GModel): string {
  const out: string[] = [PREAMBLE];
  const pages = new Set<string>();

  for (const t of model.types.values()) {
    out.push(objectType(t, pages));
    out.push(inputType(t, false));
    out.push(inputType(t, true));
    if (!t.embedded) {
      pages.add(t.name);
      for (const f of t.fields) if (isRelationInput(f)) out.push(relationInput(t, f));
    }
  }
  for (const e of model.enums.values()) out.push(print(e));
  for (const i of model.inputs.values()) out.push(print(i));

  const query: string[] = [];
  for (const op of model.queries) query.push(opField(op, model, pages));
  out.push(`type Query {\n${query.join('\n')}\n}`);
  if (model.mutations.length) out.push(`type Mutation {\n${model.mutations.map((op) => opField(op, model, pages)).join('\n')}\n}`);

  for (const p of pages) {
    out.push(
      `${doc(`The pagination object for elements of type '${p}'.`)}type ${pageName(p)} {\n` +
        `${doc(`The elements of type '${p}' in this page.`, '  ')}  data: [${p}]!\n` +
        `${doc('A cursor for elements coming after the current page.', '  ')}  after: String\n` +
        `${doc('A cursor for elements coming before the current page.', '  ')}  before: String\n}`,
    );
  }
  return out.join('\n\n');
}

function isRelationInput(f: GField): boolean {
  return f.kind === 'ref' || f.kind === 'refs' || f.kind === 'o2oInverse' || f.kind === 'o2mList' || f.kind === 'm2m';
}

function objectType(t: GType, pages: Set<string>): string {
  const lines: string[] = [];
  if (!t.embedded) {
    lines.push(`${doc("The document's ID.", '  ')}  _id: ID!`);
    lines.push(`${doc("The document's timestamp.", '  ')}  _ts: Long!`);
  }
  for (const f of t.fields) {
    const d = doc(description(f.node), '  ');
    if (f.kind === 'o2mList' || f.kind === 'm2m') {
      pages.add(f.named);
      lines.push(`${d}  ${f.name}(${PAGE_ARGS.join(', ')}): ${pageName(f.named)}!`);
    } else lines.push(`${d}  ${f.name}: ${print(f.type)}`);
  }
  return `${doc(description(t.node))}type ${t.name} {\n${lines.join('\n')}\n}`;
}

/** `<T>Input` / `PartialUpdate<T>Input` (graphql.md A.3.1). */
function inputType(t: GType, partial: boolean): string {
  const name = partial ? `PartialUpdate${t.name}Input` : `${t.name}Input`;
  const lines: string[] = [];
  for (const f of t.fields) {
    let type: string;
    if (!t.embedded && isRelationInput(f)) type = relationInputName(t.name, f.name);
    else if (f.kind === 'ref' || f.kind === 'refs') type = rename(partial ? nullable(f.type) : f.type, 'ID');
    else if (f.kind === 'embedded') type = rename(partial ? nullable(f.type) : f.type, `${partial ? 'PartialUpdate' : ''}${f.named}Input`);
    else type = print(partial ? nullable(f.type) : f.type);
    lines.push(`  ${f.name}: ${type}`);
  }
  return `${doc(`'${t.name}' input values`)}input ${name} {\n${lines.join('\n')}\n}`;
}

function relationInput(t: GType, f: GField): string {
  const B = f.named;
  const many = f.kind === 'refs' || f.kind === 'o2mList' || f.kind === 'm2m';
  const lines = many
    ? [
        `${doc(`Create one or more documents of type '${B}' and associate them with the current document.`, '  ')}  create: [${B}Input]`,
        `${doc(`Connect one or more documents of type '${B}' with the current document using their IDs.`, '  ')}  connect: [ID]`,
        `${doc(`Disconnect the given documents of type '${B}' from the current document using their IDs.`, '  ')}  disconnect: [ID]`,
      ]
    : [
        `${doc(`Create a document of type '${B}' and associate it with the current document.`, '  ')}  create: ${B}Input`,
        `${doc(`Connect a document of type '${B}' with the current document using its ID.`, '  ')}  connect: ID`,
      ];
  if (!many && !f.nonNull)
    lines.push(`${doc(`If true, disconnects this document from the document of type '${B}'.`, '  ')}  disconnect: Boolean`);
  return (
    `${doc(`Allow manipulating the relationship between the types '${t.name}' and '${B}' using the field '${t.name}.${f.name}'.`)}` +
    `input ${relationInputName(t.name, f.name)} {\n${lines.join('\n')}\n}`
  );
}

function opField(op: GOp, model: GModel, pages: Set<string>): string {
  const T = op.target;
  const idArg = `${doc(`The '${T}' document's ID`)}id: ID!`;
  const dataArg = (input: string) => `${doc(`'${T}' input values`)}data: ${input}!`;
  const line = (docText: string | undefined, name: string, args: string[], type: string) =>
    `${doc(docText, '  ')}  ${name}${args.length ? `(${args.map((a) => a.replace(/\n/g, ' ')).join(', ')})` : ''}: ${type}`;
  const node = op.node as FieldDefinitionNode | undefined;
  const userDoc = node ? description(node) : undefined;

  // A generated UDF resolver without a declaration is printed like the operation it stands for.
  const kind = op.generated && !node ? op.generated : op.kind;
  switch (kind) {
    case 'list':
      pages.add(T!);
      return line(undefined, op.name, PAGE_ARGS, `${pageName(T!)}!`);
    case 'findByID':
      return line(`Find a document from the collection of '${T}' by its id.`, op.name, [idArg], T!);
    case 'create':
      return line(`Create a new document in the collection of '${T}'`, op.name, [dataArg(`${T}Input`)], `${T}!`);
    case 'update':
      return line(`Update an existing document in the collection of '${T}'`, op.name, [idArg, dataArg(`${T}Input`)], T!);
    case 'delete':
      return line(`Delete an existing document in the collection of '${T}'`, op.name, [idArg], T!);
    case 'partialUpdate':
      return line(
        `Partially updates an existing document in the collection of '${T}'. It only modifies the values that are specified in the arguments. During execution, it verifies that required fields are not set to 'null'.`,
        op.name,
        [idArg, dataArg(`PartialUpdate${T}Input`)],
        T!,
      );
    case 'index':
    case 'resolver': {
      const f = node!;
      const paged = op.paginated || (op.kind === 'index' && op.list);
      const args = printArgs(f.arguments, paged ? PAGE_ARGS : []);
      if (paged) {
        const named = opNamed(op);
        pages.add(named);
        return `${doc(userDoc, '  ')}  ${op.name}${args}: ${pageName(named)}!`;
      }
      return `${doc(userDoc, '  ')}  ${op.name}${args}: ${print(f.type)}`;
    }
  }
}

