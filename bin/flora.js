#!/usr/bin/env node
'use strict';
// Thin shim: the CLI is compiled TypeScript (`npm run build` writes dist/).
const { main } = require('../dist/src/cli/main.js');

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`flora: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
