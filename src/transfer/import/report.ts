// What an import did: per collection how many documents were written and how many were already
// there, every record it could not take (where and why), and the source's notes.

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

export class ImportReport {
  readonly collections = new Map<string, CollectionCounts>();
  readonly credentials: CollectionCounts = { written: 0, existing: 0 };
  /** History versions written (a flora export made with --history). */
  versions = 0;
  readonly schema: { created: string[]; existing: string[] } = { created: [], existing: [] };
  readonly problems: Problem[] = [];
  readonly notes: string[] = [];

  counts(collection: string): CollectionCounts {
    let c = this.collections.get(collection);
    if (!c) this.collections.set(collection, (c = { written: 0, existing: 0 }));
    return c;
  }

  problem(origin: Origin | Problem, reason: string): void {
    this.problems.push({ file: origin.file, line: origin.line, ...(origin.element !== undefined ? { element: origin.element } : {}), reason });
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
      lines.push(`${this.problems.length} record(s) not imported:`);
      for (const p of this.problems) lines.push(`  ${p.file}:${p.line}${p.element !== undefined ? ` (element ${p.element})` : ''}: ${p.reason}`);
    }
    for (const n of this.notes) lines.push(`note: ${n}`);
    return lines.join('\n');
  }
}
