// Keeps the job files of the data directory to what may still be served. The export and import jobs
// of a deleted database (transfer/jobs.ts) are removed once its deletion is heard (the store tells
// every process of a tier about each commit that writes a database document): a short pass, at most
// one pending, that every process runs (on PostgreSQL each machine has a data directory of its
// own). At start and then hourly, the finished jobs past the retention go, exports, imports and
// backups (backup/jobs.ts), with any deletion missed; where processes share the data directory (the
// workers of an LMDB tier), one of them at a time, under a lease.

import type { BackupJobs } from '../backup/jobs';
import type { QueryService } from '../fql/api';
import { NATIVE_IDS } from '../model/catalog';
import { pathOfDatabase } from '../model/databases';
import type { Leases } from '../tier/leases';
import type { TransferJobs } from '../transfer/jobs';
import { log } from '../diag/log';

const PRUNE_EVERY_MS = 3_600_000;
/** The pass after a database write waits this long (a burst of deletions is swept once). */
const AFTER_WRITE_MS = 200;
const LEASE = 'jobs:housekeeping';

export class JobHousekeeping {
  private afterWrite: NodeJS.Timeout | undefined;
  /** The latest commit heard of that wrote a database document (a deletion, a rename). */
  private deletedBy = 0n;
  private hourly: NodeJS.Timeout | undefined;
  /** The pass under way: passes run one at a time. */
  private work: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly service: QueryService,
    private readonly rootSecret: string,
    private readonly transfers: TransferJobs,
    private readonly backups: BackupJobs,
    /** The tier's leases when other processes share the data directory; undefined: this one alone prunes it. */
    private readonly sharedDir: Leases | undefined,
  ) {}

  start(): void {
    this.service.tier?.store.onNativeWrites((ts, docs) => {
      if (docs !== 'all' && !docs.some((d) => d.coll === NATIVE_IDS.databases)) return;
      // Told at validation, before the commit is durable: the pass reads at a snapshot that has it.
      if (ts > this.deletedBy) this.deletedBy = ts;
      this.goneSoon();
    });
    this.hourly = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.hourly.unref();
    void this.transfers.legacyEntries().then((n) => {
      if (n > 0) log.warn(`${n} export/import job file(s) of an earlier version (owned by a database's name) are no longer listed; they are removed once older than the job retention.`);
    }, () => undefined);
    void this.prune();
  }

  /** No pass from now on; resolves once the one under way is done. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.afterWrite);
    clearInterval(this.hourly);
    await this.work;
  }

  /** The jobs of deleted databases removed AFTER_WRITE_MS from now, unless that is pending already. */
  private goneSoon(): void {
    if (this.afterWrite || this.closed) return;
    this.afterWrite = setTimeout(() => {
      this.afterWrite = undefined;
      void this.pass(() => this.removeGone());
    }, AFTER_WRITE_MS);
    this.afterWrite.unref();
  }

  /** The jobs of deleted databases, then the finished jobs and backups past the retention. */
  private prune(): Promise<void> {
    return this.pass(async () => {
      await this.removeGone();
      const prune = async () => {
        await this.transfers.prune();
        await this.backups.prune();
      };
      if (this.sharedDir) await this.sharedDir.holding(LEASE, prune);
      else await prune();
    });
  }

  private removeGone(): Promise<void> {
    return this.transfers.removeGone((dbs) => this.existing(dbs));
  }

  /** Runs `pass` after the one under way (none once closed). */
  private pass(pass: () => Promise<void>): Promise<void> {
    this.work = this.work
      .then(() => (this.closed ? undefined : pass()))
      .catch((e: unknown) => {
        // Closing, the store may go before a pass in flight is done: nothing is lost, the next start sweeps.
        if (!this.closed) log.error(`cannot sweep the export, import and backup jobs: ${(e as Error).message}`);
      });
    return this.work;
  }

  /** Which of `dbs` exist, at a snapshot that has every commit to the databases this process heard of. */
  private async existing(dbs: bigint[]): Promise<Set<bigint>> {
    const run = await this.service.transact(
      `Bearer ${this.rootSecret}`,
      async (ctx) => {
        const out = new Set<bigint>();
        for (const db of dbs) if ((await pathOfDatabase(ctx.catalog, ctx.txn, db)) !== undefined) out.add(db);
        return out;
      },
      { readOnly: true, timeoutMs: 30_000, lastSeenTxn: this.deletedBy },
    );
    return run.result;
  }
}
