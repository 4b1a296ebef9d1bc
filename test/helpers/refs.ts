// Refs as storage sees them (with addresses), for unit tests of keys and payloads.

import { Ref } from '../../src/values/types';

const collIds = new Map<string, number>();

function collId(name: string): number {
  let id = collIds.get(name);
  if (id === undefined) collIds.set(name, (id = 1024 + collIds.size));
  return id;
}

/** A user collection's ref (collection ids are given in order of first use, from 1024). */
export function collRef(name: string): Ref {
  return new Ref(name, new Ref('collections'), undefined, { db: 0n, coll: 2, id: BigInt(collId(name)) });
}

/** A user document's ref. */
export function docRef(coll: string, id: string): Ref {
  return new Ref(id, collRef(coll), undefined, { db: 0n, coll: collId(coll), id: BigInt(id) });
}

/** A native collection document's ref (tokens, keys, credentials). */
export function nativeDocRef(native: 'keys' | 'tokens' | 'credentials', id: string): Ref {
  const coll = { keys: 7, tokens: 8, credentials: 9 }[native];
  return new Ref(id, Ref.native(native), undefined, { db: 0n, coll, id: BigInt(id) });
}
