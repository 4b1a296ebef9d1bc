// Raw FSL nodes to schema items (SchemaItemConverter.scala): which keyword may go where, names,
// duplicates, literal kinds, index paths, predicates and function signatures, with the core's
// messages. It reports every problem it finds, not only the first.

import type { Expr, Name } from '../ast';
import { error, type Diagnostic } from '../diagnostic';
import type { Span } from '../span';
import {
  ACTIONS, FIELD_KEYWORD, type AccessProvider, type Action, type CheckConstraint, type Collection, type Field, type FieldPath,
  type FslAnnotation, type FslBlock, type FslNode, type FslValue, type FunctionItem, type Index, type IndexTerm, type IndexValue,
  type Lambda, type Membership, type MigrationItem, type Privilege, type Role, type SchemaItem, type Spanned, type Unique,
} from './ast';
import { isValidIdent } from '../parser/identifiers';
import { fieldPathOf } from './rawParser';
import { parentHasDefault, plainType, schemaType } from './schemaType';

// Field names a user field may not have (Tokens.SpecialFieldNames).
const SPECIAL_FIELD_NAMES = new Set(['id', 'coll', 'ts', 'data', 'delete', 'update', 'replace', 'updateData', 'replaceData', 'exists', 'ttl']);
const ORIGINALLY = 'Originally defined here';

function to(a: Span, b: Span): Span {
  return { start: a.start, end: b.end, src: a.src };
}

/** Converts a file's (or several files') nodes; the items, or every error found. */
export function convertNodes(nodes: ReadonlyArray<FslNode>): { items: SchemaItem[]; errors: Diagnostic[] } {
  const c = new Converter();
  const items = c.items(nodes);
  return { items, errors: c.errors };
}

/** Names seen once, by kind (DupeList). */
class DupeList {
  private readonly seen = new Map<string, Span>();
  constructor(private readonly conv: Converter, private readonly what: string) {}
  has(name: Name): boolean {
    return this.seen.has(name.str);
  }
  check(name: Name): void {
    const orig = this.seen.get(name.str);
    if (orig !== undefined) this.conv.emit(error(`Duplicate ${this.what} \`${name.str}\``, name.span, undefined, [{ message: ORIGINALLY, span: orig }]));
    else this.seen.set(name.str, name.span);
  }
}

/** A member that may appear once (DupeItem). */
class DupeItem {
  private seen: Span | null = null;
  constructor(private readonly conv: Converter, private readonly what: string) {}
  check(sp: Span): void {
    if (this.seen !== null) this.conv.emit(error(`Duplicate ${this.what}`, sp, undefined, [{ message: ORIGINALLY, span: this.seen }]));
    else this.seen = sp;
  }
  assertSeen(sp: Span): void {
    if (this.seen === null) this.conv.emit(error(`Missing ${this.what}`, sp));
  }
}

function pathKey(p: FieldPath): string {
  return JSON.stringify(p.elems.map((e) => (e.kind === 'field' ? e.name : e.index)));
}

class Converter {
  readonly errors: Diagnostic[] = [];

  emit(d: Diagnostic): void {
    this.errors.push(d);
  }

  private err(message: string, sp: Span): void {
    this.emit(error(message, sp));
  }

  // ---- utilities ----

  private value(v: FslValue | null, sp: Span): FslValue | null {
    if (v === null) this.err('Missing required value', sp);
    return v;
  }

  private blockOpt(v: FslValue | null): FslBlock | null {
    if (v === null) return null;
    if (v.kind === 'Block') return v;
    this.err('Expected a block', v.span);
    return null;
  }

  private block(v: FslValue): FslBlock | null {
    if (v.kind === 'Block') return v;
    this.err('Expected a block', v.span);
    return null;
  }

  private name(name: Name | null, sp: Span): Name | null {
    if (name === null) this.err('Missing required name', sp);
    return name;
  }

  private identifier(name: Name | null, sp: Span): Name | null {
    if (name === null) {
      this.err('Missing required name', sp);
      return null;
    }
    if (!isValidIdent(name.str)) {
      this.err(`Invalid identifier \`${name.str}\``, name.span);
      return null;
    }
    return name;
  }

  /** A field's name: an identifier or `*`, and none the model reserves. */
  private fieldName(name: Name | null, sp: Span): Name | null {
    const n = name !== null && name.str === '*' ? name : this.identifier(name, sp);
    if (n !== null && SPECIAL_FIELD_NAMES.has(n.str)) {
      this.err(`Invalid reserved name \`${n.str}\``, sp);
      return null;
    }
    return n;
  }

  private allowedAnnotations(anns: ReadonlyArray<FslAnnotation>, ...kinds: string[]): void {
    for (const a of anns) if (!kinds.includes(a.keyword.str)) this.err('Annotation not supported here', a.span);
  }

  private annotation(anns: ReadonlyArray<FslAnnotation>, kind: string): FslAnnotation | null {
    const found = anns.filter((a) => a.keyword.str === kind);
    for (const a of found.slice(1)) this.emit(error(`Duplicate annotation \`${kind}\``, a.span, undefined, [{ message: ORIGINALLY, span: found[0].span }]));
    return found[0] ?? null;
  }

  private noAnnotations(anns: ReadonlyArray<FslAnnotation>): void {
    if (anns.length > 0) this.err('Annotations are not allowed here', anns[0].span);
  }

  private noName(name: Name | null): void {
    if (name !== null) this.err('Name is not allowed here', name.span);
  }

  // ---- items ----

  items(nodes: ReadonlyArray<FslNode>): SchemaItem[] {
    // Collections and functions share a namespace (aliases included); roles and access providers
    // each have their own.
    const collFunction = new DupeList(this, 'collection or function');
    const roles = new DupeList(this, 'role');
    const providers = new DupeList(this, 'access provider');
    const out: SchemaItem[] = [];
    for (const node of nodes) {
      const { annotations: anns, keyword: kw, span } = node;
      switch (kw.str) {
        case 'collection': {
          const name = this.name(node.name, kw.span);
          if (name === null) break;
          this.allowedAnnotations(anns, 'alias');
          const alias = this.annotation(anns, 'alias');
          collFunction.check(name);
          if (alias !== null) collFunction.check(alias.value);
          const b = this.value(node.body, span);
          const block = b === null ? null : this.block(b);
          if (block === null) break;
          out.push(this.collection(name, alias, block.items, span, node.docComment));
          break;
        }
        case 'function': {
          const name = this.name(node.name, kw.span);
          if (name === null) break;
          this.allowedAnnotations(anns, 'alias', 'role');
          const alias = this.annotation(anns, 'alias');
          // A function may share a collection's name if it has an alias (the collection wins
          // name resolution); otherwise its name and alias must both be free.
          const sharesCollection = collFunction.has(name) && alias !== null
            && nodes.some((n) => n.keyword.str === 'collection' && n.name?.str === name.str);
          if (sharesCollection) collFunction.check(alias.value);
          else {
            collFunction.check(name);
            if (alias !== null) collFunction.check(alias.value);
          }
          const b = this.value(node.body, span);
          if (b === null) break;
          const f = this.function(b, kw.span, anns, alias, name, node.docComment);
          if (f !== null) out.push(f);
          break;
        }
        case 'role': {
          this.noAnnotations(anns);
          const name = this.name(node.name, kw.span);
          if (name === null) break;
          roles.check(name);
          const b = this.value(node.body, span);
          const block = b === null ? null : this.block(b);
          if (block === null) break;
          out.push(this.role(name, block.items, span, node.docComment));
          break;
        }
        case 'access provider': {
          this.noAnnotations(anns);
          const name = this.name(node.name, kw.span);
          if (name === null) break;
          providers.check(name);
          const b = this.value(node.body, span);
          const block = b === null ? null : this.block(b);
          if (block === null) break;
          const ap = this.accessProvider(name, block, span, node.docComment);
          if (ap !== null) out.push(ap);
          break;
        }
        default:
          this.err(`Invalid schema item \`${kw.str}\``, kw.span);
      }
    }
    return out;
  }

  private collection(name: Name, alias: FslAnnotation | null, nodes: ReadonlyArray<FslNode>, span: Span, docComment: Span | null): Collection {
    const indexDupe = new DupeList(this, 'index name');
    const migrationsDupe = new DupeItem(this, 'migration block');
    const checkDupe = new DupeList(this, 'check constraint name');
    const histDupe = new DupeItem(this, 'history days');
    const ttlDupe = new DupeItem(this, 'ttl days');
    const docTTLDupe = new DupeItem(this, 'document TTLs');
    const fieldDupe = new DupeList(this, 'field');
    const uniqueSeen = new Map<string, Span>();

    const fields: Field[] = [];
    let migrations: Collection['migrations'] = null;
    const indexes: Index[] = [];
    const uniques: Unique[] = [];
    const checks: CheckConstraint[] = [];
    let historyDays: Spanned<bigint> = { value: 0n, span: null };
    let ttlDays: Spanned<bigint> | null = null;
    let documentTTLs: Spanned<boolean> | null = null;

    for (const node of nodes) {
      const { annotations: anns, keyword: kw, span: sp } = node;
      switch (kw.str) {
        case 'index': {
          this.noAnnotations(anns);
          const n = this.identifier(node.name, kw.span);
          if (n === null) break;
          indexDupe.check(n);
          const b = this.value(node.body, sp);
          const block = b === null ? null : this.block(b);
          if (block === null) break;
          const { terms, values } = this.indexMembers(block.items);
          indexes.push({ name: n, terms, values, span: sp });
          break;
        }
        case 'unique': {
          this.noAnnotations(anns);
          this.noName(node.name);
          const v = this.value(node.body, sp);
          if (v === null) break;
          const terms = this.indexTerms(v);
          if (terms === null || terms.terms.length === 0) {
            this.err('Expected non-empty terms for a unique constraint', v.span);
            break;
          }
          const key = [...new Set(terms.terms.map((t) => `${t.mva}:${pathKey(t.path)}`))].sort().join('\n');
          const orig = uniqueSeen.get(key);
          if (orig !== undefined) {
            this.emit(error('Duplicate unique constraint.', terms.span, undefined, [{ message: 'This unique constraint covers the same fields.', span: orig }]));
          } else uniqueSeen.set(key, terms.span);
          uniques.push({ terms: terms.terms, termsSpan: terms.span, span: sp });
          break;
        }
        case FIELD_KEYWORD: {
          this.noAnnotations(anns);
          const n = this.fieldName(node.name, sp);
          if (n === null) break;
          fieldDupe.check(n);
          const v = this.value(node.body, sp);
          if (v === null) break;
          const f = this.field(kw.span, n, v, sp);
          if (f !== null) fields.push(f);
          break;
        }
        case 'migrations': {
          this.noAnnotations(anns);
          migrationsDupe.check(sp);
          const v = this.value(node.body, sp);
          if (v === null) break;
          this.noName(node.name);
          const m = this.migrationBlock(v, sp);
          if (m !== null) migrations = m;
          break;
        }
        case 'check': {
          this.noAnnotations(anns);
          const n = this.identifier(node.name, kw.span);
          if (n === null) break;
          checkDupe.check(n);
          const v = this.value(node.body, sp);
          if (v === null) break;
          const pred = this.checkFunction(v);
          if (pred !== null) checks.push({ name: n, predicate: pred, span: sp });
          break;
        }
        case 'history_days': {
          this.noAnnotations(anns);
          this.noName(node.name);
          histDupe.check(sp);
          const v = this.value(node.body, sp);
          const days = v === null ? null : this.long(v);
          if (days !== null) historyDays = days;
          break;
        }
        case 'ttl_days': {
          this.noAnnotations(anns);
          this.noName(node.name);
          ttlDupe.check(sp);
          const v = this.value(node.body, sp);
          const days = v === null ? null : this.long(v);
          if (days !== null) ttlDays = days;
          break;
        }
        case 'document_ttls': {
          this.noAnnotations(anns);
          this.noName(node.name);
          docTTLDupe.check(sp);
          const v = this.value(node.body, sp);
          const enabled = v === null ? null : this.bool(v);
          if (enabled !== null) documentTTLs = enabled;
          break;
        }
        default:
          this.err(`Invalid field or member \`${kw.str}\``, kw.span);
      }
    }
    return { kind: 'collection', name, alias, fields, migrations, indexes, uniques, checks, historyDays, ttlDays, documentTTLs, span, docComment };
  }

  private indexMembers(nodes: ReadonlyArray<FslNode>): Pick<Index, 'terms' | 'values'> {
    const termsDupe = new DupeItem(this, 'terms definition');
    const valuesDupe = new DupeItem(this, 'values definition');
    let terms: Index['terms'] = null;
    let values: Index['values'] = null;
    for (const node of nodes) {
      const { annotations: anns, keyword: kw, span: sp } = node;
      if (kw.str === 'terms') {
        this.noAnnotations(anns);
        this.noName(node.name);
        termsDupe.check(sp);
        const v = this.value(node.body, sp);
        const t = v === null ? null : this.indexTerms(v);
        if (t !== null && t.terms.length > 0) terms = t;
      } else if (kw.str === 'values') {
        this.noAnnotations(anns);
        this.noName(node.name);
        valuesDupe.check(sp);
        const v = this.value(node.body, sp);
        const vs = v === null ? null : this.indexValues(v);
        if (vs !== null && vs.values.length > 0) values = vs;
      } else this.err(`Invalid member \`${kw.str}\``, kw.span);
    }
    return { terms, values };
  }

  private role(name: Name, nodes: ReadonlyArray<FslNode>, span: Span, docComment: Span | null): Role {
    const privilegesDupe = new DupeList(this, 'privileges');
    const membershipDupe = new DupeList(this, 'membership');
    const privileges: Privilege[] = [];
    const membership: Membership[] = [];
    for (const node of nodes) {
      const { annotations: anns, keyword: kw, span: sp } = node;
      if (kw.str === 'privileges') {
        this.noAnnotations(anns);
        const n = this.name(node.name, kw.span);
        if (n === null) continue;
        privilegesDupe.check(n);
        const v = this.value(node.body, sp);
        const block = v === null ? null : this.block(v);
        if (block === null) continue;
        privileges.push({ resource: n, actions: this.actions(block.items), span: sp });
      } else if (kw.str === 'membership') {
        this.noAnnotations(anns);
        const n = this.name(node.name, kw.span);
        if (n === null) continue;
        membershipDupe.check(n);
        const block = this.blockOpt(node.body);
        membership.push({ name: n, predicate: block === null ? null : this.predicateBlock(block), span: sp });
      } else this.err(`Invalid member \`${kw.str}\``, kw.span);
    }
    return { kind: 'role', name, privileges, membership, span, docComment };
  }

  private actions(nodes: ReadonlyArray<FslNode>): Privilege['actions'] {
    const dupe = new DupeList(this, 'action');
    const out: { action: Action; predicate: Lambda | null; span: Span }[] = [];
    for (const node of nodes) {
      this.noAnnotations(node.annotations);
      this.noName(node.name);
      const action = (ACTIONS as ReadonlyArray<string>).includes(node.keyword.str) ? (node.keyword.str as Action) : null;
      if (action === null) {
        this.err(`Invalid action \`${node.keyword.str}\``, node.keyword.span);
        continue;
      }
      dupe.check(node.keyword);
      const block = this.blockOpt(node.body);
      out.push({ action, predicate: block === null ? null : this.predicateBlock(block), span: node.span });
    }
    return out;
  }

  private accessProvider(name: Name, block: FslBlock, span: Span, docComment: Span | null): AccessProvider | null {
    const issuerDupe = new DupeItem(this, 'issuer');
    const jwksDupe = new DupeItem(this, 'jwks uri');
    const rolesDupe = new DupeList(this, 'role');
    let issuer: Spanned<string> | null = null;
    let jwksUri: Spanned<string> | null = null;
    const roles: Membership[] = [];
    for (const node of block.items) {
      const { annotations: anns, keyword: kw, span: sp } = node;
      if (kw.str === 'issuer' || kw.str === 'jwks_uri') {
        this.noAnnotations(anns);
        this.noName(node.name);
        (kw.str === 'issuer' ? issuerDupe : jwksDupe).check(kw.span);
        const v = this.value(node.body, sp);
        const s = v === null ? null : this.str(v);
        if (s !== null && kw.str === 'issuer') issuer = s;
        else if (s !== null) jwksUri = s;
      } else if (kw.str === 'role') {
        this.noAnnotations(anns);
        const n = this.name(node.name, sp);
        if (n === null) continue;
        rolesDupe.check(n);
        const b = this.blockOpt(node.body);
        roles.push({ name: n, predicate: b === null ? null : this.predicateBlock(b), span: sp });
      } else this.err(`Invalid member \`${kw.str}\``, kw.span);
    }
    const blockSpan = to(block.open, block.close);
    issuerDupe.assertSeen(blockSpan);
    jwksDupe.assertSeen(blockSpan);
    if (issuer === null || jwksUri === null) return null;
    return { kind: 'access provider', name, issuer, jwksUri, roles, span, docComment };
  }

  // ---- members ----

  private field(kwSpan: Span, name: Name, value: FslValue, span: Span): Field | null {
    if (value.kind !== 'Field') {
      this.err('Expected a field definition', value.span);
      return null;
    }
    const emit = (d: Diagnostic) => this.emit(d);
    const ct = value.ty;
    const v = value.value;
    switch (value.fieldKind) {
      case 'compute': {
        if (v === null) {
          this.err('Computed fields require a value', kwSpan);
          return null;
        }
        if (v.kind !== 'Lit') {
          this.err('Expected an expression literal', v.span);
          return null;
        }
        const lambda = lambdaOf(v.expr, true);
        if (lambda === null) {
          this.err('Expected lambda', v.expr.span);
          return null;
        }
        const ty = ct === null ? null : plainType(ct.ty, ct.defaults, emit);
        return { kind: 'computed', kwSpan, name, ty, value: lambda, span };
      }
      case 'defined': {
        if (ct === null) {
          this.err('Expected a type signature', span);
          return null;
        }
        if (v === null) return { kind: 'defined', name, ty: schemaType(ct.ty, ct.defaults, emit, null), default: null, span };
        if (v.kind !== 'Lit') {
          this.err('Expected an expression literal', v.span);
          return null;
        }
        return { kind: 'defined', name, ty: schemaType(ct.ty, ct.defaults, emit, parentHasDefault(v.expr)), default: v.expr, span };
      }
      case 'wildcard': {
        if (v !== null) {
          this.err('No default allowed for wildcard field', v.span);
          return null;
        }
        if (ct === null) {
          this.err('Expected a field definition', value.span);
          return null;
        }
        return { kind: 'wildcard', ty: plainType(ct.ty, ct.defaults, emit), span };
      }
    }
  }

  private checkPath(path: FieldPath): void {
    if (path.elems.length === 0) this.err('Field path cannot be empty', path.span);
    for (const e of path.elems) if (e.kind === 'index') this.err('Cannot index into an item in a migration path', e.span);
  }

  private migrationBlock(value: FslValue, span: Span): { items: MigrationItem[]; span: Span } | null {
    if (value.kind !== 'Block') {
      this.err('Expected a migration block', value.span);
      return null;
    }
    const items: MigrationItem[] = [];
    for (const node of value.items) {
      const m = node.body;
      if (m === null) {
        this.err('Expected a migration', node.span);
        continue;
      }
      if (!isMigration(m)) {
        this.err('Only migrations are allowed in migration blocks', m.span);
        continue;
      }
      this.noAnnotations(node.annotations);
      this.noName(node.name);
      switch (m.kind) {
        case 'Backfill':
        case 'Drop':
        case 'Add':
          this.checkPath(m.path);
          items.push(m);
          break;
        case 'Split': {
          this.checkPath(m.from);
          m.to.forEach((p) => this.checkPath(p));
          if (m.to.length < 2) this.err('Expected at least two fields to split into', m.span);
          else if (new Set(m.to.map(pathKey)).size < m.to.length) this.err('Expected list of fields with no duplicates', to(m.to[0].span, m.to[m.to.length - 1].span));
          else items.push(m);
          break;
        }
        case 'Move':
          this.checkPath(m.from);
          this.checkPath(m.to);
          items.push(m);
          break;
        case 'MoveConflicts':
        case 'MoveWildcard':
          this.checkPath(m.into);
          items.push(m);
          break;
        case 'AddWildcard':
          items.push(m);
          break;
      }
    }
    if (value.items.length === 0) {
      this.err('Empty migration blocks are not allowed', span);
      return null;
    }
    return { items, span };
  }

  /** `{ predicate ((x) => ...) }`. */
  private predicateBlock(block: FslBlock): Lambda | null {
    if (block.items.length !== 1) {
      this.err('Expected a single predicate member', block.span);
      return null;
    }
    const item = block.items[0];
    if (item.keyword.str !== 'predicate') {
      this.err('Expecting a predicate', item.span);
      return null;
    }
    this.noAnnotations(item.annotations);
    this.noName(item.name);
    const v = this.value(item.body, item.span);
    if (v === null) return null;
    if (v.kind !== 'Lit') {
      this.err('Expected an expression literal', v.span);
      return null;
    }
    const lambda = lambdaOf(v.expr, false);
    if (lambda === null) this.err('Expected lambda predicate', v.expr.span);
    return lambda;
  }

  private checkFunction(v: FslValue): Lambda | null {
    if (v.kind !== 'Lit') {
      this.err('Expected an expression literal', v.span);
      return null;
    }
    const lambda = lambdaOf(v.expr, false);
    if (lambda !== null) return lambda;
    if (v.expr.kind === 'LongLambda' || v.expr.kind === 'ShortLambda') {
      this.emit(error('Expected lambda check predicate', v.expr.span, 'Check constraints require parenthesis around the lambda'));
    } else this.err('Expected lambda check predicate', v.expr.span);
    return null;
  }

  private long(v: FslValue): Spanned<bigint> | null {
    if (v.kind === 'Lit' && v.expr.kind === 'Lit' && v.expr.value.kind === 'Int') return { value: BigInt.asIntN(64, v.expr.value.value), span: v.expr.span };
    this.err('Expected integer literal', v.span);
    return null;
  }

  private str(v: FslValue): Spanned<string> | null {
    if (v.kind === 'Lit' && v.expr.kind === 'Lit' && v.expr.value.kind === 'Str') return { value: v.expr.value.value, span: v.expr.span };
    if (v.kind === 'Lit' && v.expr.kind === 'StrTemplate') {
      for (const p of v.expr.parts) if (typeof p !== 'string') this.err('Cannot interpolate values in a string literal', p.span);
      return null;
    }
    this.err('Expected string literal', v.span);
    return null;
  }

  private bool(v: FslValue): Spanned<boolean> | null {
    if (v.kind === 'Lit' && v.expr.kind === 'Lit' && (v.expr.value.kind === 'True' || v.expr.value.kind === 'False')) {
      return { value: v.expr.value.kind === 'True', span: v.expr.span };
    }
    this.err('Expected boolean literal', v.span);
    return null;
  }

  private indexTerms(v: FslValue): { terms: IndexTerm[]; span: Span } | null {
    if (v.kind !== 'Paths') {
      this.err('Expected an array of terms', v.span);
      return null;
    }
    const terms = v.paths.map((e) => {
      const { path, mva } = this.termPath(e);
      return { path, mva, span: e.span };
    });
    return { terms, span: to(v.open, v.close) };
  }

  private indexValues(v: FslValue): { values: IndexValue[]; span: Span } | null {
    if (v.kind !== 'Paths') {
      this.err('Expected an array of values', v.span);
      return null;
    }
    const values = v.paths.map((e) => ({ ...this.valuePath(e), span: e.span }));
    return { values, span: to(v.open, v.close) };
  }

  /** `.a` or `mva(.a)` (SchemaItemParser.termsFieldPath). */
  private termPath(e: Expr): { path: FieldPath; mva: boolean } {
    const call = callOf(e);
    if (call !== null && call.fn.str === 'mva' && call.arg !== null) return { path: this.path(call.arg), mva: true };
    if (call !== null) {
      this.err("Expected 'mva'", call.fn.span);
      return { path: emptyPath(e.span), mva: false };
    }
    return { path: this.path(e), mva: false };
  }

  /** `.a`, `asc(.a)`, `desc(.a)`, `mva(.a)`, `desc(mva(.a))`... (SchemaItemParser.valuesFieldPath). */
  private valuePath(e: Expr): { path: FieldPath; asc: boolean; mva: boolean } {
    const outer = callOf(e);
    const inner = outer?.arg === null || outer === null ? null : callOf(outer.arg);
    const bad = (sp: Span) => {
      this.err("Expected 'asc', 'desc', or 'mva'", sp);
      return { path: emptyPath(e.span), asc: true, mva: false };
    };
    if (outer !== null && inner !== null && inner.arg !== null) {
      // "asc" < "desc" < "mva": the order comes first, whichever was written outside.
      const [order, mva] = [outer.fn, inner.fn].sort((a, b) => (a.str < b.str ? -1 : a.str > b.str ? 1 : 0));
      if (order.str !== 'asc' && order.str !== 'desc') return bad(order.span);
      if (mva.str !== 'mva') return bad(mva.span);
      return { path: this.path(inner.arg), asc: order.str === 'asc', mva: true };
    }
    if (outer !== null && outer.arg !== null) {
      const fn = outer.fn.str;
      if (fn !== 'asc' && fn !== 'desc' && fn !== 'mva') return bad(outer.fn.span);
      return { path: this.path(outer.arg), asc: fn !== 'desc', mva: fn === 'mva' };
    }
    return { path: this.path(e), asc: true, mva: false };
  }

  private path(e: Expr): FieldPath {
    const r = fieldPathOf(e);
    if ('error' in r) {
      this.emit(r.error);
      return emptyPath(e.span);
    }
    return r;
  }

  private function(v: FslValue, kwSpan: Span, anns: ReadonlyArray<FslAnnotation>, alias: FslAnnotation | null, name: Name, docComment: Span | null): FunctionItem | null {
    if (v.kind !== 'Function') {
      this.err('Expected a function definition', v.span);
      return null;
    }
    const startSpan = docComment ?? anns[0]?.span ?? kwSpan;
    const all = v.variadic === null ? v.args : [...v.args, v.variadic];
    if (all.length > 0) {
      const first = all[0];
      const typed = first.ty !== null;
      for (const arg of all) {
        if (typed && arg.ty === null) {
          this.emit(error('All or no arguments must have a type', arg.name.span, undefined, [{ message: 'Expecting types due to this type annotation', span: first.ty!.ty.span }]));
        } else if (!typed && arg.ty !== null) {
          this.emit(error('All or no arguments must have a type', arg.name.span, undefined, [{ message: 'Expecting no types due to this argument not having a type', span: first.name.span }]));
        }
      }
      if (typed && v.ret === null) {
        this.emit(error('Return type is required when arguments have a type', v.close, undefined, [{ message: 'Expecting types due to this type annotation', span: first.ty!.ty.span }]));
      } else if (!typed && v.ret !== null) {
        this.emit(error('Return type is not allowed when arguments do not have a type', v.ret.ty.span, undefined, [{ message: 'Expecting no types due to this argument not having a type', span: first.name.span }]));
      }
    }
    const role = this.annotation(anns, 'role');
    const args = all.map((a) => ({ name: a.name, ty: a.ty?.ty ?? null, variadic: a === v.variadic }));
    const sig = { args, ret: v.ret?.ty ?? null, span: to(v.open, v.ret?.span ?? v.close) };
    return { kind: 'function', name, alias, role, sig, body: v.body, span: to(startSpan, v.body.span), docComment };
  }
}

function isMigration(v: FslValue): v is MigrationItem {
  switch (v.kind) {
    case 'Backfill': case 'Drop': case 'Split': case 'Move': case 'Add': case 'MoveConflicts': case 'MoveWildcard': case 'AddWildcard':
      return true;
    default:
      return false;
  }
}

/** `(lambda)`, or a bare lambda where `bare` allows it. */
function lambdaOf(e: Expr, bare: boolean): Lambda | null {
  if (bare && (e.kind === 'LongLambda' || e.kind === 'ShortLambda')) return e;
  if (e.kind === 'Tuple' && e.elems.length === 1 && (e.elems[0].kind === 'LongLambda' || e.elems[0].kind === 'ShortLambda')) return e.elems[0];
  return null;
}

/** `f(arg)` as the core's patterns see it: an identifier called once; `arg` null unless one argument. */
function callOf(e: Expr): { fn: Name; arg: Expr | null } | null {
  if (e.kind !== 'MethodChain' || e.e.kind !== 'Id') return null;
  const fn = { str: e.e.str, span: e.e.span };
  const only = e.chain.length === 1 ? e.chain[0] : null;
  return { fn, arg: only !== null && only.kind === 'Apply' && only.args.length === 1 ? only.args[0] : null };
}

function emptyPath(sp: Span): FieldPath {
  return { elems: [], span: { start: 0, end: 0, src: sp.src } };
}
