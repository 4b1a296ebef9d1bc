// Snowflake-style ids (fql-v4.md §4.2): ((ms since 2012-05-05T22:20:50Z) << 10 | seq) << 10 | worker.
// 18 decimal digits in the 2020s; strictly increasing within this process. The worker bits tell the
// processes of a tier apart (each holds its number's lease, tier/idWorker.ts), so two processes
// creating in the same millisecond do not make the same id.

const EPOCH_MS = 1336256450000n;
/** How many worker numbers the id has room for. */
export const ID_WORKERS = 1024;
let WORKER = 0n;

/** This process's worker number, 0 ≤ n < ID_WORKERS. */
export function setIdWorker(n: number): void {
  if (!Number.isInteger(n) || n < 0 || n >= ID_WORKERS) throw new RangeError(`id worker ${n} out of range`);
  WORKER = BigInt(n);
}

let lastMs = 0n;
let seq = 0n;

export function newId(): bigint {
  let ms = BigInt(Date.now()) - EPOCH_MS;
  if (ms <= lastMs) {
    ms = lastMs;
    seq++;
    if (seq >= 1024n) {
      ms = lastMs + 1n; // borrow from the next millisecond rather than repeat an id
      seq = 0n;
    }
  } else {
    seq = 0n;
  }
  lastMs = ms;
  return (((ms << 10n) | seq) << 10n) | WORKER;
}

const ZBASE32 = 'ybndrfg8ejkmcpqxot1uwisza345h769';

/** A 64-bit id as 13 z-base-32 characters, 5 bits each from the top (the last char holds 4 bits + 0). */
export function zbase32(id: bigint): string {
  let v = BigInt.asUintN(64, id) << 1n; // 65 bits = 13 × 5
  let out = '';
  for (let i = 12; i >= 0; i--) out += ZBASE32[Number((v >> BigInt(i * 5)) & 31n)];
  return out;
}
