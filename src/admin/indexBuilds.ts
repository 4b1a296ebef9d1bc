// Live progress of background index builds: GET /api/v1/index-builds (docs/index-builds-api.md)
// polled while an inactive index is on screen, each build drawn as a progress bar with the
// documents done out of the total. When a build leaves the list its index is active: the caller
// re-reads the indexes.

import type { BuildProgress as ServerBuildProgress } from '../model/indexBuild';
import type { FloraClient } from './client';
import { h, replace } from './dom';
import { describeError } from './messages';
import { field } from './values';

const INDEX_BUILDS_PATH = '/api/v1/index-builds';
/** How often the builds are read while one is shown. */
const POLL_MS = 700;

/** One build as the API answers it: the server's BuildProgress (model/indexBuild.ts) with its index's name. */
type BuildProgress = { index: string } & Pick<ServerBuildProgress, 'done' | 'total' | 'collection'>;

async function readBuilds(client: FloraClient): Promise<BuildProgress[]> {
  const { value } = await client.get(INDEX_BUILDS_PATH);
  const builds = field(value, 'builds');
  return (Array.isArray(builds) ? builds : []).map((b) => {
    const total = field(b, 'total');
    const collection = field(b, 'collection');
    return {
      index: String(field(b, 'index')),
      done: Number(field(b, 'done') ?? 0),
      total: total === null || total === undefined ? null : Number(total),
      collection: typeof collection === 'string' ? collection : null,
    };
  });
}

/** A build's bar and words; without progress yet, an indeterminate bar. */
export function progressView(p: BuildProgress | undefined): HTMLElement[] {
  const bar = h('progress', { class: 'build' });
  if (!p) return [bar, h('span', { class: 'build-text' }, 'building…')];
  const where = p.collection ? ` (scanning ${p.collection})` : '';
  if (p.total === null) return [bar, h('span', { class: 'build-text' }, `building: ${p.done} documents so far${where}`)];
  bar.max = Math.max(p.total, 1);
  bar.value = p.done;
  return [bar, h('span', { class: 'build-text' }, `building: ${p.done} of ${p.total} documents${where}`)];
}

/**
 * Polls the builds of the indexes in `cells` (status cell by index name), redrawing each, until some
 * are no longer building (then `finished`, given the ones never seen building: those the first read
 * already missed), `alive()` turns false (the screen was left or reopened), or the read fails (`failed`).
 */
export function watchBuilds(
  client: FloraClient,
  cells: ReadonlyMap<string, HTMLElement>,
  alive: () => boolean,
  finished: (neverSeen: string[]) => void,
  failed: (message: string) => void,
): void {
  if (cells.size === 0) return;
  let first = true;
  const tick = async () => {
    if (!alive()) return;
    let builds: BuildProgress[];
    try {
      builds = await readBuilds(client);
    } catch (err) {
      return failed(describeError(err, "read the index builds' progress"));
    }
    if (!alive()) return;
    const byName = new Map(builds.map((b) => [b.index, b]));
    const gone = [...cells.keys()].filter((name) => !byName.has(name));
    if (gone.length) return finished(first ? gone : []);
    first = false;
    for (const [name, cell] of cells) replace(cell, ...progressView(byName.get(name)));
    setTimeout(() => void tick(), POLL_MS);
  };
  void tick();
}
