// Decoding that names stored refs may stop when the namer lacks names (see TxnNames); this runs it
// again once they are loaded.

import type { TxnNames } from './types';

/** `decode()` again after `names.load` of what made the first attempt throw `first`. */
export async function decodeAgain<T>(first: unknown, names: TxnNames | undefined, decode: () => T): Promise<T> {
  let error = first;
  // Each load brings one database's names (kept for the transaction), so every round makes progress;
  // a value naming refs across many databases takes a round per database. The cap only guards
  // against a namer that would never have what it asks for.
  for (let misses = 0; names && misses < 4096; misses++) {
    await names.load(error);
    try {
      return decode();
    } catch (e) {
      error = e;
    }
  }
  throw error;
}
