// The schema API's diffs as the core writes them (fql/schema/DiffRender.scala), in its three
// formats: `semantic` (each item's changes, grouped for a collection), `summary` (a line per item)
// and `textual` (a line diff of each file that changed), without colours or with ANSI ones.

import { displayType } from '../../model/schema10/schemaType';
import type { SchemaItem } from '../fsl/ast';
import { displayExpr, displayPath } from '../fsl/display';
import { NULL_SPAN, type Span } from '../span';
import { ColorText, type ColorKind } from './colorText';
import { diffRows, linesOf, type DiffRow } from './lineDiff';
import { scalaSetOrder } from './scalaSetOrder';
import { CATEGORIES, categoryOf, diffItem, emptyView, type Change, type Config, type Element, type FieldView, type Member, type SchemaItemDiff } from './itemChanges';
import type { SchemaMigration } from './migrationValidator';

export type DiffFormat = 'semantic' | 'summary' | 'textual';

/** Unchanged lines shown around a change, and how many in a row split a hunk (DiffRender). */
const LINES_AROUND = 3;
const LINES_FOR_SPLIT = 7;

const CATEGORY_ORDER = { add: 0, remove: 1, modify: 2 } as const;
const KIND_ORDER = { collection: 0, function: 1, role: 2, 'access provider': 3 } as const;

/** Diff's ordering: additions, removals, modifications; each by kind, then name. */
function sorted(diffs: ReadonlyArray<SchemaItemDiff>): SchemaItemDiff[] {
  return [...diffs].sort(
    (a, b) => CATEGORY_ORDER[a.kind] - CATEGORY_ORDER[b.kind] || KIND_ORDER[a.item.kind] - KIND_ORDER[b.item.kind] || (a.item.name.str < b.item.name.str ? -1 : a.item.name.str > b.item.name.str ? 1 : 0),
  );
}

export function renderSemantic(diffs: ReadonlyArray<SchemaItemDiff>, color: ColorKind): string {
  const r = new Render(color);
  for (const d of sorted(diffs)) {
    if (d.kind === 'modify') {
      r.modifyTitle(d, true);
      r.summary(d.item, d.changes, d.migrations);
    } else {
      const changes = d.kind === 'add' ? diffItem(emptyView(d.item), d.view) : diffItem(d.view, emptyView(d.item));
      r.addRemoveTitle(d.kind, d.item, changes.length > 0);
      if (changes.length > 0) r.summary(d.item, changes, []);
      else r.writeln();
    }
  }
  return r.result;
}

export function renderSummary(diffs: ReadonlyArray<SchemaItemDiff>, color: ColorKind): string {
  const r = new Render(color);
  for (const d of sorted(diffs)) {
    if (d.kind === 'modify') r.modifyTitle(d, false);
    else r.addRemoveTitle(d.kind, d.item, false);
  }
  return r.result;
}

/** Each file whose text differs, by name: a line diff in hunks (line numbers are the new file's). */
export function renderTextual(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>, color: ColorKind): string {
  const r = new Render(color);
  const names = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let first = true;
  for (const name of names) {
    const was = before.get(name) ?? '';
    const now = after.get(name) ?? '';
    if (was === now) continue;
    if (!first) r.writeln();
    first = false;
    r.b.bold();
    r.write(name);
    r.b.reset();
    r.writeln();
    r.fileDiff(was, now);
  }
  return r.result;
}

/** `file:line:col` (Diagnostic.writeSpan). */
function where(span: Span): string {
  const text = span.src.text;
  if (text === undefined) return '<no source>';
  const head = text.slice(0, span.start);
  const line = head.split('\n').length;
  const col = span.start - (head.lastIndexOf('\n') + 1) + 1;
  return `${span.src.name}:${line}:${col}`;
}

class Render {
  readonly b: ColorText;
  private needsIndent = false;
  private level = 0;

  constructor(color: ColorKind) {
    this.b = new ColorText(color);
  }

  get result(): string {
    return this.b.result;
  }

  write(text: string): void {
    if (this.needsIndent && text !== '') this.b.append(' '.repeat(this.level));
    this.b.append(text);
    this.needsIndent = false;
  }

  writeln(text = ''): void {
    this.write(text);
    this.write('\n');
    this.needsIndent = true;
  }

  private indented(f: () => void): void {
    this.level += 2;
    f();
    this.level -= 2;
  }

  addRemoveTitle(kind: 'add' | 'remove', item: SchemaItem, colon: boolean): void {
    this.b.bold();
    this.b.select('blue');
    this.write(`* ${kind === 'add' ? 'Adding' : 'Removing'} ${item.kind} \`${item.name.str}\``);
    this.b.reset();
    this.write(kind === 'add' ? ' to ' : ' from ');
    this.b.append(where(item.span));
    if (colon) this.write(':');
    this.writeln();
  }

  modifyTitle(d: Extract<SchemaItemDiff, { kind: 'modify' }>, colon: boolean): void {
    this.b.bold();
    this.b.select('blue');
    this.write(`* Modifying ${d.before.kind} \`${d.before.name.str}\``);
    this.b.reset();
    this.write(' at ');
    this.b.append(where(d.item.span));
    if (d.before.span.src.name !== d.item.span.src.name) {
      this.write(' (previously defined at ');
      this.b.append(where(d.before.span));
      this.write(')');
    }
    if (colon) this.write(':');
    this.writeln();
  }

  /** renderModifySummary, indented under its title. */
  summary(item: SchemaItem, changes: ReadonlyArray<Change>, migrations: ReadonlyArray<SchemaMigration>): void {
    this.indented(() => {
      let changed = false;
      if (migrations.length > 0) {
        changed = true;
        this.writeln('* Defined fields:');
        for (const m of migrations) this.migration(m);
        this.writeln();
      }
      // A function's, role's or access provider's changes are not grouped.
      if (item.kind !== 'collection') {
        if (changes.length > 0) {
          changed = true;
          for (const c of changes) this.change(c);
          this.writeln();
        }
      } else {
        for (const category of CATEGORIES) {
          const inIt = changes.filter((c) => categoryOf(c) === category);
          if (inIt.length === 0) continue;
          changed = true;
          this.writeln(`* ${category}:`);
          for (const c of inIt) this.change(c);
          this.writeln();
        }
      }
      if (!changed) {
        this.writeln('No semantic changes.');
        this.writeln();
      }
    });
  }

  private colored(color: 'red' | 'green' | 'yellow', text: string): void {
    this.b.select(color);
    this.write(text);
    this.b.reset();
    this.writeln();
  }

  /** renderSchemaMigration: paths, types and values as FQL writes them. */
  private migration(m: SchemaMigration): void {
    switch (m.kind) {
      case 'add':
        if (m.backfill !== null) this.colored('green', `+ add field \`${displayPath(m.field)}\` with backfill \`${displayExpr(m.backfill)}\``);
        return;
      case 'drop': return this.colored('red', `- drop field \`${displayPath(m.field)}\``);
      case 'move': return this.colored('yellow', `~ move field \`${displayPath(m.field)}\` to field \`${displayPath(m.to)}\``);
      case 'split': {
        const source = displayPath(m.source);
        this.colored('yellow', `~ split field \`${source}\` into fields ${m.targets.map((t) => `\`${displayPath(t.path)}\``).join(',')}`);
        this.indented(() =>
          m.targets.forEach((t, i) => {
            const phrase = displayPath(t.path) === source ? 'the value stays in field' : 'the value moves to field';
            this.writeln(`- ${i === 0 ? '' : 'else '}if the value matches type \`${displayType(t.ty)}\`, ${phrase} \`${displayPath(t.path)}\``);
          }),
        );
        for (const t of m.targets) if (t.backfill !== null) this.colored('yellow', `+ backfill field \`${displayPath(t.path)}\` with value \`${displayExpr(t.backfill)}\``);
        return;
      }
      case 'move_conflicts': return this.colored('yellow', `~ move values with type conflicts into \`${displayPath(m.into)}\``);
      case 'move_wildcard': {
        // The core maps its Set of names to a Set of paths, and lists that.
        const kept = scalaSetOrder(m.keep.map((name) => displayPath({ elems: [{ kind: 'field', name, span: NULL_SPAN }], span: NULL_SPAN })));
        return this.colored('yellow', `~ move all fields into the field \`${displayPath(m.into)}\` except fields in the list \`[${kept.join(', ')}]\``);
      }
      case 'add_wildcard': return this.colored('green', '+ add a top-level wildcard');
    }
  }

  private change(c: Change): void {
    switch (c.kind) {
      case 'add':
      case 'remove':
        this.b.select(c.kind === 'add' ? 'green' : 'red');
        this.write(c.kind === 'add' ? '+ add ' : '- remove ');
        this.element(c.element);
        this.b.reset();
        this.writeln();
        return;
      case 'modify':
        this.b.select('yellow');
        this.write('~ change ');
        this.configChange(c.element, c.config);
        this.b.reset();
        this.writeln();
        return;
      case 'block':
        this.b.select('yellow');
        this.write('~ change ');
        this.member(c.member);
        this.b.reset();
        this.writeln();
        this.indented(() => c.changes.forEach((x) => this.change(x)));
        return;
      case 'replaceBody': return this.colored('yellow', '~ change body');
      case 'replaceSig': return this.colored('yellow', '~ change signature');
      case 'rename': return this.colored('yellow', `~ rename to \`${c.to}\``);
      case 'removeFieldDefault': return this.colored('red', `- remove default value from field \`.${c.field.name}\``);
      case 'replaceType':
        // Only a collection's fields change types, and those changes are not shown (category none).
        throw new Error('unreachable: a type change is never rendered');
    }
  }

  private element(e: Element): void {
    if (e.kind === 'annotation') {
      this.write(`${e.ann.keyword} set to `);
      this.config(e.ann.config);
    } else if (e.kind === 'field') this.field(e.field);
    else this.member(e.member);
  }

  private field(f: FieldView): void {
    const prefix = f.kind === 'defined' ? 'field' : f.kind === 'compute' ? 'computed field' : f.implicit ? 'implicit wildcard' : 'wildcard';
    this.write(f.kind === 'wildcard' ? prefix : `${prefix} \`${f.name}\``);
  }

  private member(m: Member): void {
    this.memberKindAndName(m);
    if (m.keyword === 'unique') this.config(m.config);
    else if (!['opt', 'block', 'check', 'migrations'].includes(m.config.kind)) {
      this.write(' set to ');
      this.config(m.config);
    }
  }

  private memberKindAndName(m: Member): void {
    this.write(m.keyword);
    if (m.keyword === 'unique') this.write(' constraint on ');
    else if (m.keyword === 'check') this.write(` constraint \`${m.name}\``);
    else if (m.keyword === 'membership' || m.keyword === 'privileges') this.write(` on \`${m.name}\``);
    else if (m.name !== null) this.write(` \`${m.name}\``);
  }

  private configChange(e: Element, after: Config): void {
    if (e.kind === 'annotation') {
      // The core names the annotation's previous value here.
      this.write(`${e.ann.keyword} set to `);
      this.config(e.ann.config);
    } else if (e.kind === 'field') this.field(e.field);
    else {
      this.memberKindAndName(e.member);
      this.summarizeChange(e.member.config, after);
    }
  }

  private summarizeChange(before: Config, after: Config): void {
    if (before.kind === 'opt' && after.kind === 'opt') {
      if (before.config === null && after.config !== null) {
        this.write(' by adding ');
        this.config(after.config);
      } else if (before.config !== null && after.config === null) {
        this.write(' by removing ');
        this.config(before.config);
      } else if (before.config !== null && after.config !== null) {
        this.write(' by modifying');
        this.summarizeChange(before.config, after.config);
      }
    } else if (before.kind === 'check' && after.kind === 'check') this.write(' body');
    else if (before.kind === 'predicate' && after.kind === 'predicate') this.write(' its predicate');
    else if (!(before.kind === 'migrations' && after.kind === 'migrations')) {
      this.write(' from ');
      this.config(before);
      this.write(' to ');
      this.config(after);
    }
  }

  private config(c: Config): void {
    switch (c.kind) {
      case 'block':
      case 'check':
        return;
      case 'predicate': return this.write('a predicate');
      case 'opt':
        if (c.config !== null) this.config(c.config);
        else this.write('');
        return;
      case 'seq': return this.write(`[${c.configs.map((x) => x.display).join(', ')}]`);
      default: return this.write(c.display);
    }
  }

  /** renderFileDiff: hunks of changed rows with the unchanged lines around them. */
  fileDiff(before: string, after: string): void {
    const rows = diffRows(linesOf(before), linesOf(after));
    let row = 0;
    let afterLine = 0;
    while (row < rows.length) {
      let hunkDist = 0;
      while (row + hunkDist < rows.length && rows[row + hunkDist].tag === 'equal') hunkDist++;
      let hunkRows = 0;
      let hunkLines = 0;
      let unchanged = 0;
      for (let k = row + hunkDist; k < rows.length; k++) {
        if (rows[k].tag === 'equal') unchanged++;
        else {
          hunkRows += unchanged + 1;
          hunkLines += unchanged;
          unchanged = 0;
          // Adds and changes count a line of the new text; deletes do not.
          if (rows[k].tag !== 'delete') hunkLines++;
        }
        if (unchanged >= LINES_FOR_SPLIT) break;
      }
      if (hunkRows === 0) return;
      const startRow = Math.max(row + hunkDist - LINES_AROUND, 0);
      const endRow = Math.min(row + hunkDist + hunkRows + LINES_AROUND, rows.length);
      const startLine = Math.max(afterLine + hunkDist - LINES_AROUND, 0);
      const endLine = Math.min(afterLine + hunkDist + hunkLines + LINES_AROUND, rows.length);
      this.b.select('cyan');
      this.write(`@ line ${startLine + 1} to ${endLine}`);
      this.b.reset();
      this.writeln();
      for (const r of rows.slice(startRow, endRow)) this.row(r);
      row = endRow;
      afterLine = endLine;
    }
  }

  private prefixed(prefix: string, line: string): void {
    if (line === '') {
      if (prefix !== ' ') this.write(prefix);
    } else this.write(`${prefix} ${line}`);
    this.b.reset();
    this.writeln();
  }

  private row(r: DiffRow): void {
    switch (r.tag) {
      case 'insert':
        this.b.select('green');
        return this.prefixed('+', r.newLine);
      case 'delete':
        this.b.select('red');
        return this.prefixed('-', r.oldLine);
      case 'change':
        this.b.select('red');
        this.prefixed('-', r.oldLine);
        this.b.select('green');
        return this.prefixed('+', r.newLine);
      case 'equal':
        return this.prefixed(' ', r.oldLine);
    }
  }
}
