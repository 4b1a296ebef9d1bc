#!/usr/bin/env node
'use strict';
// Thin shim: the CLI is compiled TypeScript in dist/. In a source checkout, dist/ is compiled first
// when it is missing or older than the sources, so that `npx flora` and `npm start` work right after
// `npm install` and never run a stale build; esbuild does it in seconds, checking no types (`npm
// test` and `npm run build` run tsc, which does). An installed package ships dist/ compiled and has
// no scripts/: nothing is compiled. FLORA_NO_BUILD_CHECK=1 skips the check (the test runner sets it:
// servers started by tests run the build the suite was compiled into).
const path = require('node:path');

const build = path.join(__dirname, '..', 'scripts', 'build.js');
if (process.env.FLORA_NO_BUILD_CHECK !== '1' && require('node:fs').existsSync(build)) {
  if (!require(build).ensureBuilt({ typeChecked: false })) process.exit(1);
}

const { main } = require('../dist/src/cli/main.js');

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`flora: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
