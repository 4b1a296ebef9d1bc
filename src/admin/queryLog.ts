// The Query log tab: the newest requests of every database the signed-in key sees (time, database,
// method, path, status, time, ops, bytes, FQL shape; a row opens its whole record), newest first,
// narrowed by database, status, slowness, method and path; a chart of requests/s and latency
// percentiles over the window; refreshed live (every few seconds while the tab is shown and the page
// visible). Below it, the log exports.

import type { FloraClient } from './client';
import { lineChart } from './chart';
import { h, replace } from './dom';
import { logExports } from './logExports';
import { coveredWindow, matches, parseFilter, ranNoQuery, toRow, type LogFilter, type LogRow } from './logRecords';
import { RECENT_LIMIT, recentRecords } from './logQueries';
import { attempt, show } from './messages';
import type { Panel } from './panel';
import { buckets } from './percentiles';

const LIVE_MS = 3000;
/** Rows in the table at most (the chart counts every matching record read). */
const SHOWN_ROWS = 200;
const CHART_BUCKETS = 30;
const WINDOWS = [5, 15, 60, 360];

const clock = (ms: number, millis = false) => {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}${millis ? `.${String(d.getMilliseconds()).padStart(3, '0')}` : ''}`;
};

function rowElement(r: LogRow, pick: (r: LogRow) => void): HTMLElement {
  const cls = r.status >= 400 ? 'status-error' : 'status-ok';
  return h(
    'tr',
    { 'data-status': String(r.status), 'data-method': r.method, 'data-path': r.path, 'data-database': r.database, 'data-time': String(r.timeMs), title: 'Click for the whole record', onclick: () => pick(r) },
    h('td', { title: r.ts }, clock(r.ms, true)),
    h('td', {}, r.database || '(root)'),
    h('td', {}, r.method),
    // A record logged before paths were kept has none.
    h('td', { class: 'path', title: r.path || 'not recorded (logged by an earlier version)' }, r.path || '–'),
    h('td', { class: cls }, String(r.status)),
    h('td', { class: 'number' }, String(r.timeMs)),
    h('td', { class: 'number', title: 'compute / read / write ops' }, `${r.computeOps} / ${r.readOps} / ${r.writeOps}`),
    h('td', { class: 'number', title: 'bytes in / out' }, `${r.bytesIn} / ${r.bytesOut}`),
    h('td', { class: 'shape', title: r.shape }, r.shape),
  );
}

export function queryLogPanel(): Panel {
  const database = h('input', { id: 'log-database', placeholder: 'e.g. shop or shop/tenant1', autocomplete: 'off' });
  const status = h('input', { id: 'log-status', placeholder: 'ok, errors or a code (404)', autocomplete: 'off' });
  const slow = h('input', { id: 'log-slow', inputmode: 'numeric', placeholder: 'e.g. 100', autocomplete: 'off' });
  const own = h('input', { type: 'checkbox', id: 'log-own' });
  const method = h('select', { id: 'log-method' }, ...['', 'POST', 'GET', 'PUT', 'PATCH', 'DELETE'].map((m) => h('option', { value: m }, m || 'any')));
  const path = h('input', { id: 'log-path', placeholder: 'e.g. /query/1 or graphql', autocomplete: 'off' });
  const queriesOnly = h('input', { type: 'checkbox', id: 'log-queries-only', checked: true });
  const minutes = h('select', { id: 'log-minutes' }, ...WINDOWS.map((m) => h('option', { value: String(m), selected: m === 15 }, m < 60 ? `last ${m} minutes` : `last ${m / 60} hour(s)`)));
  const live = h('input', { type: 'checkbox', id: 'log-live', checked: true });
  const refresh = h('button', { type: 'button', id: 'log-refresh' }, 'Refresh now');
  const filters = h(
    'form',
    { id: 'log-filters', class: 'filters' },
    h('label', {}, 'Database (path prefix) ', database),
    h('label', {}, 'Status ', status),
    h('label', {}, 'Slow: at least (ms) ', slow),
    h('label', {}, 'Method ', method),
    h('label', {}, 'Path (contains) ', path),
    h('label', { title: "Requests with no FQL shape that succeeded: the dashboard's own page files, job and log API calls" }, queriesOnly, ' only requests that ran a query (and errors)'),
    h('label', {}, minutes),
    h('label', {}, live, ' live (every 3 s)'),
    refresh,
    h('label', {}, own, " show the dashboard's own log reads"),
  );
  const filterBox = h('div', { class: 'messages', id: 'log-filter-message' });
  const box = h('div', { class: 'messages' });
  const summary = h('p', { id: 'log-summary', class: 'summary' });
  const charts = h('div', { id: 'log-chart', class: 'charts' });
  const table = h('table', { id: 'log-table' });
  const detail = h('pre', { id: 'log-record', class: 'json' });
  const pick = (r: LogRow) => void (detail.textContent = JSON.stringify(r.record, null, 2));
  const exportsView = logExports(() => regionGroup);
  let client: FloraClient | undefined;
  let rows: LogRow[] = [];
  let readAt = Date.now();
  let regionGroup = '';
  const typed = () => ({ database: database.value, status: status.value, slow: slow.value, own: own.checked, method: method.value, path: path.value, queriesOnly: queriesOnly.checked });
  let filter: LogFilter = parseFilter(typed());
  let timer: ReturnType<typeof setInterval> | undefined;
  let loading = false;

  const render = () => {
    const shown = rows.filter((r) => matches(r, filter));
    const { fromMs, cut } = coveredWindow(rows, readAt, Number(minutes.value) * 60_000, RECENT_LIMIT);
    const noQuery = filter.queriesOnly ? rows.filter(ranNoQuery).length : 0;
    summary.textContent = `${shown.length} matching request(s) of ${rows.length} read from the ${minutes.selectedOptions[0]?.textContent ?? ''}` +
      (noQuery ? ` (${noQuery} that ran no query left out)` : '') +
      (cut ? ` (only the newest ${RECENT_LIMIT}, since ${clock(fromMs)})` : '') +
      (shown.length > SHOWN_ROWS ? `; the newest ${SHOWN_ROWS} are listed.` : '.') + ` Updated ${clock(readAt)}.`;
    const series = buckets(shown.map((r) => ({ ms: r.ms, value: r.timeMs })), fromMs, readAt, Math.max(1, readAt - fromMs) / CHART_BUCKETS);
    const labels = series.map((b) => clock(b.start));
    replace(
      charts,
      lineChart({ id: 'log-rate-chart', title: 'Requests', unit: 'per second', labels, series: [{ name: 'req/s', className: 's-rate', values: series.map((b) => b.rate) }] }),
      lineChart({
        id: 'log-latency-chart',
        title: 'Latency',
        unit: 'ms',
        labels,
        series: [
          { name: 'p50', className: 's-p50', values: series.map((b) => b.p50) },
          { name: 'p95', className: 's-p95', values: series.map((b) => b.p95) },
          { name: 'p99', className: 's-p99', values: series.map((b) => b.p99) },
        ],
      }),
    );
    const head = ['time', 'database', 'method', 'path', 'status', 'time (ms)', 'ops c/r/w', 'bytes in/out', 'FQL shape (empty: no query ran)'];
    replace(table, h('thead', {}, h('tr', {}, ...head.map((t) => h('th', {}, t)))), h('tbody', {}, ...shown.slice(0, SHOWN_ROWS).map((r) => rowElement(r, pick))));
    if (shown.length === 0) table.append(h('caption', {}, rows.length ? 'No request matches the filters.' : 'No requests in this window yet.'));
  };

  const applyFilters = () => {
    try {
      filter = parseFilter(typed(), regionGroup);
      show(filterBox, null);
    } catch (err) {
      show(filterBox, (err as Error).message);
      return;
    }
    render();
  };

  const load = async () => {
    if (loading || !client) return;
    loading = true;
    const c = client;
    try {
      const answer = await attempt(box, 'read the query log', () => recentRecords(c, Number(minutes.value)));
      if (!answer) return;
      regionGroup = answer.region_group;
      rows = answer.records.map(toRow);
      readAt = Date.now();
      render();
    } finally {
      loading = false;
    }
  };

  const stop = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  // Only while the tab is on screen (another tab replaces the element) and the page is visible.
  const tick = () => {
    if (!element.isConnected) return stop();
    if (live.checked && !document.hidden) void load();
  };
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && element.isConnected && live.checked) void load();
  });
  filters.addEventListener('input', applyFilters);
  filters.addEventListener('submit', (ev) => {
    ev.preventDefault();
    applyFilters();
  });
  minutes.addEventListener('change', () => void load());
  refresh.addEventListener('click', () => void load());

  const element = h(
    'section',
    { id: 'query-log-panel', class: 'panel' },
    h('h2', {}, 'Query log'),
    h('p', { class: 'hint' }, 'Every request to this server in the databases the signed-in key can see, newest first.'),
    filters,
    filterBox,
    box,
    summary,
    charts,
    h('div', { class: 'table-scroll' }, table),
    detail,
    exportsView.element,
  );
  return {
    id: 'logs',
    label: 'Query log',
    element,
    open(c) {
      // The log of every database the key sees, whichever is selected (the filter narrows it).
      client = c.in([]);
      exportsView.open(c);
      void load();
      if (timer === undefined) timer = setInterval(tick, LIVE_MS);
    },
  };
}
