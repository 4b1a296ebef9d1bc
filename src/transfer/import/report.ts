// What an import did: per collection how many documents were written and how many were already
// there, the records it could not take (where and why), and the source's notes. `flora import`
// reports every record not taken; a report the server keeps (an import job's) is bounded: the first
// maxProblems listed, each reason cut, the rest counted, so a source of nothing but bad lines makes a
// report of bounded size.

import type { Origin } from '../sources';

export interface Problem {
  file: string;
  line: number;
  element?: number;
  reason: string;
}

export interface CollectionCounts {
  written: number;
  existing: number;
}

/** In a bounded report, a problem's reason is cut to this many characters (a parser's message may quote the input). */
const MAX_REASON = 500;

export interface ReportBounds {
  /** Problems listed; beyond them they are counted only (problemsOmitted). */
  maxProblems: number;
}

export class ImportReport {
  readonly collections = new Map<string, CollectionCounts>();
  readonly credentials: CollectionCounts = { written: 0, existing: 0 };
  /** History versions written (a flora export made with --history). */
  versions = 0;
  readonly schema: { created: string[]; existing: string[] } = { created: [], existing: [] };
  readonly problems: Problem[] = [];
  /** Problems beyond the bound, counted only. */
  problemsOmitted = 0;
  readonly notes: string[] = [];

  /** Unbounded (every problem listed in full) without `bounds`. */
  constructor(private readonly bounds?: ReportBounds) {}

  counts(collection: string): CollectionCounts {
    let c = this.collections.get(collection);
    if (!c) this.collections.set(collection, (c = { written: 0, existing: 0 }));
    return c;
  }

  problem(origin: Origin | Problem, reason: string): void {
    if (this.bounds && this.problems.length >= this.bounds.maxProblems) {
      this.problemsOmitted++;
      return;
    }
    if (this.bounds && reason.length > MAX_REASON) reason = `${reason.slice(0, MAX_REASON)}…`;
    this.problems.push({ file: origin.file, line: origin.line, ...(origin.element !== undefined ? { element: origin.element } : {}), reason });
  }

  /** Every record not taken, listed or not. */
  get problemCount(): number {
    return this.problems.length + this.problemsOmitted;
  }

  get written(): number {
    let n = 0;
    for (const c of this.collections.values()) n += c.written;
    return n;
  }

  get existing(): number {
    let n = 0;
    for (const c of this.collections.values()) n += c.existing;
    return n;
  }

  toJSON() {
    return {
      collections: Object.fromEntries(this.collections),
      credentials: this.credentials,
      versions: this.versions,
      schema: this.schema,
      problems: this.problems,
      problems_omitted: this.problemsOmitted,
      notes: this.notes,
    };
  }

  /** The report as a terminal shows it. */
  render(): string {
    const lines: string[] = [];
    if (this.schema.created.length || this.schema.existing.length)
      lines.push(`schema: ${this.schema.created.length} created${this.schema.existing.length ? `, ${this.schema.existing.length} already there` : ''}`);
    const width = Math.max(11, ...[...this.collections.keys()].map((k) => k.length));
    if (this.collections.size || this.credentials.written || this.credentials.existing) lines.push(`${'collection'.padEnd(width)}  ${'written'.padStart(10)}  ${'already there'.padStart(13)}`);
    for (const [name, c] of [...this.collections].sort(([a], [b]) => (a < b ? -1 : 1)))
      lines.push(`${name.padEnd(width)}  ${String(c.written).padStart(10)}  ${String(c.existing).padStart(13)}`);
    if (this.credentials.written || this.credentials.existing)
      lines.push(`${'credentials'.padEnd(width)}  ${String(this.credentials.written).padStart(10)}  ${String(this.credentials.existing).padStart(13)}`);
    if (this.versions) lines.push(`history: ${this.versions} versions written`);
    if (this.problems.length) {
      lines.push(`${this.problemCount} record(s) not imported${this.problemsOmitted ? ` (the first ${this.problems.length} listed)` : ''}:`);
      for (const p of this.problems) lines.push(`  ${p.file}:${p.line}${p.element !== undefined ? ` (element ${p.element})` : ''}: ${p.reason}`);
      if (this.problemsOmitted) lines.push(`  … and ${this.problemsOmitted} more`);
    }
    for (const n of this.notes) lines.push(`note: ${n}`);
    return lines.join('\n');
  }
}
