// The query editor: FQL v4 in the JavaScript driver's syntax, run with Ctrl+Enter (or the button) in
// the selected database; the answer as a tree to unfold, as the shell prints it and as raw JSON,
// with the query's metrics.

import { FqlJsError } from '../fqljs/errors';
import { renderValue } from '../fqljs/render';
import type { JsonValue } from '../wire/expr';
import type { FloraClient } from './client';
import { h, replace } from './dom';
import type { Panel } from './panel';
import { attempt, show } from './messages';
import { fql } from './queries';
import { pathLabel, prettyJson } from './values';
import { highlightPieces } from './highlight';
import { valueTree } from './valueTree';

export function queryEditor(): Panel {
  let client: FloraClient | undefined;
  const source = h('textarea', { id: 'query', rows: '8', spellcheck: 'false', placeholder: 'Paginate(Collections())   — Ctrl+Enter runs' });
  const coloured = h('pre', { id: 'query-highlight', class: 'highlight', 'aria-hidden': 'true' });
  const paint = () => {
    // A final newline would not give the <pre> its last empty line: the space keeps the heights equal.
    replace(coloured, ...highlightPieces(source.value).map((p) => h('span', { class: p.kind }, p.text)), ' ');
    coloured.scrollTop = source.scrollTop;
  };
  source.addEventListener('input', paint);
  source.addEventListener('scroll', () => (coloured.scrollTop = source.scrollTop));
  const scope = h('span', { id: 'query-scope' });
  const box = h('div', { class: 'messages' });
  const asTree = h('div', { id: 'result-tree', class: 'result' });
  const asFql = h('pre', { id: 'result-fql', class: 'result' });
  const asJson = h('pre', { id: 'result-json', class: 'result json' });
  const metrics = h('table', { id: 'metrics' });

  const run = async () => {
    replace(asTree);
    replace(asFql);
    replace(asJson);
    replace(metrics);
    let expr: JsonValue;
    try {
      expr = fql(source.value);
    } catch (err) {
      show(box, err instanceof FqlJsError ? `Syntax: ${err.message}` : String(err));
      return;
    }
    const c = client!;
    const answer = await attempt(box, 'run the query', () => c.query(expr));
    if (!answer) return;
    replace(asTree, valueTree(answer.value));
    replace(asFql, renderValue(answer.value));
    replace(asJson, prettyJson(answer.value));
    replace(metrics, ...Object.entries(answer.metrics).map(([k, v]) => h('tr', {}, h('th', {}, k.replace(/^x-/, '')), h('td', {}, v))));
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
    h('h2', {}, 'Query ', scope),
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
