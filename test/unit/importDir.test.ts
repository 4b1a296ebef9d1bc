// insideImportDir (src/transfer/importDir.ts): a server path is taken only inside the import
// directory once `..` and symlinks are resolved, and every refusal is the same undefined whether the
// file exists or not.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { insideImportDir } from '../../src/transfer/importDir';

const tmp = realpathSync(mkdtempSync(path.join(tmpdir(), 'flora-import-dir-')));
after(() => rmSync(tmp, { recursive: true, force: true }));
const dir = path.join(tmp, 'imports');
mkdirSync(path.join(dir, 'sub'), { recursive: true });
mkdirSync(path.join(tmp, 'outside'));
writeFileSync(path.join(dir, 'sub', 'a.ndjson'), '{}\n');
writeFileSync(path.join(tmp, 'outside', 'b.ndjson'), '{}\n');
writeFileSync(path.join(dir, '..b.ndjson'), '{}\n');
symlinkSync(path.join(tmp, 'outside', 'b.ndjson'), path.join(dir, 'out'));
symlinkSync(path.join(dir, 'sub', 'a.ndjson'), path.join(dir, 'in'));
symlinkSync(dir, path.join(tmp, 'alias'));

test('paths inside the directory, absolute or relative, and symlinks that stay inside', async () => {
  const a = path.join(dir, 'sub', 'a.ndjson');
  assert.equal(await insideImportDir(dir, a), a);
  assert.equal(await insideImportDir(dir, 'sub/a.ndjson'), a);
  assert.equal(await insideImportDir(dir, 'sub/../sub/a.ndjson'), a);
  assert.equal(await insideImportDir(dir, 'in'), a);
  assert.equal(await insideImportDir(dir, 'sub'), path.join(dir, 'sub'));
  assert.equal(await insideImportDir(dir, '..b.ndjson'), path.join(dir, '..b.ndjson'), 'a name that starts with two dots');
  assert.equal(await insideImportDir(path.join(tmp, 'alias'), path.join(tmp, 'alias', 'sub', 'a.ndjson')), a, 'the directory named through a symlink');
});

test('everything else is refused alike, existing or not', async () => {
  for (const p of ['/etc/passwd', '/etc/flora-no-such', '../outside/b.ndjson', '../outside/none.ndjson', `${dir}/../outside/b.ndjson`, 'out', 'none.ndjson', '', 'sub/a.ndjson\0']) {
    assert.equal(await insideImportDir(dir, p), undefined, p);
  }
  assert.equal(await insideImportDir('', '/etc/passwd'), undefined, 'no directory: off');
  assert.equal(await insideImportDir(path.join(tmp, 'none'), 'a'), undefined, 'a directory that does not exist');
});
