// Brings a data directory to this release's storage format before anything reads it. Each step
// lives with what it converts (model/upgrade, graphql/upgrade); this is where they are put in order.

import type { Engine } from './storage/engine';
import { checkKnown, checkRestored, FORMAT_VERSION, formatRecord, storedFormat } from './storage/format';
import { upgradeRefsByIdentity } from './model/upgrade/refsByIdentity';
import { bindStoredSchemas } from './graphql/upgrade';
import { moveRemovedEntries } from './storage/upgradeRemovals';
import { moveDeletedDocuments } from './storage/upgradeDeletions';

/** Stamps a new store, migrates an older one in place, refuses a newer one or a half-restored one (FormatError). */
export async function upgradeStorage(engine: Engine, log: (line: string) => void): Promise<void> {
  await checkRestored(engine);
  const format = await storedFormat(engine);
  if (format === undefined) return engine.write([formatRecord(FORMAT_VERSION)]);
  checkKnown(format);
  if (format < 2) await upgradeRefsByIdentity(engine, log, [bindStoredSchemas]);
  if (format < 3) await moveRemovedEntries(engine, log);
  if (format < 4) await moveDeletedDocuments(engine, log);
}
