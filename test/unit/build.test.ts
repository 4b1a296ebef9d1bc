// scripts/build.js: dist/ is compiled when, and only when, it may be stale.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, statSync, utimesSync, writeFileSync, existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface BuildModule {
  ensureBuilt(opts: { root: string; force?: boolean; log?: (line: string) => void }): boolean;
  staleReason(root: string): string | null;
  projectLayout(root: string): { dirs: string[]; outDir: string; buildInfo?: string } | null;
}
// Plain JS (it runs before any compile), so loaded by path from the checkout.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const build = require(path.join(ROOT, 'scripts', 'build.js')) as BuildModule;

/** A small project laid out like this one, sharing its node_modules (for tsc). */
function project(): { root: string; write(file: string, text: string): void; logs: string[]; ensure(force?: boolean): boolean; cleanup(): void } {
  const root = mkdtempSync(path.join(tmpdir(), 'flora-build-'));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  write('package.json', '{"name":"p","private":true}\n');
  write(
    'tsconfig.json',
    JSON.stringify({
      // noLib and a few declarations instead of the standard library: tsc in well under a second.
      compilerOptions: { strict: true, noLib: true, types: [], module: 'commonjs', target: 'ES2022', outDir: 'dist', rootDir: '.', incremental: true, tsBuildInfoFile: 'dist/.tsbuildinfo' },
      include: ['src/**/*.ts', 'test/**/*.ts'],
    }),
  );
  write('src/lib.d.ts', ['Array<T>', 'Boolean', 'Function', 'CallableFunction', 'NewableFunction', 'IArguments', 'Number', 'Object', 'RegExp', 'String'].map((t) => `interface ${t} {}`).join('\n'));
  write('src/a.ts', 'export const a: number = 1;\n');
  write('src/sub/b.ts', "import { a } from '../a';\nexport const b = a + 1;\n");
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  const logs: string[] = [];
  return {
    root,
    write,
    logs,
    ensure: (force = false) => build.ensureBuilt({ root, force, log: (l) => logs.push(l) }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

test('this repository’s tsconfig.json is one the check follows (else every start would compile)', () => {
  const layout = build.projectLayout(ROOT);
  assert.ok(layout);
  assert.deepEqual(layout.dirs, ['src', 'test', 'bench', 'scripts', 'torture']);
});

test('compiles when there is no build, then not until an input changes', () => {
  const p = project();
  try {
    assert.equal(build.staleReason(p.root), 'no build yet');
    assert.equal(p.ensure(), true);
    assert.match(p.logs[0], /compiling TypeScript into dist\/ \(no build yet\)/);
    assert.ok(existsSync(path.join(p.root, 'dist/src/sub/b.js')));
    assert.equal(build.staleReason(p.root), null);
    p.logs.length = 0;
    assert.equal(p.ensure(), true);
    assert.deepEqual(p.logs, [], 'nothing to do, nothing said');

    const changed = 'sources changed since the last build';
    // An edit, even one that keeps the size, and even one whose file gets an older mtime.
    const a = path.join(p.root, 'src/a.ts');
    const before = statSync(a);
    p.write('src/a.ts', 'export const a: number = 2;\n');
    utimesSync(a, before.atime, new Date(before.mtimeMs - 60_000));
    assert.equal(build.staleReason(p.root), changed);
    assert.equal(p.ensure(), true);
    assert.equal(build.staleReason(p.root), null);

    // A file added (and removed again: the inputs are as built), package.json touched, a file deleted.
    p.write('test/c.ts', 'export const c = 3;\n');
    assert.equal(build.staleReason(p.root), changed);
    unlinkSync(path.join(p.root, 'test/c.ts'));
    assert.equal(build.staleReason(p.root), null);
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(p.root, 'package.json'), later, later);
    assert.equal(build.staleReason(p.root), changed);
    assert.equal(p.ensure(), true);
    assert.equal(build.staleReason(p.root), null);
    unlinkSync(path.join(p.root, 'src/sub/b.ts'));
    assert.equal(build.staleReason(p.root), changed);
  } finally {
    p.cleanup();
  }
});

test('an output deleted from dist/ is compiled again, although tsc’s build info says it is current', () => {
  const p = project();
  try {
    assert.equal(p.ensure(), true);
    unlinkSync(path.join(p.root, 'dist/src/sub/b.js'));
    assert.equal(build.staleReason(p.root), 'files are missing from the build');
    assert.equal(p.ensure(), true);
    assert.ok(existsSync(path.join(p.root, 'dist/src/sub/b.js')));
    assert.equal(build.staleReason(p.root), null);
  } finally {
    p.cleanup();
  }
});

test('a failed compile records nothing: the build stays stale until it compiles', () => {
  const p = project();
  try {
    assert.equal(p.ensure(), true);
    p.write('src/a.ts', 'export const a: number = "not a number";\n');
    assert.equal(p.ensure(), false);
    assert.ok(p.logs.some((l) => /TS2322/.test(l)), 'tsc’s errors are passed on');
    assert.match(p.logs[p.logs.length - 1], /compile failed/);
    // tsc emitted JavaScript anyway; it must not count as a build.
    assert.equal(build.staleReason(p.root), 'sources changed since the last build');
    p.write('src/a.ts', 'export const a: number = 3;\n');
    assert.equal(p.ensure(), true);
    assert.equal(build.staleReason(p.root), null);
  } finally {
    p.cleanup();
  }
});

test('a tsconfig.json the check cannot follow means compiling every time', () => {
  const p = project();
  try {
    p.write('tsconfig.json', JSON.stringify({ compilerOptions: { outDir: 'dist', rootDir: '.' }, include: ['src/*.ts'] }));
    assert.equal(build.projectLayout(p.root), null);
    assert.equal(p.ensure(), true);
    assert.match(build.staleReason(p.root) ?? '', /layout this check does not follow/);
  } finally {
    p.cleanup();
  }
});
