// FQL and FSL written back as source (Display.scala `Displayer`): expressions, types, field paths
// and schema items, formatted as the core formats them: what `fauna schema pull` shows for an item
// and the strings a pushed item stores (a computed field's body, a default, a signature).
//
// Expressions are written from the tree, as the core does: operators without parentheses other
// than the ones written (kept as tuples), blocks and objects over several lines, two spaces a level.

import type { Expr, Literal, Stmt, TypeExpr } from '../ast';
import { THIS_NAME } from '../ast';
import { displayString } from '../parser/display';
import { isValidIdent } from '../parser/identifiers';
import type { Field, FieldPath, IndexTerm, IndexValue, Lambda, MigrationItem, SchemaItem, SchemaTypeExpr } from './ast';


/** Builds text line by line, indenting each line as it starts. */
class Displayer {
  out = '';
  private depth = 0;
  private needsIndent = true;

  write(v: string): void {
    if (this.needsIndent) {
      this.out += '  '.repeat(this.depth);
      this.needsIndent = false;
    }
    this.out += v;
    if (v.endsWith('\n')) this.needsIndent = true;
  }

  writeln(v = ''): void {
    this.write(v);
    this.write('\n');
  }

  indent(): void {
    this.depth++;
  }

  deindent(): void {
    this.depth--;
  }

  commaSeparated<T>(items: ReadonlyArray<T>, f: (t: T) => void): void {
    items.forEach((t, i) => {
      f(t);
      if (i !== items.length - 1) this.write(', ');
    });
  }

  commaSeparatedNewlines<T>(items: ReadonlyArray<T>, f: (t: T) => void): void {
    items.forEach((t, i) => {
      f(t);
      if (i !== items.length - 1) this.write(',');
      this.writeln('');
    });
  }

  ident(v: string): void {
    this.write(isValidIdent(v) ? v : displayString(v));
  }

  lit(l: Literal): void {
    switch (l.kind) {
      case 'Null': return this.write('null');
      case 'True': return this.write('true');
      case 'False': return this.write('false');
      case 'Int': return this.write(l.value.toString());
      case 'Float': return this.write(l.text);
      case 'Str': return this.write(displayString(l.value));
    }
  }

  expr(e: Expr): void {
    switch (e.kind) {
      case 'Id':
        if (e.str !== THIS_NAME) this.write(e.str);
        return;
      case 'Lit':
        return this.lit(e.value);
      case 'StrTemplate':
        this.write('"');
        for (const p of e.parts) {
          if (typeof p === 'string') this.write(displayString(p).slice(1, -1));
          else {
            this.write('#{');
            this.expr(p);
            this.write('}');
          }
        }
        this.write('"');
        return;
      case 'If':
      case 'IfElse':
        this.write('if (');
        this.expr(e.pred);
        this.write(') ');
        this.expr(e.then);
        if (e.kind === 'IfElse') {
          this.write(' else ');
          this.expr(e.else);
        }
        return;
      case 'At':
        this.write('at (');
        this.expr(e.ts);
        this.write(') ');
        this.expr(e.body);
        return;
      case 'Match':
        // The core cannot write `match` back either (Display.scala: "unimplemented").
        throw new Error('match expressions cannot be displayed');
      case 'LongLambda': {
        this.write('(');
        const params = e.params.map((p) => (p === null ? '_' : p.str));
        if (e.variadic !== null) params.push(e.variadic.name === null ? '..._' : `...${e.variadic.name.str}`);
        this.commaSeparated(params, (p) => this.write(p));
        this.write(') => ');
        this.expr(e.body);
        return;
      }
      case 'ShortLambda':
        return this.expr(e.body);
      case 'OperatorCall':
        if (e.arg === null) {
          this.write(e.op.str);
          this.expr(e.e);
        } else {
          this.expr(e.e);
          this.write(` ${e.op.str} `);
          this.expr(e.arg);
        }
        return;
      case 'Project':
        this.expr(e.e);
        this.writeln(' {');
        this.indent();
        this.commaSeparatedNewlines(e.bindings, ([n, v]) => {
          this.ident(n.str);
          this.write(': ');
          this.expr(v);
        });
        this.deindent();
        this.writeln('}');
        return;
      case 'ProjectAll':
        this.expr(e.e);
        this.writeln(' { * }');
        return;
      case 'Object':
        this.writeln('{');
        this.indent();
        this.commaSeparatedNewlines(e.fields, ([n, v]) => {
          this.ident(n.str);
          this.write(': ');
          this.expr(v);
        });
        this.deindent();
        this.write('}');
        return;
      case 'Tuple':
        this.write('(');
        this.commaSeparated(e.elems, (x) => this.expr(x));
        this.write(')');
        return;
      case 'Array':
        this.write('[');
        this.commaSeparated(e.elems, (x) => this.expr(x));
        this.write(']');
        return;
      case 'Block':
        this.writeln('{');
        this.indent();
        this.body(e.body);
        this.deindent();
        this.write('}');
        return;
      case 'MethodChain':
        this.expr(e.e);
        for (const l of e.chain) {
          switch (l.kind) {
            case 'Bang':
              this.write('!');
              break;
            case 'Select':
              this.write(l.optional ? '?.' : '.');
              this.write(l.field.str);
              break;
            case 'Apply':
              if (l.optional !== null) this.write('?.');
              this.write('(');
              this.commaSeparated(l.args, (x) => this.expr(x));
              this.write(')');
              break;
            case 'Access':
              if (l.optional !== null) this.write('?.');
              this.write('[');
              this.commaSeparated(l.args, (x) => this.expr(x));
              this.write(']');
              break;
            case 'MethodCall':
              this.write(l.selectOptional ? '?.' : '.');
              this.write(l.field.str);
              if (l.applyOptional !== null) this.write('?.');
              this.write('(');
              this.commaSeparated(l.args, (x) => this.expr(x));
              this.write(')');
              break;
          }
        }
        return;
    }
  }

  body(stmts: ReadonlyArray<Stmt>): void {
    for (const s of stmts) {
      if (s.kind === 'Let') {
        this.write(`let ${s.name.str}`);
        if (s.tpe !== null) this.write(`: ${displayType(s.tpe)}`);
        this.write(' = ');
        this.expr(s.value);
      } else this.expr(s.expr);
      this.writeln('');
    }
  }

  path(p: FieldPath): void {
    let first = true;
    for (const e of p.elems) {
      if (e.kind === 'field' && isValidIdent(e.name)) this.write(`.${e.name}`);
      else {
        if (first) this.write('.');
        this.write(`[${e.kind === 'field' ? displayString(e.name) : String(e.index)}]`);
      }
      first = false;
    }
  }

  term(t: IndexTerm): void {
    if (t.mva) this.write('mva(');
    this.path(t.path);
    if (t.mva) this.write(')');
  }

  value(v: IndexValue): void {
    if (!v.asc) this.write('desc(');
    this.term(v);
    if (!v.asc) this.write(')');
  }

  // ---- FSL ----

  item(item: SchemaItem): void {
    const anns = item.kind === 'collection' ? [item.alias] : item.kind === 'function' ? [item.alias, item.role] : [];
    for (const a of anns) {
      if (a === null) continue;
      this.write(`@${a.keyword.str}(`);
      this.ident(a.value.str);
      this.writeln(')');
    }
    this.write(`${item.kind} `);
    this.ident(item.name.str);
    if (item.kind === 'function') {
      this.write('(');
      this.commaSeparated(item.sig.args, (a) => {
        this.write(`${a.variadic ? '...' : ''}${a.name.str}`);
        if (a.ty !== null) this.write(`: ${displayType(a.ty)}`);
      });
      this.write(')');
      if (item.sig.ret !== null) this.write(`: ${displayType(item.sig.ret)}`);
      this.write(' ');
      this.expr(item.body);
      this.writeln();
      return;
    }
    this.writeln(' {');
    this.indent();
    switch (item.kind) {
      case 'collection':
        item.fields.forEach((f) => this.field(f));
        for (const i of item.indexes) {
          this.write('index ');
          this.ident(i.name.str);
          this.writeln(' {');
          this.indent();
          if (i.terms !== null) this.member('terms', () => this.list(i.terms!.terms, (t) => this.term(t)));
          if (i.values !== null) this.member('values', () => this.list(i.values!.values, (v) => this.value(v)));
          this.deindent();
          this.writeln('}');
        }
        for (const u of item.uniques) this.member('unique', () => this.list(u.terms, (t) => this.term(t)));
        for (const c of item.checks) {
          this.write('check ');
          this.ident(c.name.str);
          this.write(' (');
          this.expr(c.predicate);
          this.writeln(')');
        }
        if (item.historyDays.span !== null) this.member('history_days', () => this.write(String(item.historyDays.value)));
        if (item.ttlDays !== null) this.member('ttl_days', () => this.write(String(item.ttlDays!.value)));
        if (item.documentTTLs !== null) this.member('document_ttls', () => this.write(String(item.documentTTLs!.value)));
        if (item.migrations !== null) {
          const items = item.migrations.items;
          this.member('migrations', () => {
            this.writeln('{');
            this.indent();
            items.forEach((m) => this.migration(m));
            this.deindent();
            this.write('}');
          });
        }
        break;
      case 'role':
        for (const p of item.privileges) {
          this.write('privileges ');
          this.ident(p.resource.str);
          this.writeln(' {');
          this.indent();
          for (const a of p.actions) {
            this.write(a.action);
            if (a.predicate !== null) {
              this.write(' ');
              this.predicate(a.predicate);
            }
            this.writeln();
          }
          this.deindent();
          this.writeln('}');
        }
        for (const m of item.membership) this.named('membership', m.name.str, m.predicate);
        break;
      case 'access provider':
        this.member('issuer', () => this.write(displayString(item.issuer.value)));
        this.member('jwks_uri', () => this.write(displayString(item.jwksUri.value)));
        for (const r of item.roles) this.named('role', r.name.str, r.predicate);
        break;
    }
    this.deindent();
    this.writeln('}');
  }

  private member(keyword: string, value: () => void): void {
    this.write(`${keyword} `);
    value();
    this.writeln();
  }

  private named(keyword: string, name: string, predicate: Lambda | null): void {
    this.write(`${keyword} `);
    this.ident(name);
    if (predicate !== null) {
      this.write(' ');
      this.predicate(predicate);
    }
    this.writeln();
  }

  private list<T>(items: ReadonlyArray<T>, f: (t: T) => void): void {
    this.write('[');
    this.commaSeparated(items, f);
    this.write(']');
  }

  private predicate(l: Lambda): void {
    this.writeln('{');
    this.indent();
    this.write('predicate (');
    this.expr(l);
    this.writeln(')');
    this.deindent();
    this.write('}');
  }

  private field(f: Field): void {
    if (f.kind === 'computed') this.write('compute ');
    this.write(f.kind === 'wildcard' ? '*' : f.name.str);
    if (f.kind === 'defined') this.write(`: ${displaySchemaType(f.ty)}`);
    else if (f.ty !== null) this.write(`: ${displayType(f.ty)}`);
    if (f.kind === 'defined' && f.default !== null) {
      this.write(' = ');
      this.expr(f.default);
    } else if (f.kind === 'computed') {
      this.write(' = ');
      if (f.value.kind === 'ShortLambda') this.write('(');
      this.expr(f.value);
      if (f.value.kind === 'ShortLambda') this.write(')');
    }
    this.writeln();
  }

  private migration(m: MigrationItem): void {
    switch (m.kind) {
      case 'Backfill':
        this.write('backfill ');
        this.path(m.path);
        this.write(' = ');
        this.expr(m.value.expr);
        break;
      case 'Drop':
      case 'Add':
        this.write(m.kind === 'Drop' ? 'drop ' : 'add ');
        this.path(m.path);
        break;
      case 'Split':
        this.write('split ');
        this.path(m.from);
        this.write(' -> ');
        this.commaSeparated(m.to, (p) => this.path(p));
        break;
      case 'Move':
        this.write('move ');
        this.path(m.from);
        this.write(' -> ');
        this.path(m.to);
        break;
      case 'MoveConflicts':
      case 'MoveWildcard':
        this.write(m.kind === 'MoveConflicts' ? 'move_conflicts ' : 'move_wildcard ');
        this.path(m.into);
        break;
      case 'AddWildcard':
        this.write('add_wildcard');
        break;
    }
    this.writeln();
  }
}

function run(f: (d: Displayer) => void): string {
  const d = new Displayer();
  f(d);
  return d.out;
}

export function displayExpr(e: Expr): string {
  return run((d) => d.expr(e));
}

/** A field path as FQL writes it (`.a.b`, `.["a b"][0]`). */
export function displayPath(p: FieldPath): string {
  return run((d) => d.path(p));
}

/** A schema item as FSL, ending with a newline. */
export function displayItem(item: SchemaItem): string {
  return run((d) => d.item(item));
}

const fieldName = (n: string) => (isValidIdent(n) ? n : `"${n}"`);

/** A type as FQL writes it, with the parentheses precedence needs. */
export function displayType(t: TypeExpr): string {
  const go = (t: TypeExpr, prec: number): string => {
    switch (t.kind) {
      case 'Any': return 'Any';
      case 'Never': return 'Never';
      case 'Singleton': return run((d) => d.lit(t.value));
      case 'TypeId': return t.str;
      case 'Cons': return `${t.name.str}<${t.targs.map((a) => go(a, 0)).join(', ')}>`;
      case 'TypeObject': {
        const elems = t.fields.map(([n, f]) => `${fieldName(n.str)}: ${go(f, 0)}`);
        if (t.wildcard !== null) elems.push(`*: ${go(t.wildcard, 0)}`);
        return elems.length === 0 ? '{}' : `{ ${elems.join(', ')} }`;
      }
      case 'Interface': {
        const elems = t.fields.map(([n, f]) => `${fieldName(n.str)}: ${go(f, 0)}`);
        return elems.length === 0 ? '{}' : `{ ${elems.join(', ')}, ... }`;
      }
      case 'TypeTuple': return `[${t.elems.map((e) => go(e, 0)).join(', ')}]`;
      case 'TypeLambda': {
        let s: string;
        if (t.params.length === 1 && t.variadic === null) {
          const [name, p] = t.params[0];
          s = name !== null ? `(${name.str}: ${go(p, 11)}) => ${go(t.ret, 10)}` : `${go(p, 11)} => ${go(t.ret, 10)}`;
        } else {
          const args = t.params.map(([n, p]) => (n !== null ? `${n.str}: ${go(p, 10)}` : go(p, 10)));
          if (t.variadic !== null) {
            const [n, v] = t.variadic;
            args.push(n !== null ? `${n.str}: ...${go(v, 10)}` : `...${go(v, 10)}`);
          }
          s = `(${args.join(', ')}) => ${go(t.ret, 10)}`;
        }
        return prec > 10 ? `(${s})` : s;
      }
      case 'Union': {
        const s = t.members.map((m) => go(m, 20)).join(' | ');
        return prec > 20 ? `(${s})` : s;
      }
      case 'Intersect': {
        const s = t.members.map((m) => go(m, 30)).join(' & ');
        return prec > 30 ? `(${s})` : s;
      }
      case 'Nullable': return `${go(t.base, 50)}?`;
    }
  };
  return go(t, 0);
}

/** A field's type with its defaults. */
export function displaySchemaType(t: SchemaTypeExpr): string {
  if (t.kind === 'Simple') return displayType(t.ty);
  const elems = t.fields.map((f) => `${fieldName(f.name.str)}: ${displaySchemaType(f.ty)}${f.default === null ? '' : ` = ${displayExpr(f.default)}`}`);
  if (t.wildcard !== null) elems.push(`*: ${displayType(t.wildcard)}`);
  return elems.length === 0 ? '{}' : `{ ${elems.join(', ')} }`;
}
