'use strict';
// The quick compile a checkout's `flora start` uses: each TypeScript file transpiled on its own by
// esbuild into the layout tsc writes (dist/<path>.js with its .js.map), without type checking
// (`npm test` and `npm run build` run tsc, which checks). Per-file transpiling is sound for this code
// base because tsconfig.json sets isolatedModules: tsc refuses what only a whole-program compiler
// could emit right (a type re-exported as a value, a const enum read across files). esbuild's
// CommonJS differs from tsc's in form only (exports as getters, its own interop helpers).
// esbuild reads tsconfig.json itself for what changes the output of one file (target, class fields).

const { loadEsbuild } = require('./esbuild');

/**
 * Writes the JavaScript of `files` (absolute .ts paths under `root`) into `outDir`; false (with the
 * reason logged) when it cannot.
 */
function transpile(root, outDir, files, log) {
  const esbuild = loadEsbuild(root);
  if (!esbuild) {
    log('flora: dist/ must be compiled but esbuild is not installed: run npm install');
    return false;
  }
  if (files.length === 0) return true;
  try {
    esbuild.buildSync({
      absWorkingDir: root,
      entryPoints: files,
      outdir: outDir,
      outbase: root,
      format: 'cjs',
      platform: 'node',
      target: 'es2022',
      // As tsc's CommonJS: import() becomes require() (node's own import() would want file extensions).
      supported: { 'dynamic-import': false },
      sourcemap: true,
      sourcesContent: false, // as tsc: the map points at the .ts file
      logLevel: 'silent',
    });
  } catch (err) {
    // esbuild's message lists each error with its file and line.
    log(`flora: compile failed: ${err.message}`);
    return false;
  }
  return true;
}

module.exports = { transpile };
