// The GraphQL tab: GraphiQL on the selected database's /graphql (its bundle fetched the first time
// the tab is shown), the schema it serves as SDL, and below them the import of a schema (typed, or
// read from a .graphql/.gql file) in one of the three modes, an override confirmed first with what
// it deletes; the import is folded away once the database has a schema.

import type { FloraClient } from './client';
import { h, replace } from './dom';
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

  const current = h('pre', { id: 'current-schema', class: 'fsl' });
  const currentNote = h('p', { class: 'hint', id: 'current-schema-note' });
  const importDetails = h('details', { id: 'import-details' }, h('summary', {}, 'Import a schema'), form, box);

  let imports = 0;
  /** GraphiQL on the current database: (re)rendered with a new fetcher, so it re-reads the schema; the schema it serves printed. */
  const showGraphiql = async () => {
    const c = client!;
    const host = await attempt(playgroundBox, 'load GraphiQL', loadGraphiql);
    if (!host || client !== c) return;
    const fetcher = graphqlFetcher(c);
    host.render(playground, fetcher, `${c.path.join('/')}#${imports}`);
    const db = pathLabel(c.path);
    try {
      const sdlText = await host.schemaText(fetcher);
      if (client !== c) return;
      current.textContent = sdlText;
      currentNote.textContent = `What ${db} serves: the imported types with those Flora adds (pages, inputs).`;
    } catch (err) {
      if (client !== c) return;
      current.textContent = '';
      const message = (err as Error).message;
      // The server's answer when the database has none (src/graphql/execute.ts).
      const none = message.startsWith('No GraphQL schema');
      currentNote.textContent = none ? `${message} Import one under Import a schema below.` : `Could not read the schema: ${message}`;
      if (none) importDetails.open = true;
    }
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
      show(box, `${answer} (${mode}, database ${db}): GraphiQL above uses it now.`, 'notice');
      imports++;
      void showGraphiql();
    });
  });

  const element = h(
    'section',
    { id: 'graphql-panel', class: 'panel' },
    h('h2', {}, 'GraphQL ', scope),
    playgroundBox,
    playground,
    h('h3', {}, 'Current schema'),
    currentNote,
    current,
    importDetails,
  );
  return {
    id: 'graphql',
    label: 'GraphQL',
    element,
    open(c) {
      if (client?.path.join('/') !== c.path.join('/')) {
        importDetails.open = false; // opened again below if this database has no schema
        replace(current);
        currentNote.textContent = '';
      }
      client = c;
      scope.textContent = `in ${pathLabel(c.path)}`;
      void showGraphiql();
    },
  };
}
