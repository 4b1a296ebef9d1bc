'use strict';
// Bundles the dashboard (src/admin, a browser app) into dist/admin: app.js (esbuild, one minified
// file with everything it imports, so the page fetches nothing from elsewhere), app.css and
// index.html copied as they are. Called by build.js after tsc has type-checked the same sources.

const fs = require('node:fs');
const path = require('node:path');

const SOURCE = 'src/admin';
const OUTPUT = 'dist/admin';
/** Copied unchanged next to the bundle. */
const STATIC_FILES = ['index.html', 'app.css'];
const ENTRY = 'main.ts';

/** True when `root` has a dashboard to bundle (the build's own tests use roots without one). */
function hasAdmin(root) {
  return fs.existsSync(path.join(root, SOURCE, ENTRY));
}

/** Non-TypeScript inputs of the bundle (build.js's snapshot already covers every .ts file). */
function adminInputs(root) {
  if (!hasAdmin(root)) return [];
  return [...STATIC_FILES.map((f) => path.join(root, SOURCE, f)), path.join(root, 'node_modules/esbuild/package.json')];
}

/** What the bundle writes, to tell a build with files missing. */
function adminOutputs(root) {
  if (!hasAdmin(root)) return [];
  return ['app.js', ...STATIC_FILES].map((f) => path.join(root, OUTPUT, f));
}

/** Writes dist/admin; false (with the reason logged) when it cannot. */
function bundleAdmin(root, log) {
  if (!hasAdmin(root)) return true;
  let esbuild;
  try {
    esbuild = require(require.resolve('esbuild', { paths: [root] }));
  } catch {
    log('flora: the dashboard must be bundled but esbuild is not installed: run npm install');
    return false;
  }
  const outDir = path.join(root, OUTPUT);
  fs.mkdirSync(outDir, { recursive: true });
  const result = esbuild.buildSync({
    absWorkingDir: root,
    entryPoints: [path.join(SOURCE, ENTRY)],
    outfile: path.join(OUTPUT, 'app.js'),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  for (const w of result.warnings) log(`flora: dashboard bundle: ${w.text}`);
  for (const file of STATIC_FILES) fs.copyFileSync(path.join(root, SOURCE, file), path.join(outDir, file));
  return true;
}

module.exports = { bundleAdmin, adminInputs, adminOutputs };
