// The Jobs tab: export the selected database (format, history, keys), import a file into it, back
// up the whole store. The database's jobs (and, for a key that may back up, the backups) are listed
// from the APIs, wherever they were started; a running one is watched (polled) until it is done,
// with a progress bar and its counts, then its files to download, its import report (the records
// not imported, with where and why: the first ones, and how many more), or its error.

import type { FloraClient } from './client';
import { h, replace } from './dom';
import { downloadWithKey } from './httpApi';
import { listJobs, readJob, startBackup, startExport, startImport, UPLOAD_LIMIT, type ExportOptions, type Job, type JobKind } from './jobQueries';
import { attempt, show } from './messages';
import type { Panel } from './panel';
import { pathLabel } from './values';

const WATCH_MS = 500;


/** What a job has done so far, in words. */
export function jobCounts(kind: JobKind, job: Job): string {
  if (kind === 'backup') return `${job.records ?? 0} record(s), ${job.bytes ?? 0} bytes`;
  const p = job.progress ?? { records: 0, written: 0, existing: 0, problems: 0 };
  if (kind === 'export') return `${p.records} record(s) written`;
  return `${p.written} written, ${p.existing} already there, ${p.problems} not imported`;
}

/** A listed job's title: what it was, of which database (its `database` is below the key's, `keyPath`), when. */
export function jobTitle(kind: JobKind, job: Job, keyPath: readonly string[]): string {
  const when = job.created.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const db = pathLabel([...keyPath, ...(job.database ?? '').split('/').filter((p) => p !== '')]);
  if (kind === 'backup') return `Backup of every database (${when})`;
  if (kind === 'import') return `Import into ${db} (${when})`;
  return `Export of ${db} (${exportOptions({ format: job.format ?? 'flora', history: job.history ?? false, keys: job.keys ?? false })}; ${when})`;
}

/** An export's options in words: `flora, with history`. */
const exportOptions = (o: ExportOptions): string => `${o.format}${o.history ? ', with history' : ''}${o.keys ? ', with keys' : ''}`;

/** An import's report; `upload` names the file as the user chose it (the report names the server's copy). */
function importReport(job: Job, upload: string): HTMLElement | false {
  const r = job.report;
  if (!r) return false;
  const counts = Object.entries(r.collections);
  return h(
    'div',
    { class: 'report' },
    h('table', { class: 'report-collections' },
      h('thead', {}, h('tr', {}, h('th', {}, 'collection'), h('th', {}, 'written'), h('th', {}, 'already there'))),
      h('tbody', {}, ...counts.map(([name, c]) => h('tr', {}, h('td', {}, name), h('td', { class: 'number' }, String(c.written)), h('td', { class: 'number' }, String(c.existing)))))),
    r.problems.length
      ? h('div', { class: 'problems' }, h('p', { class: 'error' }, `${r.problems.length + (r.problems_omitted ?? 0)} record(s) not imported${r.problems_omitted ? ` (the first ${r.problems.length} listed)` : ''}:`),
          h('ul', {}, ...r.problems.map((p) => h('li', {}, `${upload || p.file}, line ${p.line}${p.element !== undefined ? ` (element ${p.element})` : ''}: ${p.reason}`))))
      : h('p', { class: 'notice' }, 'Every record was imported.'),
    ...r.notes.map((n) => h('p', { class: 'hint' }, `Note: ${n}`)),
  );
}

export function jobsPanel(): Panel {
  const format = h('select', { id: 'export-format' }, ...['flora', 'fauna-simple', 'fauna-tagged'].map((f) => h('option', { value: f }, f)));
  const history = h('input', { type: 'checkbox', id: 'export-history' });
  const keys = h('input', { type: 'checkbox', id: 'export-keys' });
  const exportForm = h(
    'form',
    { id: 'export-form', class: 'filters' },
    h('label', {}, 'Format ', format),
    h('label', {}, history, ' with history (every version)'),
    h('label', {}, keys, ' with keys'),
    h('button', { type: 'submit' }, 'Start export'),
  );
  // History and keys exist in the flora format only.
  format.addEventListener('change', () => {
    const flora = format.value === 'flora';
    history.disabled = keys.disabled = !flora;
    if (!flora) history.checked = keys.checked = false;
  });
  const file = h('input', { type: 'file', id: 'import-file', accept: '.json,.ndjson,.jsonl,.gz' });
  const importForm = h('form', { id: 'import-form', class: 'filters' }, h('label', {}, 'File ', file), h('button', { type: 'submit' }, 'Start import'));
  const backup = h('button', { type: 'button', id: 'backup-start' }, 'Start backup');
  const box = h('div', { class: 'messages' });
  const list = h('ol', { id: 'jobs-list', class: 'jobs' });
  const where = h('span', { id: 'jobs-database' });
  const listHint = h('p', { class: 'hint', id: 'jobs-list-hint' });
  let client: FloraClient | undefined;
  /** Bumped by each open: the polls of cards from an earlier open stop. */
  let generation = 0;

  /** A job card (on top: one just started; else below the others: a listed one), polled while the job is Running. `reader` is the key that can read it. */
  const follow = (kind: JobKind, title: string, first: Job, reader: FloraClient, upload = '', onTop = true) => {
    const mine = generation;
    const bar = h('progress', { class: 'job-progress' });
    const state = h('span', { class: 'job-state' });
    const counts = h('span', { class: 'job-counts' });
    const detail = h('div', { class: 'job-detail' });
    const card = h('li', { class: 'job', 'data-kind': kind, 'data-id': first.id }, h('strong', {}, title), ' ', state, bar, counts, detail);
    if (onTop) list.prepend(card);
    else list.append(card);
    const paint = (job: Job) => {
      card.dataset.state = job.state;
      state.textContent = job.state;
      counts.textContent = jobCounts(kind, job);
      // An import knows how much of its source it has read; an export or a backup knows no total
      // while it runs: its bar moves without a value until it is done.
      const total = job.progress?.bytes_total ?? 0;
      if (job.state !== 'Running') bar.value = bar.max = 1;
      else if (total > 0) {
        bar.max = total;
        bar.value = Math.min(total, job.progress?.bytes_done ?? 0);
      } else bar.removeAttribute('value');
      if (job.state === 'Failed') replace(detail, h('p', { class: 'error' }, `Failed: ${job.error ?? 'no reason given'}`));
      if (job.state !== 'Complete') return;
      if (kind === 'import') replace(detail, importReport(job, upload));
      const files = kind === 'backup' ? (job.download ? [{ path: `${job.id}.flora-backup`, download: job.download }] : []) : (job.files ?? []);
      if (files.length) {
        replace(detail, h('ul', { class: 'job-files' }, ...files.map((f) => h('li', {},
          h('button', { type: 'button', class: 'download', 'data-path': f.path, onclick: () => void attempt(box, `download ${f.path}`, async () => {
            const size = await downloadWithKey(reader, f.download, f.path.split('/').pop() ?? f.path);
            show(box, `Downloaded ${f.path} (${size} bytes).`, 'notice');
          }) }, 'Download'),
          ` ${f.path}${f.records !== undefined ? ` (${f.records} records)` : ''}`))));
      }
    };
    paint(first);
    // A list leaves an import's report out: a finished import listed is read once for it.
    if (first.state === 'Complete' && kind === 'import' && !first.report) {
      readJob(reader, kind, first.id).then((job) => mine === generation && paint(job), () => undefined); // the card stays as listed
    }
    if (first.state !== 'Running') return;
    const step = async () => {
      if (mine !== generation) return;
      const job = await attempt(box, `read the ${kind} job`, () => readJob(reader, kind, first.id));
      if (!job) return;
      paint(job);
      if (job.state === 'Running') setTimeout(() => void step(), WATCH_MS);
      else show(box, `The ${kind} ${job.state === 'Complete' ? 'is complete' : 'failed'}.`, job.state === 'Complete' ? 'notice' : 'error');
    };
    setTimeout(() => void step(), WATCH_MS);
  };

  exportForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const c = client!;
    const options: ExportOptions = { format: format.value as ExportOptions['format'], history: history.checked, keys: keys.checked };
    void attempt(box, `export ${pathLabel(c.path)}`, async () => follow('export', `Export of ${pathLabel(c.path)} (${exportOptions(options)})`, await startExport(c, options), c));
  });
  importForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const c = client!;
    const chosen = file.files?.[0];
    if (!chosen) return show(box, 'Choose a file to import first: a driver dump or an export\u2019s collection file (.ndjson, .json or .gz).');
    if (chosen.size === 0) return show(box, `The file ${chosen.name} is empty: there is nothing to import.`);
    if (chosen.size > UPLOAD_LIMIT) return show(box, `The file ${chosen.name} is larger than ${UPLOAD_LIMIT / 1024 / 1024} MiB: import it with 'flora import' instead.`);
    void attempt(box, `import into ${pathLabel(c.path)}`, async () => {
      follow('import', `Import of ${chosen.name} into ${pathLabel(c.path)}`, await startImport(c, chosen), c, chosen.name);
      file.value = '';
    });
  });
  backup.addEventListener('click', () => {
    const root = client!.in([]);
    void attempt(box, 'start a backup', async () => follow('backup', 'Backup of every database', await startBackup(root), root));
  });

  const element = h(
    'section',
    { id: 'jobs-panel', class: 'panel' },
    h('h2', {}, 'Jobs ', where),
    h('h3', {}, 'Export'),
    h('p', { class: 'hint' }, 'Writes the selected database (its schema and documents, and with the flora format its history and keys if asked) into files on the server, to download.'),
    exportForm,
    h('h3', {}, 'Import'),
    h('p', { class: 'hint' }, `Adds the documents of a file to the selected database: a driver dump (one JSON document a line, or a JSON array), or a collection file of an export; gzipped or not, up to ${UPLOAD_LIMIT / 1024 / 1024} MiB. Documents already there are kept.`),
    importForm,
    h('h3', {}, 'Backup'),
    h('p', { class: 'hint' }, 'Copies every database, consistent at one moment, into one file on the server. It needs the root secret (or an admin key of the top database).'),
    backup,
    box,
    h('h3', {}, 'Jobs of this database, newest first'),
    listHint,
    list,
  );

  /** The database's exports and imports, and the backups when the key may see them, newest first, below any started meanwhile. */
  const showJobs = async (c: FloraClient) => {
    const mine = generation;
    const found: { kind: JobKind; job: Job; reader: FloraClient }[] = [];
    const read = async (kind: JobKind, reader: FloraClient) => {
      for (const job of await listJobs(reader, kind)) found.push({ kind, job, reader });
    };
    const listed = await attempt(box, 'list the jobs', async () => {
      await Promise.all([read('export', c), read('import', c)]);
      return true;
    });
    // Backups are the whole store's: only the root secret (or an admin key of the top database) sees them.
    const top = c.in([]);
    const backups = await read('backup', top).then(() => true, () => false);
    if (!listed || mine !== generation) return;
    listHint.textContent = backups ? '' : 'Backups are listed for the root secret (or an admin key of the top database) only.';
    found.sort((a, b) => (a.job.created < b.job.created ? 1 : a.job.created > b.job.created ? -1 : 0));
    const shown = new Set([...list.querySelectorAll('li.job')].map((li) => li.getAttribute('data-id')));
    for (const { kind, job, reader } of found) if (!shown.has(job.id)) follow(kind, jobTitle(kind, job, reader.path), job, reader, '', false);
  };
  return {
    id: 'jobs',
    label: 'Jobs',
    element,
    open(c) {
      client = c;
      generation++;
      replace(list);
      where.textContent = `in ${pathLabel(c.path)}`;
      void showJobs(c);
    },
  };
}
