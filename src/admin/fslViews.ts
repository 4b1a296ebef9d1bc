// FSL on screen: a file's text coloured (read-only), an editor that colours as one types (the
// query editor's transparent textarea over a <pre>), and a collection's definition as the schema
// files have it, for the collection's view.

import type { FloraClient } from './client';
import { h, replace } from './dom';
import { collectionDefinition, fslPieces } from './fslText';
import { describeError } from './messages';
import { readSchemaFiles } from './schemaQueries';

const spans = (text: string) => fslPieces(text).map((p) => h('span', { class: p.kind }, p.text));

/** `text` coloured, in a <pre> that keeps its lines as they are. */
export function fslPre(text: string, id?: string): HTMLPreElement {
  return h('pre', { id, class: 'fsl highlight' }, ...spans(text));
}

export interface FslEditor {
  readonly element: HTMLElement;
  readonly input: HTMLTextAreaElement;
  /** Sets the text (and its colours). */
  set(text: string): void;
}

export function fslEditor(id: string, label: string): FslEditor {
  const input = h('textarea', { id, rows: '14', spellcheck: 'false', 'aria-label': label });
  const coloured = h('pre', { class: 'highlight', 'aria-hidden': 'true' });
  const paint = () => {
    // A final newline would not give the <pre> its last empty line: the space keeps the heights equal.
    replace(coloured, ...spans(input.value), ' ');
    coloured.scrollTop = input.scrollTop;
  };
  input.addEventListener('input', paint);
  input.addEventListener('scroll', () => (coloured.scrollTop = input.scrollTop));
  return {
    element: h('div', { class: 'editor' }, coloured, input),
    input,
    set(text) {
      input.value = text;
      paint();
    },
  };
}

/**
 * Collection `name`'s FSL, read from the database's schema files (a collection made with
 * Collection.create or FQL v4 is in the generated main.fsl), shown in `target` with the file it is in.
 * `current()` says whether `target` still shows that collection once the files are read.
 */
export async function showCollectionFsl(target: HTMLElement, client: FloraClient, name: string, current: () => boolean): Promise<void> {
  replace(target, h('h3', {}, 'FSL'), h('p', { class: 'hint' }, 'Reading the schema files…'));
  let found: { file: string; text: string } | undefined;
  let problem = '';
  try {
    for (const f of (await readSchemaFiles(client)).files) {
      const text = collectionDefinition(f.text, name);
      if (text !== null) {
        found = { file: f.name, text };
        break;
      }
    }
  } catch (err) {
    problem = describeError(err, 'read the schema files');
  }
  if (!current()) return;
  const where = found ? h('p', { class: 'hint', id: 'collection-fsl-file' }, `In ${found.file} (the Schema tab edits and pushes it).`) : h('p', { class: 'hint' }, problem || `No schema file defines collection ${name}.`);
  replace(target, h('h3', {}, 'FSL'), where, found && fslPre(found.text, 'collection-fsl-text'));
}
