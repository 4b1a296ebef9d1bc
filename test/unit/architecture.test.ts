// Folder layering (ARCHITECTURE.md, "Folders"): lower folders never import higher ones. model/
// serves both FQL v4 (fql/) and FQL v10 (fql10/), so it imports neither; fql10/ shares with v4
// through the folders below them, never fql/; wire/ knows only values/ (and loop/, the event-loop
// turns its JSON parser yields through); values/, loop/ and regex/ (the linear-time regex engine both
// languages use) are the bottom, and so is diag/ (the server's log, which every room writes to).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.resolve(__dirname, '..', '..', '..', 'src');

interface Rule {
  folder: string;
  /** Folders it may not import. */
  refuses?: string[];
  /** The only folders it may import (besides its own). */
  only?: string[];
}

const RULES: Rule[] = [
  { folder: 'model', refuses: ['fql', 'fql10'] },
  { folder: 'fql10', refuses: ['fql'] },
  { folder: 'wire', only: ['values', 'loop'] },
  { folder: 'values', only: [] },
  { folder: 'loop', only: [] },
  { folder: 'regex', only: [] },
  { folder: 'diag', only: [] },
];

function sourcesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourcesUnder(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The top folder of src/ that `file` lies in ('' for a file directly in src/). */
function folderOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length > 1 ? parts[0] : '';
}

/** Every relative import of the sources under src/`folder` (static, type-only, dynamic, re-exports), as the folder it reaches. */
function importsOf(folder: string): { file: string; spec: string; target: string }[] {
  return sourcesUnder(path.join(SRC, folder)).flatMap((file) =>
    ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => ({
        file: path.relative(SRC, file),
        spec: fileName,
        target: folderOf(path.resolve(path.dirname(file), fileName)),
      })),
  );
}

for (const { folder, refuses, only } of RULES) {
  const what = refuses ? `imports nothing from ${refuses.join('/, ')}/` : `imports only from ${only!.length ? only!.join('/, ') + '/' : 'itself'}`;
  test(`${folder}/ ${what}`, () => {
    const wrong = importsOf(folder)
      .filter(({ target }) => target !== folder && (refuses ? refuses.includes(target) : !only!.includes(target)))
      .map(({ file, spec }) => `src/${file} imports ${spec}`);
    assert.deepEqual(wrong, []);
  });
}

test('imports are read in every form, and the folders ruled exist', () => {
  // The check reads what TypeScript reads: a rule on folders that are not there would pass silently.
  for (const { folder } of RULES.filter((r) => r.folder !== 'fql10')) assert.ok(sourcesUnder(path.join(SRC, folder)).length > 0, folder);
  const found = ts
    .preProcessFile("import type { A } from '../a';\nexport { B } from '../b';\nimport '../c';\nconst d = import('../d');\n// from '../e'\n", true, true)
    .importedFiles.map((f) => f.fileName);
  assert.deepEqual(found, ['../a', '../b', '../c', '../d']);
});
