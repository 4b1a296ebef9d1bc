// `flora import`: a source (a Fauna snapshot export, driver dumps; schema-as-code resources) into a
// database of a Flora server, over its query API. Schema first, then documents with their ids and
// ts, then credentials with their BCrypt hashes. Streaming (a few batches in memory), resumable
// (every write is skipped when what it writes is there), and every record not taken is reported.

import { openSource, type SourceCredential, type SourceDocument, type SourceItem } from '../sources';
import type { QueryClient } from '../queryClient';
import { readSchemaFiles } from '../schemaFiles';
import { Batcher, type BatchOptions } from './batches';
import { Progress } from './progress';
import { ImportReport } from './report';
import { applySchema, Collections, ensureDatabase } from './schema';
import { credentialInstancesPage, putCredential, putDocument, referencedCollections } from './statements';
import { encodeJson } from '../../wire/encode';
import type { JsonValue } from '../../wire/expr';

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
}

const DEFAULT_BATCH: BatchOptions = { records: 500, bytes: 4 << 20, inFlight: 4 };

/** The snapshot's own collection of credentials (ExportInfo.scala): not a collection to create. */
const CREDENTIAL_COLLECTION = 'Credential';

export async function runImport(opts: ImportOptions): Promise<ImportReport> {
  const report = new ImportReport();
  const source = opts.source !== undefined ? await openSource(opts.source) : undefined;
  const client = await ensureDatabase(opts.client, opts.database, report);
  if (opts.schema !== undefined) {
    const { resources, problems } = await readSchemaFiles(opts.schema);
    for (const p of problems) report.problem(p, p.reason);
    await applySchema(client, resources, report);
  }
  if (!source) return report;

  const described = source.describe();
  const collections = new Collections(client, report);
  await collections.ensure(described.collections.filter((c) => c !== CREDENTIAL_COLLECTION));
  const batch = { ...DEFAULT_BATCH, ...opts.batch };
  const state = { done: 0, existing: 0, problems: 0, bytesDone: 0, bytesTotal: described.files.reduce((a, f) => a + f.bytes, 0) };
  const progress = opts.progress ? new Progress(opts.progress, 'import') : undefined;

  const documents = new Batcher<SourceDocument>(client, {
    statement: putDocument,
    done: (doc, answer) => {
      const c = report.counts(doc.collection);
      if (answer === 'skip') (c.existing++, state.existing++);
      else (c.written++, state.done++);
    },
    refused: (doc, e) => {
      report.problem(doc.origin, `${doc.collection}/${doc.id}: ${e.code}: ${e.description}`);
      state.problems++;
    },
  }, batch);
  let credentials: Batcher<SourceCredential> | undefined;
  let haveCredentials: Set<string> | undefined;

  const onItem = async (item: SourceItem) => {
    switch (item.kind) {
      case 'document': {
        const doc = item.doc;
        await collections.ensure(referencedCollections(doc.data, new Set([doc.collection])));
        await documents.add(doc);
        break;
      }
      case 'credential': {
        const cred = item.cred;
        if (!credentials) {
          // Credentials name documents: those are written first.
          await documents.flush();
          haveCredentials = await credentialInstances(client);
          credentials = new Batcher<SourceCredential>(client, {
            statement: putCredential,
            done: () => report.credentials.written++,
            refused: (c, e) => {
              report.problem(c.origin, `credentials of ${c.instance.collection}/${c.instance.id}: ${e.code}: ${e.description}`);
              state.problems++;
            },
          }, batch);
        }
        if (haveCredentials!.has(`${cred.instance.collection}/${cred.instance.id}`)) report.credentials.existing++;
        else await credentials.add(cred);
        break;
      }
      case 'problem':
        report.problem(item, item.reason);
        state.problems++;
        break;
      case 'note':
        report.notes.push(item.text);
        break;
    }
    progress?.update(state);
  };
  for await (const item of source.items({ onBytes: (n) => (state.bytesDone += n) })) await onItem(item);
  await documents.flush();
  await credentials?.flush();
  state.bytesDone = state.bytesTotal;
  progress?.finish(state);
  return report;
}

/** The instances that have credentials already, as `collection/id`. */
async function credentialInstances(client: QueryClient): Promise<Set<string>> {
  const out = new Set<string>();
  let after: string | undefined;
  for (;;) {
    const page = (await client.query(credentialInstancesPage(after))).resource;
    if (!(page instanceof Map)) break;
    const data = page.get('data');
    if (Array.isArray(data)) for (const r of data) {
      const ref = refParts(r);
      if (ref) out.add(`${ref.collection}/${ref.id}`);
    }
    const next = page.get('after');
    if (next === undefined) break;
    after = encodeJson(next);
  }
  return out;
}

/** `{"@ref":{"id":…,"collection":{"@ref":{"id":<collection>,…}}}}` → its collection and id. */
function refParts(v: JsonValue): { collection: string; id: string } | undefined {
  const ref = v instanceof Map ? v.get('@ref') : undefined;
  const coll = ref instanceof Map ? ref.get('collection') : undefined;
  const collRef = coll instanceof Map ? coll.get('@ref') : undefined;
  if (!(ref instanceof Map) || !(collRef instanceof Map)) return undefined;
  return { collection: String(collRef.get('id')), id: String(ref.get('id')) };
}

