// `flora import`: a source (a Fauna snapshot export, driver dumps, a flora export; schema-as-code
// resources) into a database of a Flora server, over its query API. Per database: schema first,
// then documents with their ids and ts, then credentials with their BCrypt hashes, then history.
// Streaming (a few batches in memory), resumable (every write is skipped, or idempotent, when what
// it writes is there), and every record not taken is reported.

import { openSource, type DatabasePath, type FloraItem, type SourceCredential, type SourceDocument } from '../sources';
import type { QueryClient } from '../queryClient';
import { readSchemaFiles, type SchemaResource } from '../schemaFiles';
import { Batcher, type BatchOptions } from './batches';
import { Progress, type ProgressState } from './progress';
import { ImportReport, type ReportBounds } from './report';
import { applySchema, Collections, ensureDatabase, ensureChildDatabase, schemaResourceOf } from './schema';
import { credentialInstancesPage, putCredential, putDocument, putVersion, referencedCollections, type VersionItem } from './statements';
import { encodeJson } from '../../wire/encode';
import { decodeLiteral } from '../../wire/decode';
import { Ref } from '../../values/types';
import { firstSliceEnd, nextTurn } from '../../loop/turns';

export interface ImportOptions {
  /** What to import: a path openSource reads; absent with only `schema`. */
  source?: string;
  /** Schema-as-code resources (a directory or one file), created before the documents. */
  schema?: string;
  /** The server, with a secret of the database `database` is a path below. */
  client: QueryClient;
  /** Target database path below the secret's, `a/b`; created when missing ('' = the secret's own). */
  database: string;
  batch?: Partial<BatchOptions>;
  /** Where progress goes (a terminal gets a bar); none when absent. */
  progress?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Told the counts after every record (a job's state). */
  onProgress?: (state: Readonly<ProgressState>) => void;
  /** A report of bounded size (a job's); every problem listed in full when absent. */
  bounds?: ReportBounds;
}

const DEFAULT_BATCH: BatchOptions = { records: 500, bytes: 4 << 20, inFlight: 4 };
/**
 * A server runs imports on the event loop every request shares: a source read from memory (a run of
 * records or bad lines) yields only microtasks, so the loop is let go at least this often, taking
 * turns with the paused queries (loop/turns.ts).
 */
const SLICE_MS = 10;

/** The snapshot's own collection of credentials (ExportInfo.scala): not a collection to create. */
const CREDENTIAL_COLLECTION = 'Credential';

export async function runImport(opts: ImportOptions): Promise<ImportReport> {
  const report = new ImportReport(opts.bounds);
  const source = opts.source !== undefined ? await openSource(opts.source) : undefined;
  const root = await ensureDatabase(opts.client, opts.database, report);
  if (opts.schema !== undefined) {
    const { resources, problems } = await readSchemaFiles(opts.schema);
    for (const p of problems) report.problem(p, p.reason);
    await applySchema(root, resources, report);
  }
  if (!source) return report;

  const described = source.describe();
  const state: ProgressState = { done: 0, existing: 0, problems: 0, bytesDone: 0, bytesTotal: described.files.reduce((a, f) => a + f.bytes, 0) };
  const progress = opts.progress ? new Progress(opts.progress, 'import') : undefined;
  const targets = new Targets(root, report, state, { ...DEFAULT_BATCH, ...opts.batch });
  // A flora export's schema creates its collections with their settings, before their documents;
  // other sources name collections only (those with no documents are created here).
  if (described.format !== 'flora-export') await targets.of([]).collections.ensure(described.collections.filter((c) => c !== CREDENTIAL_COLLECTION));
  const secrets = { key: 0, token: 0 };

  let sliceEnd = firstSliceEnd(performance.now() + SLICE_MS);
  for await (const item of source.items({ onBytes: (n) => (state.bytesDone += n) })) {
    if (performance.now() > sliceEnd) {
      await nextTurn();
      sliceEnd = performance.now() + SLICE_MS;
    }
    switch (item.kind) {
      case 'document': {
        const t = await targets.ready(item.doc.database);
        await t.collections.ensure(referencedCollections(item.doc.data, new Set([item.doc.collection])));
        await t.documents.add(item.doc);
        break;
      }
      case 'credential':
        await (await targets.ready(item.cred.database)).credential(item.cred);
        break;
      case 'database':
        await targets.database(item);
        break;
      case 'schema':
        targets.of(item.database).schema.push(schemaResourceOf(item));
        break;
      case 'version': {
        const t = await targets.ready(item.database);
        await t.collections.ensure(item.data ? referencedCollections(item.data, new Set([item.collection])) : [item.collection]);
        await t.versions.add(item);
        break;
      }
      case 'key':
      case 'token':
        secrets[item.kind]++;
        break;
      case 'problem':
        report.problem(item, item.reason);
        state.problems++;
        break;
      case 'note':
        report.notes.push(item.text);
        break;
      default:
        throw new Error(`unknown item ${(item as { kind: string }).kind}`);
    }
    progress?.update(state);
    opts.onProgress?.(state);
  }
  await targets.finish();
  if (secrets.key || secrets.token)
    report.notes.push(
      `${secrets.key} key(s) and ${secrets.token} token(s) in the source were not imported: the query API creates keys with new secrets only; ` +
        'create keys for the applications (CreateKey) and let users log in again',
    );
  state.bytesDone = state.bytesTotal;
  progress?.finish(state);
  opts.onProgress?.(state);
  return report;
}

/** What is written into one database of the import: its client, schema, batches. */
interface Target {
  readonly path: DatabasePath;
  readonly client: QueryClient;
  readonly collections: Collections;
  /** Schema documents read but not created yet (created together, before anything else of the database). */
  readonly schema: SchemaResource[];
  schemaDone: boolean;
  readonly documents: Batcher<SourceDocument>;
  readonly versions: Batcher<VersionItem>;
  credential(cred: SourceCredential): Promise<void>;
  flushCredentials(): Promise<void>;
}

class Targets {
  private readonly byPath = new Map<string, Target>();

  constructor(
    private readonly root: QueryClient,
    private readonly report: ImportReport,
    private readonly state: ProgressState,
    private readonly batch: BatchOptions,
  ) {}

  /** The target of `path` below the import's database, its schema created. */
  async ready(path: DatabasePath = []): Promise<Target> {
    const t = this.of(path);
    if (!t.schemaDone) {
      t.schemaDone = true;
      await applySchema(t.client, t.schema.splice(0), this.report);
    }
    return t;
  }

  async database(item: FloraItem & { kind: 'database' }): Promise<void> {
    const parent = await this.ready(item.path.slice(0, -1));
    await ensureChildDatabase(parent.client, item.path, item.document, this.report);
  }

  of(path: DatabasePath = []): Target {
    const key = path.join('/');
    let t = this.byPath.get(key);
    if (!t) this.byPath.set(key, (t = this.create(path, key)));
    return t;
  }

  async finish(): Promise<void> {
    // Documents before credentials (they name them) before history (it rewrites them), everywhere.
    for (const t of [...this.byPath.values()]) await this.ready(t.path);
    for (const t of this.byPath.values()) await t.documents.flush();
    for (const t of this.byPath.values()) await t.flushCredentials();
    for (const t of this.byPath.values()) await t.versions.flush();
  }

  private create(dbPath: DatabasePath, path: string): Target {
    const { report, state, batch } = this;
    const client = this.root.scoped(path);
    const where = (collection: string, id: string) => `${path ? `${path}: ` : ''}${collection}/${id}`;
    const documents = new Batcher<SourceDocument>(client, {
      statement: putDocument,
      done: (doc, answer) => {
        const c = report.counts(path ? `${path}: ${doc.collection}` : doc.collection);
        if (answer === 'skip') (c.existing++, state.existing++);
        else (c.written++, state.done++);
      },
      refused: (doc, e) => {
        report.problem(doc.origin, `${where(doc.collection, doc.id)}: ${e.code}: ${e.description}`);
        state.problems++;
      },
    }, batch);
    const versions = new Batcher<VersionItem>(client, {
      statement: putVersion,
      done: () => report.versions++,
      refused: (v, e) => {
        report.problem({ file: '(history)', line: 0 }, `${where(v.collection, v.id)} at ${v.ts.micros}: ${e.code}: ${e.description}`);
        state.problems++;
      },
    }, batch);
    let credentials: Batcher<SourceCredential> | undefined;
    let have: Set<string> | undefined;
    return {
      path: dbPath,
      client,
      collections: new Collections(client, report),
      schema: [],
      schemaDone: false,
      documents,
      versions,
      async credential(cred) {
        if (!credentials) {
          // Credentials name documents: those are written first.
          await documents.flush();
          have = await credentialInstances(client);
          credentials = new Batcher<SourceCredential>(client, {
            statement: putCredential,
            done: () => report.credentials.written++,
            refused: (c, e) => {
              report.problem(c.origin, `credentials of ${where(c.instance.collection, c.instance.id)}: ${e.code}: ${e.description}`);
              state.problems++;
            },
          }, batch);
        }
        if (have!.has(`${cred.instance.collection}/${cred.instance.id}`)) report.credentials.existing++;
        else await credentials.add(cred);
      },
      flushCredentials: async () => credentials?.flush(),
    };
  }
}

/** The instances that have credentials already, as `collection/id`. */
async function credentialInstances(client: QueryClient): Promise<Set<string>> {
  const out = new Set<string>();
  let after: string | undefined;
  for (;;) {
    const page = (await client.query(credentialInstancesPage(after))).resource;
    if (!(page instanceof Map)) break;
    const data = page.get('data');
    if (Array.isArray(data))
      for (const r of data) {
        const ref = decodeLiteral(r);
        if (ref instanceof Ref && ref.isUserDocument) out.add(`${ref.collection!.id}/${ref.id}`);
      }
    const next = page.get('after');
    if (next === undefined) break;
    after = encodeJson(next);
  }
  return out;
}
