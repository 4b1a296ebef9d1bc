// The query editor: FQL v4 in the JavaScript driver's syntax or FQL v10 (a switch, remembered in
// the browser's localStorage), run with Ctrl+Enter (or the button) in the selected database. A v4
// answer as a tree to unfold, as the shell prints it and as raw JSON; a v10 one in FQL syntax (the
// decorated format, as fauna-shell 4 prints it) with its summary; an error with its summary (the
// query with carets); the query's metrics.

import { FqlJsError } from '../fqljs/errors';
import { renderValue } from '../fqljs/render';
import type { JsonValue } from '../wire/expr';
import { FloraError, type FloraClient } from './client';
import { h, replace } from './dom';
import type { Panel } from './panel';
import { attempt, describeError, show } from './messages';
import { fql } from './queries';
import { pathLabel, prettyJson } from './values';
import { highlightPieces } from './highlight';
import { markMistake, summaryMistake, type MarkedPiece, type Mistake } from './mistakes';
import { tsElement } from './times';
import { valueTree } from './valueTree';

type Language = 'v4' | 'v10';
/** Where the browser keeps the language last chosen. */
const LANGUAGE_KEY = 'flora.queryLanguage';
const PLACEHOLDERS: Record<Language, string> = {
  v4: 'Paginate(Collections())   — Ctrl+Enter runs',
  v10: 'Collection.all()   — Ctrl+Enter runs',
};

function storedLanguage(): Language {
  try {
    return localStorage.getItem(LANGUAGE_KEY) === 'v10' ? 'v10' : 'v4';
  } catch {
    return 'v4'; // storage disabled: the default every time
  }
}

export function queryEditor(): Panel {
  let client: FloraClient | undefined;
  const source = h('textarea', { id: 'query', rows: '8', spellcheck: 'false' });
  const language = h('select', { id: 'query-language', 'aria-label': 'Query language' }, h('option', { value: 'v4' }, 'FQL v4'), h('option', { value: 'v10' }, 'FQL v10'));
  const choose = (l: Language) => {
    language.value = l;
    source.placeholder = PLACEHOLDERS[l];
  };
  choose(storedLanguage());
  language.addEventListener('change', () => {
    const l = language.value === 'v10' ? 'v10' : 'v4';
    choose(l);
    try {
      localStorage.setItem(LANGUAGE_KEY, l);
    } catch {
      // not remembered
    }
  });
  const coloured = h('pre', { id: 'query-highlight', class: 'highlight', 'aria-hidden': 'true' });
  /** The mistake the last run pointed at, marked in the editor until the text changes. */
  let mistake: Mistake | null = null;
  const paint = () => {
    const pieces: MarkedPiece[] = mistake ? markMistake(highlightPieces(source.value), mistake) : highlightPieces(source.value);
    // A final newline would not give the <pre> its last empty line: the space keeps the heights equal.
    replace(coloured, ...pieces.map((p) => h('span', { class: p.mistake ? `${p.kind} mistake` : p.kind }, p.text)), ' ');
    coloured.scrollTop = source.scrollTop;
  };
  /** Marks `m` in the editor and puts the cursor at its start. */
  const markAt = (m: Mistake | null) => {
    mistake = m;
    paint();
    if (m) {
      source.focus();
      source.setSelectionRange(m.offset, m.offset);
    }
  };
  source.addEventListener('input', () => {
    mistake = null;
    paint();
  });
  source.addEventListener('scroll', () => (coloured.scrollTop = source.scrollTop));
  const scope = h('span', { id: 'query-scope' });
  const box = h('div', { class: 'messages' });
  const asTree = h('div', { id: 'result-tree', class: 'result' });
  const asFql = h('pre', { id: 'result-fql', class: 'result' });
  const asJson = h('pre', { id: 'result-json', class: 'result json' });
  const metrics = h('table', { id: 'metrics' });
  // txn_ts (µs) also as a time people read.
  const showMetrics = (m: Record<string, string>) =>
    replace(metrics, ...Object.entries(m).map(([k, v]) => h('tr', {}, h('th', {}, k.replace(/^x-/, '')), h('td', {}, k === 'txn_ts' && /^\d+$/.test(v) ? tsElement(BigInt(v)) : v))));

  const runV10 = async () => {
    show(box, null);
    try {
      const answer = await client!.queryV10(source.value);
      replace(asFql, answer.fql);
      // Warnings and log() lines come with their source, as the summary has them.
      if (answer.summary) replace(box, h('pre', { class: 'notice summary' }, answer.summary));
      showMetrics(answer.metrics);
    } catch (err) {
      // A query that ran and failed: its summary says what and where; a refused request: one line.
      if (err instanceof FloraError && err.summary && !err.forbidden && !err.unauthorized) {
        replace(box, h('pre', { class: 'error summary', role: 'alert' }, `${err.code}: ${err.description}\n\n${err.summary}`));
        markAt(summaryMistake(source.value, err.summary));
      } else show(box, describeError(err, 'run the query'));
    }
  };

  const run = async () => {
    replace(asTree);
    replace(asFql);
    replace(asJson);
    replace(metrics);
    markAt(null);
    if (language.value === 'v10') return runV10();
    let expr: JsonValue;
    try {
      expr = fql(source.value);
    } catch (err) {
      if (!(err instanceof FqlJsError)) return show(box, String(err));
      // Its excerpt and caret keep their lines; the mistake is marked in the editor too.
      replace(box, h('pre', { class: 'error summary', role: 'alert' }, `Syntax: ${err.message}`));
      markAt({ offset: err.offset, length: 1 });
      return;
    }
    const c = client!;
    const answer = await attempt(box, 'run the query', () => c.query(expr));
    if (!answer) return;
    replace(asTree, valueTree(answer.value));
    replace(asFql, renderValue(answer.value));
    replace(asJson, prettyJson(answer.value));
    showMetrics(answer.metrics);
  };
  source.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      void run();
    }
  });
  const element = h(
    'section',
    { id: 'query-panel', class: 'panel' },
    h('h2', {}, 'Query ', scope, ' ', language),
    h('div', { class: 'editor' }, coloured, source),
    h('button', { type: 'button', id: 'run-query', onclick: () => void run() }, 'Run (Ctrl+Enter)'),
    box,
    h('div', { class: 'results' }, h('div', {}, h('h3', {}, 'Result'), asTree), h('div', {}, h('h3', {}, 'FQL'), asFql, h('h3', {}, 'JSON'), asJson), h('div', {}, h('h3', {}, 'Metrics'), metrics)),
  );
  return {
    id: 'query',
    label: 'Query',
    element,
    open(c) {
      client = c;
      scope.textContent = `in ${pathLabel(c.path)}`;
    },
  };
}
