// Keeps the export and import jobs' files (transfer/jobs.ts) to what may still be served: a deleted
// database's jobs are removed once its deletion is seen (the store tells every process of a tier
// about each commit that writes a database document), and every so often the finished jobs past
// the retention, with anything missed.

import type { QueryService } from '../fql/api';
import { NATIVE_IDS } from '../model/catalog';
import { pathOfDatabase } from '../model/databases';
import type { TransferJobs } from '../transfer/jobs';

const SWEEP_EVERY_MS = 3_600_000;
/** A sweep after a database write waits this long (a burst of deletions is swept once). */
const AFTER_WRITE_MS = 200;

export class JobHousekeeping {
  private sweeping = false;
  private again = false;

  constructor(
    private readonly service: QueryService,
    private readonly rootSecret: string,
    private readonly jobs: TransferJobs,
  ) {}

  start(): void {
    this.service.tier?.store.onNativeWrites((_ts, docs) => {
      if (docs === 'all' || docs.some((d) => d.coll === NATIVE_IDS.databases)) setTimeout(() => this.sweep(), AFTER_WRITE_MS).unref();
    });
    setInterval(() => this.sweep(), SWEEP_EVERY_MS).unref();
    void this.jobs.legacyEntries().then((n) => {
      if (n > 0) console.error(`flora: ${n} export/import job file(s) of an earlier version (owned by a database's name) are no longer listed; they are removed once older than the job retention.`);
    }, () => undefined);
    this.sweep();
  }

  /** One sweep now, or one more after the one under way. */
  sweep(): void {
    if (this.sweeping) {
      this.again = true;
      return;
    }
    this.sweeping = true;
    void (async () => {
      do {
        this.again = false;
        await this.jobs.sweep((dbs) => this.existing(dbs)).catch((e: unknown) => console.error(`flora: cannot sweep the export and import jobs: ${(e as Error).message}`));
      } while (this.again);
      this.sweeping = false;
    })();
  }

  /** Which of `dbs` exist, at a snapshot that has every commit made before the call. */
  private async existing(dbs: bigint[]): Promise<Set<bigint>> {
    const shared = this.service.tier?.store.shared ?? false;
    const run = await this.service.transact(
      `Bearer ${this.rootSecret}`,
      async (ctx) => {
        const out = new Set<bigint>();
        for (const db of dbs) if ((await pathOfDatabase(ctx.catalog, ctx.txn, db)) !== undefined) out.add(db);
        return out;
      },
      { readOnly: true, timeoutMs: 30_000, ...(shared ? { lastSeenTxn: this.service.now() } : {}) },
    );
    return run.result;
  }
}
