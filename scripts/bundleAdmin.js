'use strict';
// Bundles the dashboard (src/admin, a browser app) into dist/admin with esbuild: app.js (one
// minified file with everything it imports, so the page fetches nothing from elsewhere), and apart
// from it graphiql.js with graphiql.css (GraphiQL and React, fetched only when the GraphQL tab is
// first shown, so the first screen stays small); index.html and app.css copied as they are. Called
// by build.js after compiling the same sources (type-checked by tsc, or for a start from a checkout
// transpiled by esbuild).

const fs = require('node:fs');
const path = require('node:path');
const { loadEsbuild } = require('./esbuild');

const SOURCE = 'src/admin';
const OUTPUT = 'dist/admin';
/** Copied unchanged next to the bundles. */
const STATIC_FILES = ['index.html', 'app.css'];
const ENTRY = 'main.ts';

/**
 * The scripts: `entry` (in SOURCE) bundled into `js`, and `css` (a stylesheet in SOURCE, its
 * @imports resolved) into a file of the same name. `packages` are the bundled libraries whose
 * version counts as an input; `alias` replaces a package with a file of ours. Only the first is required: the others are built when their entry
 * exists (the build's own tests use roots with main.ts alone).
 */
const BUNDLES = [
  { entry: ENTRY, js: 'app.js', packages: [] },
  {
    entry: 'graphiqlBundle.ts',
    js: 'graphiql.js',
    css: 'graphiql.css',
    packages: ['graphiql', '@graphiql/react', 'react', 'react-dom'],
    // GraphiQL's dialogs would add a <style> element the CSP refuses: see styleSingleton.ts.
    alias: { 'react-style-singleton': `./${SOURCE}/styleSingleton.ts` },
  },
];

/** True when `root` has a dashboard to bundle (the build's own tests use roots without one). */
function hasAdmin(root) {
  return fs.existsSync(path.join(root, SOURCE, ENTRY));
}

/** The bundles `root` has sources for. */
function bundlesOf(root) {
  if (!hasAdmin(root)) return [];
  return BUNDLES.filter((b) => fs.existsSync(path.join(root, SOURCE, b.entry)));
}

/** Non-TypeScript inputs of the bundles (build.js's snapshot already covers every .ts file). */
function adminInputs(root) {
  if (!hasAdmin(root)) return [];
  const inputs = [...STATIC_FILES.map((f) => path.join(root, SOURCE, f)), path.join(root, 'node_modules/esbuild/package.json')];
  for (const b of bundlesOf(root)) {
    if (b.css) inputs.push(path.join(root, SOURCE, b.css));
    for (const p of b.packages) inputs.push(path.join(root, 'node_modules', p, 'package.json'));
  }
  return inputs;
}

/** What the bundles write, to tell a build with files missing. */
function adminOutputs(root) {
  if (!hasAdmin(root)) return [];
  const written = bundlesOf(root).flatMap((b) => (b.css ? [b.js, b.css] : [b.js]));
  return [...written, ...STATIC_FILES].map((f) => path.join(root, OUTPUT, f));
}

/** Writes dist/admin; false (with the reason logged) when it cannot. */
function bundleAdmin(root, log) {
  if (!hasAdmin(root)) return true;
  const esbuild = loadEsbuild(root);
  if (!esbuild) {
    log('flora: the dashboard must be bundled but esbuild is not installed: run npm install');
    return false;
  }
  const outDir = path.join(root, OUTPUT);
  fs.mkdirSync(outDir, { recursive: true });
  const common = { absWorkingDir: root, bundle: true, minify: true, legalComments: 'none', logLevel: 'silent' };
  for (const b of bundlesOf(root)) {
    const results = [
      esbuild.buildSync({
        ...common,
        entryPoints: [path.join(SOURCE, b.entry)],
        outfile: path.join(OUTPUT, b.js),
        platform: 'browser',
        format: 'iife',
        target: ['es2022'],
        // React (and graphql-js) check this to leave out their development-only code.
        define: { 'process.env.NODE_ENV': '"production"' },
        alias: b.alias ?? {},
      }),
    ];
    if (b.css) results.push(esbuild.buildSync({ ...common, entryPoints: [path.join(SOURCE, b.css)], outfile: path.join(OUTPUT, b.css) }));
    for (const r of results) for (const w of r.warnings) log(`flora: dashboard bundle ${b.js}: ${w.text}`);
  }
  for (const file of STATIC_FILES) fs.copyFileSync(path.join(root, SOURCE, file), path.join(outDir, file));
  return true;
}

module.exports = { bundleAdmin, adminInputs, adminOutputs };
