// Failpoints: named places where the server can be told to fail, so that the handling of its own
// faults (a 500 with a request id, the stack in its log) can be tested from outside. Off unless
// FLORA_FAILPOINTS names them (comma-separated); never set in production.

const armed = new Set((process.env.FLORA_FAILPOINTS ?? '').split(',').map((s) => s.trim()).filter(Boolean));

/** Throws an internal error at `name` when it is armed. */
export function failpoint(name: string): void {
  if (armed.size > 0 && armed.has(name)) throw new Error(`failpoint ${name}`);
}
