// Sets of code points for the Java → RE2 translation (javaRegex.ts): sorted range lists with
// union / intersection / complement, Unicode properties as ranges, and case folding.
//
// RE2 has general categories and scripts but no binary properties (Alphabetic, White_Space, …),
// no class intersection and no case folding we can scope the way Java does, so the translator
// computes those sets itself and hands RE2 explicit ranges. Property ranges come from V8's own
// Unicode data (`\p{…}` in a JS RegExp), computed on first use and kept: a property costs a few
// milliseconds once per process.

/** Largest code point. */
export const MAX_CP = 0x10ffff;

/**
 * A set of code points: sorted, disjoint, non-adjacent inclusive ranges, flattened
 * ([lo0, hi0, lo1, hi1, …]). Treat as immutable.
 */
export type Ranges = readonly number[];

export const EMPTY: Ranges = Object.freeze([]);
export const ALL: Ranges = Object.freeze([0, MAX_CP]);

export function single(cp: number): Ranges {
  return [cp, cp];
}

/** Normalizes any list of [lo, hi] pairs (unsorted, overlapping) into Ranges. */
export function normalize(pairs: readonly number[]): Ranges {
  const idx: number[] = [];
  for (let i = 0; i < pairs.length; i += 2) idx.push(i);
  idx.sort((a, b) => pairs[a] - pairs[b]);
  const out: number[] = [];
  for (const i of idx) {
    const lo = pairs[i];
    const hi = pairs[i + 1];
    if (out.length > 0 && lo <= out[out.length - 1] + 1) {
      if (hi > out[out.length - 1]) out[out.length - 1] = hi;
    } else out.push(lo, hi);
  }
  return out;
}

export function union(a: Ranges, b: Ranges): Ranges {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return normalize([...a, ...b]);
}

export function complement(a: Ranges): Ranges {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < a.length; i += 2) {
    if (a[i] > next) out.push(next, a[i] - 1);
    next = a[i + 1] + 1;
  }
  if (next <= MAX_CP) out.push(next, MAX_CP);
  return out;
}

export function intersect(a: Ranges, b: Ranges): Ranges {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i], b[j]);
    const hi = Math.min(a[i + 1], b[j + 1]);
    if (lo <= hi) out.push(lo, hi);
    if (a[i + 1] < b[j + 1]) i += 2;
    else j += 2;
  }
  return out;
}

export function contains(a: Ranges, cp: number): boolean {
  let lo = 0;
  let hi = a.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < a[2 * mid]) hi = mid - 1;
    else if (cp > a[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Number of ranges (what a set costs RE2 to store and search). */
export function rangeCount(a: Ranges): number {
  return a.length / 2;
}

// --- RE2 syntax -----------------------------------------------------------------------------

function hex(cp: number): string {
  return `\\x{${cp.toString(16)}}`;
}

/** The set as an RE2 class (`[…]`), or its complement with `negate`. */
export function re2Class(a: Ranges, negate = false): string {
  if (a.length === 0) return negate ? `[${hex(0)}-${hex(MAX_CP)}]` : `[^${hex(0)}-${hex(MAX_CP)}]`;
  let out = negate ? '[^' : '[';
  for (let i = 0; i < a.length; i += 2) out += a[i] === a[i + 1] ? hex(a[i]) : `${hex(a[i])}-${hex(a[i + 1])}`;
  return out + ']';
}

/** One code point as an RE2 literal (letters and digits as themselves, the rest escaped). */
export function re2Literal(cp: number): string {
  if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)) return String.fromCharCode(cp);
  return hex(cp);
}

// --- Unicode properties from V8 -------------------------------------------------------------

/**
 * Text holding every code point of planes 0–3 and of U+E0000–U+E0FFF (surrogates excluded), and
 * how its UTF-16 offsets map back to code points. The other planes are uniform in every Unicode
 * version so far (4–13 and the rest of 14 unassigned, 15–16 private use) apart from their
 * noncharacters U+xFFFE/U+xFFFF, so one sample each stands for them (samplePlanes).
 */
interface ScanText {
  text: string;
  /** [unit offset, first code point, units per code point] of each stretch, in order. */
  stretches: [number, number, number][];
}

let scanText: ScanText | undefined;

function buildScanText(): ScanText {
  const chunks: string[] = [];
  const add = (lo: number, hi: number): void => {
    for (let cp = lo; cp <= hi; cp += 4096) {
      const end = Math.min(hi, cp + 4095);
      const cps: number[] = [];
      for (let c = cp; c <= end; c++) cps.push(c);
      chunks.push(String.fromCodePoint(...cps));
    }
  };
  add(0, 0xd7ff);
  add(0xe000, 0x3ffff);
  add(0xe0000, 0xe0fff);
  return {
    text: chunks.join(''),
    stretches: [
      [0, 0, 1],
      [0xd800, 0xe000, 1],
      [0xf800, 0x10000, 2],
      [0xf800 + 2 * 0x30000, 0xe0000, 2],
    ],
  };
}

function cpAt(st: ScanText, unit: number): number {
  let s = st.stretches[0];
  for (const x of st.stretches) if (x[0] <= unit) s = x;
  return s[1] + Math.floor((unit - s[0]) / s[2]);
}

/** Code points standing for the planes left out of the scan text: [sample, range lo, range hi]. */
function samplePlanes(): [number, number, number][] {
  const out: [number, number, number][] = [];
  const plane = (lo: number, hi: number): void => {
    out.push([lo, lo, hi - 2], [hi - 1, hi - 1, hi - 1], [hi, hi, hi]);
  };
  for (let p = 4; p <= 13; p++) plane(p * 0x10000, p * 0x10000 + 0xffff);
  plane(0xe1000, 0xeffff);
  plane(0xf0000, 0xfffff);
  plane(0x100000, 0x10ffff);
  return out;
}

const propertyCache = new Map<string, Ranges>();

/**
 * The code points a JS RegExp class (`\p{Alphabetic}`, `[\p{L}\p{Nd}]`, `[a-z]`; `v`-flag syntax)
 * matches, as ranges. Throws SyntaxError when V8 does not know the class. Cached per source.
 */
export function jsClassRanges(source: string): Ranges {
  const cached = propertyCache.get(source);
  if (cached) return cached;
  const inside = new RegExp(`${source}+`, 'vy');
  const outside = new RegExp(`[^${source}]+`, 'vy');
  const one = new RegExp(`^${source}$`, 'v');
  scanText ??= buildScanText();
  const { text } = scanText;
  const pairs: number[] = [];
  let i = 0;
  let inRun = one.test(text.slice(0, 1));
  while (i < text.length) {
    const re = inRun ? inside : outside;
    re.lastIndex = i;
    if (!re.test(text)) throw new Error(`scan of ${source} stuck at ${i}`);
    if (inRun) pairs.push(cpAt(scanText, i), cpAt(scanText, re.lastIndex - 1));
    i = re.lastIndex;
    inRun = !inRun;
  }
  for (const [sample, lo, hi] of samplePlanes()) if (one.test(String.fromCodePoint(sample))) pairs.push(lo, hi);
  const ranges = normalize(pairs);
  propertyCache.set(source, ranges);
  return ranges;
}

// --- case folding ---------------------------------------------------------------------------

/** Code points with case variants, sorted, and the variants of each (its orbit, itself included). */
interface FoldTable {
  keys: Int32Array;
  orbits: Map<number, number[]>;
}

let foldTable: FoldTable | undefined;

function single1(s: string): number | undefined {
  const cp = s.codePointAt(0)!;
  return String.fromCodePoint(cp).length === s.length ? cp : undefined;
}

/**
 * Java's Unicode case-insensitive matching (UNICODE_CASE) takes two characters as equal when
 * their simple upper- or lowercase mappings are; the orbits below are the classes of that
 * relation (k K K, s S ſ, σ ς Σ, …), from V8's case mappings.
 */
function buildFoldTable(): FoldTable {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const join = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  const cased = jsClassRanges('\\p{Changes_When_Casemapped}');
  for (let i = 0; i < cased.length; i += 2) {
    for (let cp = cased[i]; cp <= cased[i + 1]; cp++) {
      const c = String.fromCodePoint(cp);
      find(cp);
      const up = single1(c.toUpperCase());
      const low = single1(c.toLowerCase());
      if (up !== undefined && up !== cp) join(cp, up);
      if (low !== undefined && low !== cp) join(cp, low);
    }
  }
  const groups = new Map<number, number[]>();
  for (const cp of parent.keys()) {
    const r = find(cp);
    let g = groups.get(r);
    if (!g) groups.set(r, (g = []));
    g.push(cp);
  }
  const orbits = new Map<number, number[]>();
  for (const g of groups.values()) if (g.length > 1) for (const cp of g) orbits.set(cp, g);
  return { keys: Int32Array.from([...orbits.keys()].sort((a, b) => a - b)), orbits };
}

/** The set with every member's case variants added: ASCII letters only, or all of Unicode. */
export function caseFold(a: Ranges, unicode: boolean): Ranges {
  if (!unicode) {
    const extra: number[] = [];
    const lower = intersect(a, [0x61, 0x7a]);
    const upper = intersect(a, [0x41, 0x5a]);
    for (let i = 0; i < lower.length; i++) extra.push(lower[i] - 32);
    for (let i = 0; i < upper.length; i++) extra.push(upper[i] + 32);
    return extra.length === 0 ? a : union(a, normalize(extra));
  }
  foldTable ??= buildFoldTable();
  const extra: number[] = [];
  let k = 0;
  const { keys, orbits } = foldTable;
  for (let i = 0; i < a.length; i += 2) {
    while (k < keys.length && keys[k] < a[i]) k++;
    for (; k < keys.length && keys[k] <= a[i + 1]; k++) for (const cp of orbits.get(keys[k])!) extra.push(cp, cp);
  }
  return extra.length === 0 ? a : union(a, normalize(extra));
}
