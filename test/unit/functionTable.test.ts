// The README's function coverage table must match the code and tests as they are.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readmeTable, renderFunctionTable } from '../../scripts/functionTable';

test('README function table is current (regenerate: node dist/scripts/functionTable.js)', () => {
  const readme = readFileSync(path.resolve(__dirname, '..', '..', '..', 'README.md'), 'utf8');
  assert.equal(readmeTable(readme), renderFunctionTable());
});
