// Preloaded into fauna-gql-upload (`node --require`): its fixed pauses for Fauna's schema cache (60 s
// between deleting and recreating a changed index, 65 s after an override) return at once. Flora needs
// no such pause (DECISIONS 5), and the suite must stay fast; every request the tool sends is unchanged.

import Module from 'node:module';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const file = require.resolve('fauna-gql-upload/dist/util/wait.js', { paths: [ROOT] });
const stub = new Module(file);
stub.filename = file;
stub.loaded = true;
stub.exports = { __esModule: true, default: async (): Promise<void> => {} };
require.cache[file] = stub;
