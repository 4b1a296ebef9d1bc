// The GraphQL tab: import a schema (typed, or read from a .graphql/.gql file) into the selected
// database in one of the three modes, an override confirmed first with what it deletes; below it,
// GraphiQL on that database's /graphql, its bundle fetched the first time the tab is shown.

import type { FloraClient } from './client';
import { h } from './dom';
import { loadGraphiql } from './graphiqlLoader';
import { IMPORT_MODES, graphqlFetcher, importMadeQuery, importSchema, overrideWarning, readImportMade, type ImportMode } from './graphqlQueries';
import { attempt, show } from './messages';
import type { Panel } from './panel';
import { pathLabel } from './values';

const EXAMPLE = `type User {
  email: String! @unique
  name: String
}

type Query {
  allUsers: [User!]
}`;

/** The file names a schema file may have. */
const SCHEMA_FILE = /\.(graphql|gql)$/i;


export function graphqlPanel(): Panel {
  let client: FloraClient | undefined;
  const scope = h('span', { id: 'graphql-scope' });
  const sdl = h('textarea', { id: 'schema-text', rows: '10', spellcheck: 'false', placeholder: `A schema in GraphQL SDL, for example:\n\n${EXAMPLE}` });
  const file = h('input', { type: 'file', id: 'schema-file', accept: '.graphql,.gql' });
  const modes = IMPORT_MODES.map(({ mode, explains }) =>
    h(
      'label',
      { class: 'mode', for: `import-mode-${mode}` },
      h('input', { type: 'radio', name: 'import-mode', id: `import-mode-${mode}`, value: mode, checked: mode === 'merge' }),
      h('strong', {}, mode),
      h('span', { class: 'explains' }, explains),
    ),
  );
  const form = h(
    'form',
    { id: 'import-schema' },
    h('label', { for: 'schema-text' }, 'Schema (GraphQL SDL)'),
    sdl,
    h('label', { for: 'schema-file', class: 'file' }, 'or read it from a .graphql or .gql file: ', file),
    h('fieldset', { id: 'import-mode' }, h('legend', {}, 'Mode'), ...modes),
    h('button', { type: 'submit' }, 'Import schema'),
  );
  const box = h('div', { id: 'import-messages', class: 'messages' });
  const playground = h('div', { id: 'graphiql' }, h('p', { class: 'loading' }, 'Loading GraphiQL…'));
  const playgroundBox = h('div', { id: 'graphiql-messages', class: 'messages' });

  let imports = 0;
  /** GraphiQL on the current database: (re)rendered with a new fetcher, so it re-reads the schema. */
  const showGraphiql = async () => {
    const c = client!;
    const host = await attempt(playgroundBox, 'load GraphiQL', loadGraphiql);
    if (host && client === c) host.render(playground, graphqlFetcher(c), `${c.path.join('/')}#${imports}`);
  };

  file.addEventListener('change', () => {
    const picked = file.files?.[0];
    file.value = ''; // picking the same file again (edited on disk) reads it again
    if (!picked) return;
    if (!SCHEMA_FILE.test(picked.name)) return show(box, `${picked.name} is not a schema file: pick a .graphql or .gql file.`);
    void attempt(box, `read ${picked.name}`, async () => {
      sdl.value = await picked.text();
      show(box, `Read ${picked.name} (${picked.size} bytes): choose a mode and import it.`, 'notice');
    });
  });

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const c = client!;
    const text = sdl.value;
    const mode = (form.querySelector<HTMLInputElement>('input[name=import-mode]:checked')?.value ?? 'merge') as ImportMode;
    const db = pathLabel(c.path);
    if (text.trim() === '') return show(box, 'The schema is empty: type one (see the example in the box) or pick a .graphql file.');
    void attempt(box, 'import the schema', async () => {
      if (mode === 'override') {
        const { value } = await c.query(importMadeQuery());
        if (!window.confirm(overrideWarning(db, readImportMade(value)))) return show(box, 'Override cancelled: nothing was changed.', 'notice');
      }
      const answer = await importSchema(c, text, mode);
      show(box, `${answer} (${mode}, database ${db}): GraphiQL below uses it now.`, 'notice');
      imports++;
      void showGraphiql();
    });
  });

  const element = h(
    'section',
    { id: 'graphql-panel', class: 'panel' },
    h('h2', {}, 'GraphQL ', scope),
    form,
    box,
    h('h3', {}, 'GraphiQL'),
    playgroundBox,
    playground,
  );
  return {
    id: 'graphql',
    label: 'GraphQL',
    element,
    open(c) {
      client = c;
      scope.textContent = `in ${pathLabel(c.path)}`;
      void showGraphiql();
    },
  };
}
