// The order in which a Scala 2.13 immutable Set of strings iterates: the core renders some lists
// straight from a Set (DiffRender's `move_wildcard` line), so matching its text means matching this
// order. Up to four elements a Set keeps them as added (Set1…Set4); from five it is a CHAMP hash
// trie, walked node by node: a node's own elements first, by the 5 bits of their improved hash at
// that depth, then its sub-nodes, in the same order.

/** java.lang.String.hashCode (UTF-16 code units). */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** scala.collection.Hashing.improve. */
function improve(hcode: number): number {
  let h = (hcode + ~(hcode << 9)) | 0;
  h ^= h >>> 14;
  h = (h + (h << 4)) | 0;
  return (h ^ (h >>> 10)) | 0;
}

/** `xs` (distinct) as a Set built from them in this order iterates them. */
export function scalaSetOrder(xs: ReadonlyArray<string>): string[] {
  if (xs.length <= 4) return [...xs];
  return trieOrder(xs.map((x) => ({ x, h: improve(javaHash(x)) })), 0);
}

function trieOrder(entries: ReadonlyArray<{ x: string; h: number }>, shift: number): string[] {
  // Past the last level, equal hashes share a collision node, in the order added.
  if (shift >= 32) return entries.map((e) => e.x);
  const slots = new Map<number, { x: string; h: number }[]>();
  for (const e of entries) {
    const slot = (e.h >>> shift) & 31;
    slots.set(slot, [...(slots.get(slot) ?? []), e]);
  }
  const order = [...slots.keys()].sort((a, b) => a - b);
  const own = order.filter((s) => slots.get(s)!.length === 1).map((s) => slots.get(s)![0].x);
  const below = order.filter((s) => slots.get(s)!.length > 1).flatMap((s) => trieOrder(slots.get(s)!, shift + 5));
  return [...own, ...below];
}
