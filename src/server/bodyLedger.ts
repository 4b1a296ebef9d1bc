// What request bodies hold of the memory every request shares (model/memoryPool.ts), and who holds it.
// A body is charged as its bytes arrive, never by what it declares: to the pool, and to each of its
// owners, the connection it came on, its secret and its client's address. An owner past its share is
// refused (429, as a full pool is) while the pool has room for everyone else: one client, however
// many streams, tokens or connections it opens, cannot take the memory the others need.

import type { MemoryPool } from '../model/memoryPool';
import type { ClientKeys } from '../model/admission';

export interface BodyShares {
  /** Bytes the bodies of one connection (HTTP/1.1 or HTTP/2) may hold at once. */
  perConnection: number;
  /** Bytes the bodies sent with one secret may hold at once (scoped forms of a key count as the key). */
  perSecret: number;
  /** Bytes the bodies from one client address (IPv6: its /64) may hold at once; 0 = no such share. */
  perAddress: number;
}

/** Who a body belongs to: its client (an absent key: no share of that kind applies) and its connection. */
export interface BodyOwners extends ClientKeys {
  /** The connection, by identity (the HTTP/1.1 socket, the HTTP/2 session). */
  connection: object;
}

export class BodyLedger {
  private readonly connections = new Map<object, number>();
  private readonly secrets = new Map<string, number>();
  private readonly addresses = new Map<string, number>();

  constructor(
    readonly pool: MemoryPool,
    readonly shares: BodyShares,
  ) {}

  /** The charge of one body; it takes nothing until bytes arrive. */
  open(owners: BodyOwners): BodyCharge {
    return new BodyCharge(this, owners);
  }

  /** What the bodies of each owner hold now, in bytes (0 when nothing). */
  held(owners: Partial<BodyOwners>): { connection: number; secret: number; address: number } {
    return {
      connection: owners.connection ? (this.connections.get(owners.connection) ?? 0) : 0,
      secret: owners.secret !== undefined ? (this.secrets.get(owners.secret) ?? 0) : 0,
      address: owners.address !== undefined ? (this.addresses.get(owners.address) ?? 0) : 0,
    };
  }

  /** Takes `bytes` for `owners` from every share and the pool, or nothing. */
  take(owners: BodyOwners, bytes: number): boolean {
    const { perConnection, perSecret, perAddress } = this.shares;
    const secret = owners.secret;
    const address = perAddress > 0 ? owners.address : undefined;
    if ((this.connections.get(owners.connection) ?? 0) + bytes > perConnection) return false;
    if (secret !== undefined && (this.secrets.get(secret) ?? 0) + bytes > perSecret) return false;
    if (address !== undefined && (this.addresses.get(address) ?? 0) + bytes > perAddress) return false;
    if (!this.pool.tryReserve(bytes)) return false;
    add(this.connections, owners.connection, bytes);
    if (secret !== undefined) add(this.secrets, secret, bytes);
    if (address !== undefined) add(this.addresses, address, bytes);
    return true;
  }

  /** Gives back `bytes` that `take` took for `owners`. */
  give(owners: BodyOwners, bytes: number): void {
    if (bytes <= 0) return;
    this.pool.release(bytes);
    add(this.connections, owners.connection, -bytes);
    if (owners.secret !== undefined) add(this.secrets, owners.secret, -bytes);
    if (this.shares.perAddress > 0 && owners.address !== undefined) add(this.addresses, owners.address, -bytes);
  }
}

/** Entries go when they reach 0: the maps hold only owners with bytes in flight. */
function add<K>(map: Map<K, number>, key: K, bytes: number): void {
  const n = (map.get(key) ?? 0) + bytes;
  if (n > 0) map.set(key, n);
  else map.delete(key);
}

/** What one body holds. Released once: later releases, and bytes offered after it, do nothing. */
export class BodyCharge {
  private bytes = 0;
  private released = false;

  constructor(
    private readonly ledger: BodyLedger,
    private readonly owners: BodyOwners,
  ) {}

  get held(): number {
    return this.bytes;
  }

  /** Charges `n` more bytes; false (nothing charged) when an owner's share or the pool has no room. */
  add(n: number): boolean {
    if (this.released || !this.ledger.take(this.owners, n)) return false;
    this.bytes += n;
    return true;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.ledger.give(this.owners, this.bytes);
    this.bytes = 0;
  }
}

/** The share a secret counts against: a scoped secret (`key:database:role`) counts as its key. */
export function secretKey(secret: string | undefined): string | undefined {
  if (!secret) return undefined;
  const colon = secret.indexOf(':');
  return colon < 0 ? secret : secret.slice(0, colon);
}

/** The ledger of a pool: one for every listener that shares it (the main and the GraphQL port). */
const ledgers = new WeakMap<MemoryPool, BodyLedger>();

export function ledgerOf(pool: MemoryPool, shares: BodyShares): BodyLedger {
  let ledger = ledgers.get(pool);
  if (!ledger) ledgers.set(pool, (ledger = new BodyLedger(pool, shares)));
  return ledger;
}
