// scripts/build.js: dist/ is compiled when, and only when, it may be stale.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { childrenOf } from '../helpers/procs';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface BuildModule {
  ensureBuilt(opts: { root: string; force?: boolean; typeChecked?: boolean; log?: (line: string) => void }): boolean;
  staleReason(root: string, opts?: { typeChecked?: boolean }): string | null;
  snapshot(root: string): string | null;
  recordBuild(root: string, inputs: string): void;
  projectLayout(root: string): { dirs: string[]; outDir: string; buildInfo?: string } | null;
}
// Plain JS (it runs before any compile), so loaded by path from the checkout.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const build = require(path.join(ROOT, 'scripts', 'build.js')) as BuildModule;

const CHANGED = 'sources changed since the last build';

/** A small project laid out like this one, sharing its node_modules (for tsc). */
function project() {
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
    /** Writes `file` again dated in 2000: a change the snapshot sees even at the same size and clock tick. */
    rewrite: (file: string, text: string) => {
      write(file, text);
      utimesSync(path.join(root, file), new Date(2000, 0, 1), new Date(2000, 0, 1));
    },
    ensure: () => build.ensureBuilt({ root, log: (l) => logs.push(l) }),
    /** As `flora start` from a checkout: esbuild, no type checking. */
    quick: () => build.ensureBuilt({ root, typeChecked: false, log: (l) => logs.push(l) }),
    /** As if compiled now, without running tsc. */
    record: () => build.recordBuild(root, build.snapshot(root) ?? ''),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

test('this repository’s tsconfig.json is one the check follows (else every start would compile)', () => {
  assert.deepEqual(build.projectLayout(ROOT)?.dirs, ['src', 'test', 'bench', 'scripts', 'torture']);
});

test('this repository’s tsconfig.json sets isolatedModules: tsc then refuses what esbuild’s file-by-file compile would get wrong', () => {
  const config = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  assert.equal(config.compilerOptions.isolatedModules, true);
});

const NOT_CHECKED = 'the last build was not type-checked';

test('esbuild (flora start): compiles what changed, says so, and its build is stale for whatever needs a type-checked one', () => {
  const p = project();
  try {
    p.write('src/admin/main.ts', 'export const shown = 1;\n');
    p.write('src/admin/index.html', '<!doctype html>\n');
    p.write('src/admin/app.css', 'body { margin: 0 }\n');
    p.write('src/wrong.ts', 'export const w: number = "types are not checked";\n');
    assert.equal(p.quick(), true, p.logs.join('\n'));
    assert.deepEqual(p.logs[0], 'flora: compiling 4 file(s) with esbuild (no build yet; type checking: npm run build)…');
    assert.match(p.logs[1], /^flora: compiled in \d+\.\d s$/);
    assert.equal(p.logs.length, 2);
    assert.match(readFileSync(path.join(p.root, 'dist/src/sub/b.js'), 'utf8'), /require\("\.\.\/a"\)/, 'CommonJS, laid out as tsc does');
    assert.ok(existsSync(path.join(p.root, 'dist/src/sub/b.js.map')));
    assert.ok(existsSync(path.join(p.root, 'dist/admin/app.js')));
    assert.equal(build.staleReason(p.root, { typeChecked: false }), null);
    assert.equal(build.staleReason(p.root), NOT_CHECKED);
    assert.deepEqual(childrenOf(process.pid), [], 'esbuild left no process behind');

    p.logs.length = 0;
    p.write('src/a.ts', 'export const a: number = 5;\n');
    assert.equal(p.quick(), true);
    assert.match(p.logs[0], /^flora: compiling 1 file\(s\) with esbuild \(sources changed/);
    assert.match(readFileSync(path.join(p.root, 'dist/src/a.js'), 'utf8'), /a = 5/);

    // npm test's build: tsc runs although no source changed since, and finds the type error.
    p.logs.length = 0;
    assert.equal(p.ensure(), false);
    assert.ok(p.logs.some((l) => /TS2322/.test(l)));
    unlinkSync(path.join(p.root, 'src/wrong.ts'));
    assert.equal(p.ensure(), true, p.logs.join('\n'));
    assert.equal(build.staleReason(p.root), null);
    assert.equal(existsSync(path.join(p.root, 'dist/src/wrong.js')), false, 'the output of a deleted source is removed (npm pack would ship it)');
    assert.equal(existsSync(path.join(p.root, 'dist/src/wrong.js.map')), false);
    assert.equal(build.staleReason(p.root, { typeChecked: false }), null, 'a checked build does for a start too');
    assert.deepEqual(childrenOf(process.pid), []);
  } finally {
    p.cleanup();
  }
});

test('a source esbuild compiled, then restored to what tsc last compiled, is compiled by tsc again (its build info alone would skip it)', () => {
  const p = project();
  try {
    assert.equal(p.ensure(), true);
    const tscOutput = readFileSync(path.join(p.root, 'dist/src/a.js'), 'utf8');
    p.rewrite('src/a.ts', 'export const a: number = 2;\n');
    assert.equal(p.quick(), true);
    assert.match(readFileSync(path.join(p.root, 'dist/src/a.js'), 'utf8'), /a = 2/);
    p.rewrite('src/a.ts', 'export const a: number = 1;\n');
    p.logs.length = 0;
    assert.equal(p.ensure(), true, p.logs.join('\n'));
    assert.ok(p.logs.includes('flora: 1 file(s) esbuild compiled were unchanged for tsc: compiling everything…'), p.logs.join('\n'));
    assert.equal(readFileSync(path.join(p.root, 'dist/src/a.js'), 'utf8'), tscOutput);
  } finally {
    p.cleanup();
  }
});

test('stale on any change of the inputs: an edit (even to an older mtime), a file added or deleted, package.json', () => {
  const p = project();
  try {
    assert.equal(build.staleReason(p.root), 'no build yet');
    p.write('dist/src/a.js', '');
    p.write('dist/src/sub/b.js', '');
    p.record();
    assert.equal(build.staleReason(p.root), null);

    const a = path.join(p.root, 'src/a.ts');
    const before = statSync(a);
    p.write('src/a.ts', 'export const a: number = 2;\n'); // same size
    utimesSync(a, before.atime, new Date(before.mtimeMs - 60_000));
    assert.equal(build.staleReason(p.root), CHANGED);
    p.record();

    p.write('test/c.ts', 'export const c = 3;\n');
    assert.equal(build.staleReason(p.root), CHANGED);
    unlinkSync(path.join(p.root, 'test/c.ts'));
    assert.equal(build.staleReason(p.root), null, 'removed again: the inputs are as built');

    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(p.root, 'package.json'), later, later);
    assert.equal(build.staleReason(p.root), CHANGED);
    p.record();

    unlinkSync(path.join(p.root, 'src/sub/b.ts'));
    assert.equal(build.staleReason(p.root), CHANGED);
    p.record();
    unlinkSync(path.join(p.root, 'dist/src/a.js'));
    assert.equal(build.staleReason(p.root), 'files are missing from the build');
  } finally {
    p.cleanup();
  }
});

test('tsc: compiles once, re-emits an output deleted behind its build info, and a failed compile counts for nothing', () => {
  const p = project();
  try {
    assert.equal(p.ensure(), true);
    assert.match(p.logs[0], /^flora: compiling TypeScript into dist\/ \(no build yet\)…$/);
    assert.match(p.logs[p.logs.length - 1], /^flora: compiled in \d+\.\d s$/);
    assert.equal(build.staleReason(p.root), null);
    p.logs.length = 0;
    assert.equal(p.ensure(), true);
    assert.deepEqual(p.logs, [], 'nothing to do, nothing said');

    // tsc --incremental alone would trust dist/.tsbuildinfo and emit nothing.
    unlinkSync(path.join(p.root, 'dist/src/sub/b.js'));
    assert.equal(p.ensure(), true);
    assert.ok(existsSync(path.join(p.root, 'dist/src/sub/b.js')));

    p.write('src/a.ts', 'export const a: number = "not a number";\n');
    p.logs.length = 0;
    assert.equal(p.ensure(), false);
    assert.ok(p.logs.some((l) => /TS2322/.test(l)), 'tsc’s errors are passed on');
    assert.match(p.logs[p.logs.length - 1], /compile failed/);
    // tsc emitted JavaScript anyway; it must not count as a build.
    assert.equal(build.staleReason(p.root), CHANGED);
  } finally {
    p.cleanup();
  }
});

test('commands started together take turns: one waits for the other’s compile; a lock left by a killed one is taken over', async () => {
  const p = project();
  const lock = path.join(p.root, 'dist/.build-lock');
  try {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    p.write('dist/.build-lock', String(dead));
    assert.equal(p.ensure(), true);
    assert.equal(p.logs.some((l) => /waiting/.test(l)), false);
    assert.equal(existsSync(lock), false, 'released');

    p.write('src/a.ts', 'export const a: number = 4;\n');
    // A live process holding the lock, which lets go after a moment.
    const holder = spawn(process.execPath, ['-e', `setTimeout(() => require('fs').rmSync(${JSON.stringify(lock)}), 300)`]);
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    p.write('dist/.build-lock', String(holder.pid));
    p.logs.length = 0;
    assert.equal(p.ensure(), true);
    assert.equal(p.logs[0], `flora: waiting for the compile of process ${holder.pid} to finish…`);
    assert.match(p.logs[1], /compiling TypeScript/);
    assert.equal(build.staleReason(p.root), null);
    await exited;
  } finally {
    p.cleanup();
  }
});

test('a tsconfig.json the check cannot follow means always stale', () => {
  const p = project();
  try {
    p.write('tsconfig.json', JSON.stringify({ compilerOptions: { outDir: 'dist', rootDir: '.' }, include: ['src/*.ts'] }));
    assert.equal(build.projectLayout(p.root), null);
    assert.equal(build.snapshot(p.root), null);
    assert.match(build.staleReason(p.root) ?? '', /layout this check does not follow/);
    p.write('tsconfig.json', '{ // tsc allows comments\n}');
    assert.equal(build.projectLayout(p.root), null);
  } finally {
    p.cleanup();
  }
});

test('the dashboard (src/admin) is bundled into dist/admin, and its non-TypeScript files count as inputs', () => {
  const p = project();
  try {
    p.write('src/admin/main.ts', "import { a } from '../a';\nexport const shown: number = a;\n");
    p.write('src/admin/index.html', '<!doctype html>\n');
    p.write('src/admin/app.css', 'body { margin: 0 }\n');
    assert.equal(p.ensure(), true, p.logs.join('\n'));
    const bundle = readFileSync(path.join(p.root, 'dist/admin/app.js'), 'utf8');
    assert.match(bundle, /\(\(\)=>\{/, 'one self-contained script');
    assert.equal(readFileSync(path.join(p.root, 'dist/admin/app.css'), 'utf8'), 'body { margin: 0 }\n');
    assert.equal(build.staleReason(p.root), null);

    p.rewrite('src/admin/app.css', 'body { margin: 1px }\n');
    assert.equal(build.staleReason(p.root), CHANGED);
    assert.equal(p.ensure(), true, p.logs.join('\n'));
    assert.equal(readFileSync(path.join(p.root, 'dist/admin/app.css'), 'utf8'), 'body { margin: 1px }\n');

    unlinkSync(path.join(p.root, 'dist/admin/app.js'));
    assert.equal(build.staleReason(p.root), 'files are missing from the build');
    p.write('src/admin/main.ts', 'export const broken = ;\n');
    assert.equal(p.ensure(), false, 'a source that does not compile builds nothing');
  } finally {
    p.cleanup();
  }
});

test('the GraphiQL bundle is built apart when its entry exists (React in production mode), its stylesheet bundled and counted as an input', () => {
  const p = project();
  try {
    p.write('src/admin/main.ts', 'export const shown = 1;\n');
    p.write('src/admin/index.html', '<!doctype html>\n');
    p.write('src/admin/app.css', 'body { margin: 0 }\n');
    p.write('src/admin/graphiqlBundle.ts', 'declare const process: { env: { NODE_ENV: string } };\nexport const mode: string = process.env.NODE_ENV;\n');
    p.write('src/admin/graphiql.css', '@import "./more.css";\n.g { color: red }\n');
    p.write('src/admin/more.css', '.m { margin: 0 }\n');
    assert.equal(p.ensure(), true, p.logs.join('\n'));
    assert.match(readFileSync(path.join(p.root, 'dist/admin/graphiql.js'), 'utf8'), /"production"/);
    assert.doesNotMatch(readFileSync(path.join(p.root, 'dist/admin/app.js'), 'utf8'), /production/, 'app.js does not take it in');
    const css = readFileSync(path.join(p.root, 'dist/admin/graphiql.css'), 'utf8');
    assert.match(css, /\.m\{margin:0\}[\s\S]*\.g\{color:red\}/, 'its @import resolved into one file');
    assert.equal(build.staleReason(p.root), null);

    p.rewrite('src/admin/graphiql.css', '.g { color: blue }\n');
    assert.equal(build.staleReason(p.root), CHANGED);
    assert.equal(p.ensure(), true, p.logs.join('\n'));
    unlinkSync(path.join(p.root, 'dist/admin/graphiql.css'));
    assert.equal(build.staleReason(p.root), 'files are missing from the build');
  } finally {
    p.cleanup();
  }
});
