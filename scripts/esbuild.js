'use strict';
// Loads the checkout's esbuild so that its synchronous calls leave no process behind. By default
// esbuild's buildSync runs through a worker thread that keeps esbuild's service process alive for
// the rest of the caller's life (a server started from a checkout kept one as its child, and
// esbuild.stop() ends it only later, asynchronously); with worker threads off, each call runs
// esbuild once and waits for it to exit. The switch is read when the module loads, so it is set
// around the require and restored: the server's own environment, and its children's, stay as they were.

/** esbuild from `root`'s node_modules, or null when it is not installed. */
function loadEsbuild(root) {
  let file;
  try {
    file = require.resolve('esbuild', { paths: [root] });
  } catch {
    return null;
  }
  const saved = process.env.ESBUILD_WORKER_THREADS;
  process.env.ESBUILD_WORKER_THREADS = '0';
  try {
    return require(file);
  } finally {
    if (saved === undefined) delete process.env.ESBUILD_WORKER_THREADS;
    else process.env.ESBUILD_WORKER_THREADS = saved;
  }
}

module.exports = { loadEsbuild };
