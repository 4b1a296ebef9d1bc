// The log exports (log-export.md §B.2), under the query log: the export requests the key sees, a
// form that requests one for a time range (and database), each request watched until it is done,
// and the file of a Complete one downloaded through its presigned URL (which needs no secret).

import type { FloraClient } from './client';
import { instantElement } from './times';
import { h, replace } from './dom';
import { FINAL_STATES, getExport, listExports, recentRecords, requestExport, type LogExport } from './logQueries';
import { attempt, show } from './messages';

const WATCH_MS = 1000;

/** The range the form asks for: empty start = an hour before the end; empty end = now. */
export function exportRange(startText: string, endText: string, now: number): { start: Date; end: Date } {
  const end = endText ? new Date(endText) : new Date(now);
  if (Number.isNaN(end.getTime())) throw new Error('The end is not a date and time.');
  const start = startText ? new Date(startText) : new Date(end.getTime() - 3_600_000);
  if (Number.isNaN(start.getTime())) throw new Error('The start is not a date and time.');
  if (start >= end) throw new Error('The start must be before the end.');
  return { start, end };
}

function exportRow(job: LogExport): HTMLElement {
  const file = job.state === 'Complete' && job.presigned_url
    ? h('a', { href: job.presigned_url, download: `${job.request_id}.jsonl.gz`, class: 'download' }, 'Download')
    : job.error ?? '';
  return h(
    'tr',
    { 'data-id': job.request_id, 'data-state': job.state },
    h('td', { class: 'id' }, job.request_id),
    h('td', {}, job.database ?? `${job.region_group ?? ''} (all)`),
    h('td', {}, instantElement(job.time_start), ' → ', instantElement(job.time_end)),
    h('td', { class: 'state' }, job.state),
    h('td', { class: 'number' }, job.records === undefined ? '' : String(job.records)),
    h('td', {}, file),
  );
}

export function logExports(regionGroup: () => string): { element: HTMLElement; open(client: FloraClient): void } {
  const start = h('input', { type: 'datetime-local', id: 'log-export-start', step: '1' });
  const end = h('input', { type: 'datetime-local', id: 'log-export-end', step: '1' });
  const database = h('input', { id: 'log-export-database', placeholder: 'e.g. shop (empty: every database)', autocomplete: 'off' });
  const form = h(
    'form',
    { id: 'log-export-form', class: 'filters' },
    h('label', {}, 'From ', start),
    h('label', {}, 'until ', end),
    h('label', {}, 'Database ', database),
    h('button', { type: 'submit' }, 'Request export'),
  );
  const box = h('div', { class: 'messages' });
  const table = h('table', { id: 'log-exports' });
  const reload = h('button', { type: 'button', id: 'log-exports-refresh' }, 'Refresh list');
  const watched = new Set<string>();
  let client: FloraClient | undefined;

  const list = async () => {
    const c = client!;
    const answer = await attempt(box, 'list the log exports', () => listExports(c));
    if (!answer) return;
    const jobs = answer.results;
    replace(
      table,
      h('thead', {}, h('tr', {}, ...['request', 'database', 'range', 'state', 'records', 'file'].map((t) => h('th', {}, t)))),
      h('tbody', {}, ...jobs.map(exportRow)),
    );
    if (jobs.length === 0) table.append(h('caption', {}, 'No log exports yet.'));
    for (const j of jobs) if (!FINAL_STATES.includes(j.state)) watch(j.request_id);
  };

  /** Polls a request until it is done, updating its row (the list is re-read at the end). */
  const watch = (id: string) => {
    if (watched.has(id)) return;
    watched.add(id);
    const c = client!;
    const step = async () => {
      const job = await attempt(box, `read log export ${id}`, () => getExport(c, id));
      const row = table.querySelector(`tr[data-id="${id}"]`);
      if (job && row) row.replaceWith(exportRow(job));
      if (job && !FINAL_STATES.includes(job.state)) return void setTimeout(() => void step(), WATCH_MS);
      watched.delete(id);
      if (job) show(box, `Log export ${id} is ${job.state}${job.state === 'Complete' ? `: ${job.records ?? 0} record(s), ready to download.` : job.error ? ` (${job.error}).` : '.'}`, job.state === 'Failed' || job.state === 'TimedOut' ? 'error' : 'notice');
    };
    void step();
  };

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    let range: { start: Date; end: Date };
    try {
      range = exportRange(start.value, end.value, Date.now());
    } catch (err) {
      show(box, (err as Error).message);
      return;
    }
    const c = client!;
    const path = database.value.trim().replace(/^\/+|\/+$/g, '');
    void attempt(box, 'request a log export', async () => {
      const group = regionGroup() || (await recentRecords(c, 1, 1)).region_group;
      const job = await requestExport(c, group, path, range.start, range.end);
      await list();
      show(box, `Requested log export ${job.request_id}; it is ${job.state}.`, 'notice');
      watch(job.request_id);
    });
  });
  reload.addEventListener('click', () => void list());

  const element = h(
    'section',
    { id: 'log-exports-panel' },
    h('h3', {}, 'Log exports'),
    h('p', { class: 'hint' }, 'A file (gzip, one JSON record a line) of the log of a time range: leave From empty for the hour before Until, Until empty for now. An export stays Pending until its end time has passed.'),
    form,
    box,
    reload,
    h('div', { class: 'table-scroll' }, table),
  );
  return {
    element,
    open(c) {
      client = c.in([]);
      if (!database.value && c.path.length) database.value = c.path.join('/');
      void list();
    },
  };
}
