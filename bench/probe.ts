// Preloaded into Flora servers by capacity.ts (`NODE_OPTIONS=--require dist/bench/probe.js`; a
// tier's workers inherit it). Not part of Flora. It does what its environment asks:
// - FLORA_BENCH_PG_TRACE=<file>: counts every statement the process sends to PostgreSQL, per
//   connection, and writes the counts to that file at each SIGUSR2. One call of pg's Client#query is
//   one round trip (a multi-statement simple query is one message, a parameterised one a pipelined
//   Parse/Bind/Execute/Sync), so the counts are exact round trips, with the text that says which.
//   Connections stay apart so that the query log's pool can be told from the store's.
// - FLORA_BENCH_CPU_PROFILE=<dir>: a SIGWINCH starts the V8 CPU profiler, the next one writes
//   `<dir>/<pid>-<n>.cpuprofile` (node's --cpu-prof is refused in NODE_OPTIONS, and would profile the
//   whole life of the process rather than the measured window). SIGWINCH because its default
//   action is to be ignored, so a signal to a process without this probe does nothing.

import { Session } from 'node:inspector';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export interface TraceDump {
  /** Increases with every dump, so a reader can tell a new one from the last. */
  dump: number;
  /** Connection number → normalised statement → calls. */
  clients: Record<string, Record<string, number>>;
}

/** The statement's shape: literals and hex keys out, so that calls of one statement add up. */
function shape(text: string): string {
  return text
    .replace(/decode\('[0-9a-f]*','hex'\)/g, 'X')
    .replace(/IN \(X(,X)+\)/g, 'IN (X,…)')
    .replace(/\(X,X\)(,\(X,X\))+/g, '(X,X),…')
    .replace(/\b\d+\b/g, 'N')
    .replace(/\s+/g, ' ');
}

const shapes = new Map<string, string>();

/** A long statement (a commit's keys and values as hex) by its text before the first literal and
 * after the last: scanning all of it would cost the server more than the statement does. */
function normalise(text: string): string {
  if (!text.includes("decode('")) {
    // Parameterised statements repeat word for word: shape each once.
    const known = shapes.get(text);
    if (known !== undefined) return known;
    const shaped = shape(text).slice(0, 400);
    if (shapes.size < 1000) shapes.set(text, shaped);
    return shaped;
  }
  if (text.length <= 2000) return shape(text).slice(0, 400);
  const first = text.indexOf("decode('");
  const last = text.lastIndexOf("','hex')");
  const joined = `${shape(first >= 0 ? text.slice(0, first) : text.slice(0, 150))}…${shape(last >= 0 ? text.slice(last + 8) : text.slice(-100))}`;
  return joined.replace('VALUES (…)', 'VALUES (X,X),…').replace('IN (…)', 'IN (X,…)'); // as shape() writes them
}

/** Which keyspace a single-key read is in (storage/keys.ts): its tag, and for documents the collection. */
function describeKey(v: unknown): string {
  if (!Buffer.isBuffer(v) || v.length === 0) return '';
  const tag = String.fromCharCode(v[0]);
  return (tag === 'L' || tag === 'V') && v.length >= 13 ? `  [$1: ${tag} key, collection ${v.readUInt32BE(9)}]` : `  [$1: ${tag} key]`;
}

function writeAtomically(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file); // a reader never sees half a file
}

const traceFile = process.env.FLORA_BENCH_PG_TRACE;
const profileDir = process.env.FLORA_BENCH_CPU_PROFILE;

if (traceFile) {
  const ids = new WeakMap<object, number>();
  const counts = new Map<number, Map<string, number>>();
  let dumps = 0;
  const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: object, ...args: unknown[]) {
    let id = ids.get(this);
    if (id === undefined) {
      id = counts.size;
      ids.set(this, id);
      counts.set(id, new Map());
    }
    const first = args[0] as string | { text?: string; values?: unknown[] } | undefined;
    const values = typeof first === 'string' ? (args[1] as unknown[] | undefined) : first?.values;
    const key = normalise(typeof first === 'string' ? first : (first?.text ?? '?')) + describeKey(values?.[0]);
    const m = counts.get(id)!;
    m.set(key, (m.get(key) ?? 0) + 1);
    return original.apply(this, args);
  };
  process.on('SIGUSR2', () => {
    const out: TraceDump = { dump: ++dumps, clients: {} };
    for (const [id, m] of counts) out.clients[id] = Object.fromEntries(m);
    writeAtomically(traceFile, JSON.stringify(out));
  });
}

if (profileDir) {
  const session = new Session();
  session.connect();
  let running = false;
  let profiles = 0;
  process.on('SIGWINCH', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeAtomically(path.join(profileDir, `${process.pid}-${++profiles}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
