'use strict';
// Compiles the TypeScript into dist/ (and bundles the dashboard into dist/admin) only when needed. Plain JS because it runs before any build.
//
// dist/ is fresh when the list of inputs (every file tsconfig.json includes, tsconfig.json,
// package.json, package-lock.json and the installed TypeScript) with their sizes and mtimes equals
// the list recorded after the last successful compile, and every source has its output. Any change
// — an edit, a file added, deleted or restored with an older mtime, a checkout — makes it stale.
// A compile that fails records nothing, so a broken or stale build never runs. Commands started
// together take turns (dist/.build-lock) rather than both writing dist/.
//
// Two compilers: tsc, which type-checks (this script, `npm run build`, `npm test`, `npm pack`), and
// esbuild, which transpiles the changed files in a second and checks nothing (`flora start` from a
// checkout: bin/flora.js). The record says which one built dist/, so a build that must be checked
// runs tsc after esbuild even though the sources have not changed since. It also lists the files
// esbuild wrote since tsc last ran: tsc --incremental re-emits only the sources that differ from its
// build info, so one changed and changed back in between would keep esbuild's output; tsc is then
// run again from scratch.
//
//   node scripts/build.js          compile (with tsc) if stale
//   node scripts/build.js --force  compile anyway

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { adminInputs, adminOutputs, bundleAdmin } = require('./bundleAdmin');
const { transpile } = require('./transpile');

const ROOT = path.resolve(__dirname, '..');
const STAMP = '.build-inputs';

/** What tsconfig.json says about where sources and outputs are, or null if it says what we can't follow. */
function projectLayout(root) {
  let config;
  try {
    config = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
  } catch {
    return null; // e.g. comments, which tsc allows: compile every time rather than guess
  }
  const options = config.compilerOptions ?? {};
  if (config.files || config.exclude || config.references || config.extends || !Array.isArray(config.include)) return null;
  const dirs = [];
  for (const pattern of config.include) {
    const m = /^([\w.-]+(?:\/[\w.-]+)*)\/\*\*\/\*\.ts$/.exec(pattern); // only "<dir>/**/*.ts"
    if (!m) return null;
    dirs.push(m[1]);
  }
  if (typeof options.outDir !== 'string' || path.resolve(root, options.rootDir ?? '.') !== path.resolve(root)) return null;
  const outDir = path.join(root, options.outDir);
  const buildInfo = typeof options.tsBuildInfoFile === 'string' ? path.join(root, options.tsBuildInfoFile) : undefined;
  return { dirs, outDir, buildInfo };
}

/** Appends to `out` the files under `dir` (recursively) whose name `wanted` accepts; a missing `dir` has none. */
function walk(dir, out, wanted = (name) => name.endsWith('.ts')) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOENT') return;
    throw err;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out, wanted);
    else if (wanted(e.name)) out.push(p);
  }
}

/** The inputs' state as text (one "path size mtime" line each), or null when the layout is unknown. */
function snapshot(root = ROOT) {
  const layout = projectLayout(root);
  if (!layout) return null;
  const files = [];
  for (const dir of layout.dirs) walk(path.join(root, dir), files);
  files.push(...['tsconfig.json', 'package.json', 'package-lock.json', 'node_modules/typescript/package.json'].map((f) => path.join(root, f)));
  files.push(...adminInputs(root));
  const lines = [];
  for (const file of files.sort()) {
    let st;
    try {
      st = fs.statSync(file, { bigint: true });
    } catch (err) {
      if (err.code === 'ENOENT') continue; // e.g. no package-lock.json: its absence is part of the state
      throw err;
    }
    lines.push(`${path.relative(root, file)} ${st.size} ${st.mtimeNs}`);
  }
  return lines.join('\n') + '\n';
}

/** Sources (not declarations) of the project, as absolute paths. */
function sources(root, layout) {
  const files = [];
  for (const dir of layout.dirs) walk(path.join(root, dir), files);
  return files.filter((f) => !f.endsWith('.d.ts'));
}

/** Where the compile of `source` writes its JavaScript. */
function outputOf(root, layout, source) {
  return path.join(layout.outDir, path.relative(root, source)).replace(/\.ts$/, '.js');
}

/** Sources (not declarations) whose .js is missing from the output directory. */
function missingOutputs(root, layout) {
  return sources(root, layout).filter((f) => !fs.existsSync(outputOf(root, layout, f)));
}

/** Removes the outputs (.js, .js.map) of sources since deleted: neither tsc nor esbuild does, and `npm pack` would ship them. */
function pruneOrphans(root, layout) {
  const outputs = [];
  for (const dir of layout.dirs) walk(path.join(layout.outDir, dir), outputs, (name) => /\.js(?:\.map)?$/.test(name));
  for (const p of outputs) {
    const source = path.relative(layout.outDir, p).replace(/\.js(?:\.map)?$/, '.ts');
    if (!fs.existsSync(path.join(root, source))) fs.rmSync(p, { force: true });
  }
}

const TSC = 'tsc';
const ESBUILD = 'esbuild';
const EMITTED = 'emitted ';

/**
 * The record of the last build: which compiler made it, the sources esbuild wrote since tsc last
 * ran (relative paths), and the inputs' snapshot. Null when there is none.
 * The record is text: `# built by <compiler>`, then `# emitted <source>` lines, then the snapshot.
 */
function readRecord(root, layout) {
  let text;
  try {
    text = fs.readFileSync(path.join(layout.outDir, STAMP), 'utf8');
  } catch {
    return null;
  }
  const header = /^# built by (tsc|esbuild)\n/.exec(text);
  if (!header) return null; // written by an older build.js: build again
  const lines = text.slice(header[0].length).split('\n');
  const emitted = [];
  while (lines[0]?.startsWith(`# ${EMITTED}`)) emitted.push(lines.shift().slice(EMITTED.length + 2));
  return { by: header[1], emitted, inputs: lines.join('\n') };
}

/**
 * Why dist/ must be compiled, or null when it is fresh. With `typeChecked`, a build esbuild made
 * (which checked nothing) is stale too.
 */
function staleReason(root = ROOT, { typeChecked = true } = {}) {
  const layout = projectLayout(root);
  if (!layout) return 'tsconfig.json has a layout this check does not follow';
  const record = readRecord(root, layout);
  if (!record) return 'no build yet';
  if (record.inputs !== snapshot(root)) return 'sources changed since the last build';
  if (typeChecked && record.by !== TSC) return 'the last build was not type-checked';
  // (A missing dashboard file is rebuilt by the bundle step alone: tsc's build info stays.)
  if (missingOutputs(root, layout).length > 0 || adminOutputs(root).some((out) => !fs.existsSync(out))) return 'files are missing from the build';
  return null;
}

/** Records `inputs` (a snapshot) as what dist/ was compiled from, by tsc or (with the sources it wrote) by esbuild. */
function recordBuild(root, inputs, { by = TSC, emitted = [] } = {}) {
  const stamp = path.join(projectLayout(root).outDir, STAMP);
  const header = [`# built by ${by}`, ...emitted.map((f) => `# ${EMITTED}${f}`)].join('\n') + '\n';
  fs.writeFileSync(stamp + '.tmp', header + inputs);
  fs.renameSync(stamp + '.tmp', stamp); // atomic: a concurrent check reads the old stamp or the new one
}

/** A compile lasts seconds; a lock this old was left by something stuck or gone. */
const LOCK_MAX_AGE_MS = 120_000;

/** The pid in `lock`, 0 while it is being written, or null when there is no lock. */
function lockHolder(lock) {
  try {
    return Number(fs.readFileSync(lock, 'utf8')) || 0;
  } catch {
    return null;
  }
}

function abandoned(lock, pid) {
  try {
    if (Date.now() - fs.statSync(lock).mtimeMs > LOCK_MAX_AGE_MS) return true;
  } catch {
    return false;
  }
  return pid !== 0 && !alive(pid);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code !== 'ESRCH'; // gone: killed while compiling
  }
  try {
    // On Linux, a holder killed while compiling may linger as a zombie until its new parent reaps it.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(') ') + 2] !== 'Z';
  } catch {
    return true;
  }
}

/** Runs fn holding `lock` (a file naming its holder's pid), so that commands started together do not both write dist/. */
function withLock(lock, log, fn) {
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  let told = false;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const pid = lockHolder(lock);
    if (pid === null) continue;
    if (abandoned(lock, pid)) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    if (!told) log(`flora: waiting for the compile of process ${pid} to finish…`);
    told = true;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100); // a synchronous sleep: nothing else runs yet
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/**
 * Compiles when stale (or when forced) and records the inputs; true when dist/ is fresh afterwards.
 * `typeChecked: false` accepts (and makes) a build esbuild transpiled. Progress and the compiler's
 * own output go to `log` (stderr), so that the command's stdout stays its own.
 */
function ensureBuilt({ root = ROOT, force = false, typeChecked = true, log = (line) => process.stderr.write(line + '\n') } = {}) {
  const stale = force ? 'build requested' : staleReason(root, { typeChecked });
  if (stale === null) return true;
  const layout = projectLayout(root);
  return withLock(path.join(layout ? layout.outDir : path.join(root, 'dist'), '.build-lock'), log, () => {
    // Whoever held the lock may have just compiled the same sources.
    const reason = force ? stale : staleReason(root, { typeChecked });
    if (reason === null) return true;
    // Taken before compiling: a file edited during the compile then differs from it and is compiled next time.
    const before = snapshot(root);
    const started = Date.now();
    const compiled = typeChecked || !layout ? compileChecked(root, layout, reason, log) : compileQuick(root, layout, before, reason, log);
    if (!compiled) return false;
    try {
      if (!bundleAdmin(root, log)) return false;
    } catch (err) {
      log(`flora: the dashboard bundle failed: ${err.message}`);
      return false;
    }
    if (layout) pruneOrphans(root, layout);
    if (layout && before !== null) recordBuild(root, before, compiled);
    log(`flora: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return true;
  });
}

/** tsc over the whole project; the record to write, or null when it failed (its errors logged). */
function compileChecked(root, layout, reason, log) {
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  } catch {
    log(`flora: dist/ must be compiled (${reason}) but TypeScript is not installed: run npm install`);
    return null;
  }
  const previous = layout ? readRecord(root, layout) : null;
  // tsc --incremental trusts its build info even when outputs were deleted; without it, it re-emits everything.
  if (layout?.buildInfo && missingOutputs(root, layout).length > 0) fs.rmSync(layout.buildInfo, { force: true });
  log(`flora: compiling TypeScript into dist/ (${reason})…`);
  const emitted = runTsc(root, tsc, log);
  if (!emitted) return null;
  const quick = previous?.by === ESBUILD ? previous.emitted.filter((f) => fs.existsSync(path.join(root, f))) : [];
  const left = quick.filter((f) => !emitted.has(outputOf(root, layout, path.join(root, f))));
  if (left.length > 0 && layout.buildInfo) {
    log(`flora: ${left.length} file(s) esbuild compiled were unchanged for tsc: compiling everything…`);
    fs.rmSync(layout.buildInfo, { force: true });
    if (!runTsc(root, tsc, log)) return null;
  }
  return { by: TSC };
}

/** Runs tsc; the files it wrote (absolute paths), or null when it failed (its errors logged). */
function runTsc(root, tsc, log) {
  const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json'), '--listEmittedFiles'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const emitted = new Set();
  const output = [];
  for (const line of `${run.stdout ?? ''}${run.stderr ?? ''}`.trimEnd().split('\n')) {
    if (line.startsWith('TSFILE: ')) emitted.add(path.resolve(root, line.slice('TSFILE: '.length)));
    else output.push(line);
  }
  if (output.join('').trim()) log(output.join('\n'));
  if (run.status !== 0) {
    log(`flora: compile failed${run.signal ? ` (${run.signal})` : ''}; fix the errors above`);
    return null;
  }
  return emitted;
}

/**
 * esbuild over the sources changed since the last build (all of them when anything else changed:
 * tsconfig.json, a package); the record to write, or null when it failed.
 */
function compileQuick(root, layout, inputs, reason, log) {
  const previous = readRecord(root, layout);
  const all = sources(root, layout);
  let files = all;
  if (previous && inputs !== null) {
    const before = new Set(previous.inputs.split('\n'));
    const changed = inputs.split('\n').filter((line) => line && !before.has(line)).map((line) => line.slice(0, line.lastIndexOf(' ', line.lastIndexOf(' ') - 1)));
    if (changed.every((f) => f.endsWith('.ts'))) {
      const wanted = new Set(changed.map((f) => path.join(root, f)));
      files = all.filter((f) => wanted.has(f) || !fs.existsSync(outputOf(root, layout, f)));
    }
  }
  log(`flora: compiling ${files.length} file(s) with esbuild (${reason}; type checking: npm run build)…`);
  if (!transpile(root, layout.outDir, files, log)) return null;
  const emitted = new Set(previous?.by === ESBUILD ? previous.emitted : []);
  for (const f of files) emitted.add(path.relative(root, f));
  return { by: ESBUILD, emitted: [...emitted].sort() };
}

module.exports = { ensureBuilt, staleReason, snapshot, recordBuild, projectLayout };

if (require.main === module) {
  process.exitCode = ensureBuilt({ force: process.argv.includes('--force') }) ? 0 : 1;
}
