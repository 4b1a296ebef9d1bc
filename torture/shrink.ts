// Shrinks a failing JSON input to a shorter one that still fails: greedy, smallest change first
// (drop array elements, halve arrays and strings, replace a subtree by a leaf), within a budget of
// attempts. What "fails" means is the caller's (a 5xx, a hang, a crash).

type Json = unknown;

/** Candidates one step smaller than `v`, most promising first. */
function smaller(v: Json): Json[] {
  if (typeof v === 'string') return v.length > 1 ? [v.slice(0, v.length >> 1), ''] : [];
  if (typeof v === 'number' || typeof v === 'bigint') return v ? [0, Math.trunc(Number(v) / 2)] : [];
  if (Array.isArray(v)) {
    const out: Json[] = [];
    if (v.length > 1) out.push(v.slice(0, v.length >> 1), v.slice(v.length >> 1));
    if (v.length <= 8) for (let i = 0; i < v.length; i++) out.push([...v.slice(0, i), ...v.slice(i + 1)]);
    return out;
  }
  return [];
}

/** Every path to a node of `v`, parents before children. */
function paths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  // Only plain objects are walked: a class instance (a verbatim number token) is a leaf.
  else if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

function get(v: Json, path: (string | number)[]): Json {
  return path.reduce((x: any, k) => x[k], v);
}

function set(v: Json, path: (string | number)[], x: Json): Json {
  if (path.length === 0) return x;
  const [k, ...rest] = path;
  const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
  copy[k] = set(copy[k], rest, x);
  return copy;
}

/** Shrinks `input` while `fails` holds, within `budget` attempts and until `deadline` (Date.now()). */
export async function shrink(input: Json, fails: (v: Json) => Promise<boolean>, budget: number, deadline = Infinity): Promise<Json> {
  let best = input;
  let progress = true;
  while (progress && budget > 0 && Date.now() < deadline) {
    progress = false;
    for (const path of paths(best)) {
      for (const candidate of smaller(get(best, path))) {
        if (budget-- <= 0 || Date.now() >= deadline) return best;
        const next = set(best, path, candidate);
        if (await fails(next)) {
          best = next;
          progress = true;
          break;
        }
      }
      if (progress) break;
    }
  }
  return best;
}
