// A page of documents as a grid: a column per top-level data field (the union of the page's, in
// the order they first appear) after the id and the last write's time; a header click sorts the
// page by that column (again: the other way); a row click opens the document. Sorting and the
// columns are pure (exported for the unit tests); the table is drawn by documentGrid.

import type { JsonValue } from '../wire/expr';
import { renderValue } from '../fqljs/render';
import { h, replace } from './dom';
import { tsElement } from './times';
import { field, refId } from './values';

/** The id, the last write's ts, or one top-level field of the data. */
export type Column = { kind: 'id' } | { kind: 'ts' } | { kind: 'data'; key: string };
export type Direction = 'ascending' | 'descending';
export interface Sort {
  column: Column;
  direction: Direction;
}

/** The page's columns: id, ts, then each data key in the order it first appears. */
export function columnsOf(docs: readonly JsonValue[]): Column[] {
  const keys = new Set<string>();
  for (const doc of docs) {
    const data = field(doc, 'data');
    if (data instanceof Map) for (const k of data.keys()) keys.add(k);
  }
  return [{ kind: 'id' }, { kind: 'ts' }, ...[...keys].map((key): Column => ({ kind: 'data', key }))];
}

const columnLabel = (c: Column): string => (c.kind === 'data' ? c.key : c.kind === 'ts' ? 'last write' : 'id');
const sameColumn = (a: Column, b: Column) => a.kind === b.kind && (a.kind !== 'data' || a.key === (b as { key: string }).key);

/** A document's value in `column`; undefined when it has no such field. */
function cellValue(doc: JsonValue, column: Column): JsonValue | undefined {
  if (column.kind === 'id') return refId(field(doc, 'ref'));
  if (column.kind === 'ts') return field(doc, 'ts');
  return field(field(doc, 'data'), column.key);
}

/** Numbers (any size), then text, then booleans, then anything else by its text; a missing field last. */
function rank(v: JsonValue | undefined): number {
  if (typeof v === 'bigint' || typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  return v === undefined ? 4 : 3;
}

/** Order of two cells of a column; an id that is all digits sorts as the number it is. */
function compareCells(a: JsonValue | undefined, b: JsonValue | undefined): number {
  const num = (v: JsonValue | undefined) => (typeof v === 'string' && /^\d{1,30}$/.test(v) ? BigInt(v) : v);
  const x = num(a);
  const y = num(b);
  const rx = rank(x);
  const ry = rank(y);
  if (rx !== ry) return rx - ry;
  if (rx === 0) return (x as number | bigint) < (y as number | bigint) ? -1 : (x as number | bigint) > (y as number | bigint) ? 1 : 0;
  if (rx === 1) return (x as string).localeCompare(y as string);
  if (rx === 2) return Number(x) - Number(y);
  if (rx === 3) return renderValue(x as JsonValue).localeCompare(renderValue(y as JsonValue));
  return 0;
}

/** The page sorted by `sort` (a missing field stays last both ways); stable. */
export function sortDocs(docs: readonly JsonValue[], sort: Sort): JsonValue[] {
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return [...docs].sort((a, b) => {
    const x = cellValue(a, sort.column);
    const y = cellValue(b, sort.column);
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
    return sign * compareCells(x, y);
  });
}

/** A cell's text: a string as it is (no quotes), anything else as the shell prints it. */
export const cellText = (v: JsonValue | undefined): string => (v === undefined ? '' : typeof v === 'string' ? v : renderValue(v, { width: 1e9 }));

export interface DocumentGrid {
  readonly element: HTMLTableElement;
  /** Draws a page (sorted as the user last chose, when that column is still there). */
  show(docs: readonly JsonValue[], empty: string): void;
  /** A new collection: its first page is drawn in the order it came. */
  reset(): void;
}

export function documentGrid(open: (doc: JsonValue) => void): DocumentGrid {
  const table = h('table', { id: 'documents', class: 'grid' });
  let sort: Sort | undefined;
  let docs: readonly JsonValue[] = [];
  let emptyText = '';

  const cell = (doc: JsonValue, c: Column): HTMLElement => {
    const v = cellValue(doc, c);
    if (c.kind === 'ts') return h('td', { class: 'time' }, tsElement(v));
    const text = cellText(v);
    return h('td', { class: v === undefined ? 'missing' : typeof v === 'bigint' || typeof v === 'number' ? 'number' : undefined, title: text.length > 40 ? text : undefined }, text);
  };
  const draw = () => {
    const columns = columnsOf(docs);
    if (sort && !columns.some((c) => sameColumn(c, sort!.column))) sort = undefined;
    const rows = sort ? sortDocs(docs, sort) : docs;
    const header = (c: Column) => {
      const sorted = sort && sameColumn(sort.column, c) ? sort.direction : undefined;
      const next: Direction = sorted === 'ascending' ? 'descending' : 'ascending';
      const click = () => {
        sort = { column: c, direction: next };
        draw();
      };
      return h('th', { 'aria-sort': sorted ?? 'none', 'data-column': c.kind === 'data' ? `data.${c.key}` : c.kind },
        h('button', { type: 'button', class: 'sort', title: `Sort this page by ${columnLabel(c)}`, onclick: click }, columnLabel(c), sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : ''));
    };
    replace(
      table,
      h('thead', {}, h('tr', {}, ...columns.map(header))),
      h('tbody', {}, ...rows.map((doc) => h('tr', { 'data-id': refId(field(doc, 'ref')), title: 'Open this document', onclick: () => open(doc) }, ...columns.map((c) => cell(doc, c))))),
    );
    if (docs.length === 0) table.append(h('caption', {}, emptyText));
  };
  return {
    element: table,
    show(page, empty) {
      docs = page;
      emptyText = empty;
      draw();
    },
    reset() {
      sort = undefined;
      docs = [];
      replace(table);
    },
  };
}
