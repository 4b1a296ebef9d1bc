// Line diffs as the core computes them for its textual schema diff: java-diff-utils 4.12's
// DiffRowGenerator (default settings, lines kept as they are) over its MeyersDiff. The exact
// algorithm matters: among equally short edit scripts it picks one, and the rows follow that choice.

export type RowTag = 'equal' | 'insert' | 'delete' | 'change';

export interface DiffRow {
  readonly tag: RowTag;
  readonly oldLine: string;
  readonly newLine: string;
}

interface PathNode {
  readonly i: number;
  readonly j: number;
  readonly snake: boolean;
  readonly bootstrap: boolean;
  readonly prev: PathNode | null;
}

/** PathNode's constructor: a diff node links to the last snake before it. */
function pathNode(i: number, j: number, snake: boolean, bootstrap: boolean, prev: PathNode | null): PathNode {
  return { i, j, snake, bootstrap, prev: snake || prev === null ? prev : previousSnake(prev) };
}

function previousSnake(n: PathNode): PathNode | null {
  if (n.bootstrap) return null;
  if (!n.snake && n.prev !== null) return previousSnake(n.prev);
  return n;
}

/** MeyersDiff.buildPath. */
function buildPath(orig: ReadonlyArray<string>, rev: ReadonlyArray<string>): PathNode {
  const n = orig.length;
  const m = rev.length;
  const max = n + m + 1;
  const size = 1 + 2 * max;
  const middle = Math.floor(size / 2);
  const diagonal: (PathNode | null)[] = new Array<PathNode | null>(size).fill(null);
  diagonal[middle + 1] = pathNode(0, -1, true, true, null);
  for (let d = 0; d < max; d++) {
    for (let k = -d; k <= d; k += 2) {
      const kmiddle = middle + k;
      const kplus = kmiddle + 1;
      const kminus = kmiddle - 1;
      let prev: PathNode;
      let i: number;
      if (k === -d || (k !== d && diagonal[kminus]!.i < diagonal[kplus]!.i)) {
        prev = diagonal[kplus]!;
        i = prev.i;
      } else {
        prev = diagonal[kminus]!;
        i = prev.i + 1;
      }
      diagonal[kminus] = null;
      let j = i - k;
      let node = pathNode(i, j, false, false, prev);
      while (i < n && j < m && orig[i] === rev[j]) {
        i++;
        j++;
      }
      if (i !== node.i) node = pathNode(i, j, true, false, node);
      diagonal[kmiddle] = node;
      if (i >= n && j >= m) return node;
    }
    diagonal[middle + d - 1] = null;
  }
  throw new Error('could not find a diff path');
}

interface Delta {
  readonly type: 'insert' | 'delete' | 'change';
  readonly origPos: number;
  readonly orig: ReadonlyArray<string>;
  readonly revPos: number;
  readonly rev: ReadonlyArray<string>;
}

/** MeyersDiff.buildRevision and Patch.generate: the deltas, in the order of the original. */
function deltas(orig: ReadonlyArray<string>, rev: ReadonlyArray<string>): Delta[] {
  let path: PathNode | null = buildPath(orig, rev);
  const out: Delta[] = [];
  if (path.snake) path = path.prev;
  while (path !== null && path.prev !== null && path.prev.j >= 0) {
    if (path.snake) throw new Error('bad diffpath: found snake when looking for diff');
    const { i, j } = path;
    path = path.prev;
    const ia = path.i;
    const ja = path.j;
    const type = ia === i && ja !== j ? 'insert' : ia !== i && ja === j ? 'delete' : 'change';
    out.push({ type, origPos: ia, orig: orig.slice(ia, i), revPos: ja, rev: rev.slice(ja, j) });
    if (path.snake) path = path.prev;
  }
  return out.sort((a, b) => a.origPos - b.origPos);
}

/** DiffRowGenerator.decompressDeltas: a change of unequal sizes is a change and an insert or delete. */
function decompress(d: Delta): Delta[] {
  if (d.type !== 'change' || d.orig.length === d.rev.length) return [d];
  const min = Math.min(d.orig.length, d.rev.length);
  const head: Delta = { type: 'change', origPos: d.origPos, orig: d.orig.slice(0, min), revPos: d.revPos, rev: d.rev.slice(0, min) };
  const tail: Delta =
    d.orig.length < d.rev.length
      ? { type: 'insert', origPos: d.origPos + min, orig: [], revPos: d.revPos + min, rev: d.rev.slice(min) }
      : { type: 'delete', origPos: d.origPos + min, orig: d.orig.slice(min), revPos: d.revPos + min, rev: [] };
  return [head, tail];
}

/** DiffRowGenerator.generateDiffRows(original, revised). */
export function diffRows(orig: ReadonlyArray<string>, rev: ReadonlyArray<string>): DiffRow[] {
  const rows: DiffRow[] = [];
  let end = 0;
  for (const delta of deltas(orig, rev).flatMap(decompress)) {
    for (const line of orig.slice(end, delta.origPos)) rows.push({ tag: 'equal', oldLine: line, newLine: line });
    if (delta.type === 'insert') for (const line of delta.rev) rows.push({ tag: 'insert', oldLine: '', newLine: line });
    else if (delta.type === 'delete') for (const line of delta.orig) rows.push({ tag: 'delete', oldLine: line, newLine: '' });
    else {
      for (let j = 0; j < Math.max(delta.orig.length, delta.rev.length); j++) {
        rows.push({ tag: 'change', oldLine: delta.orig[j] ?? '', newLine: delta.rev[j] ?? '' });
      }
    }
    end = delta.origPos + delta.orig.length;
  }
  for (const line of orig.slice(end)) rows.push({ tag: 'equal', oldLine: line, newLine: line });
  return rows;
}

/** Scala's `linesIterator`: lines split at LF, CR LF or CR, without a last empty one after a final break. */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
