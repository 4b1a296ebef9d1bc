// One line for what went wrong, in the words a user acts on. A permission error says that the
// signed-in key's role forbids the action, so the dashboard never fails silently.

import { FloraError } from './client';
import { h, replace } from './dom';

export function describeError(err: unknown, action: string): string {
  if (err instanceof FloraError) {
    if (err.forbidden) return `Not allowed: the signed-in key's role cannot ${action} (${err.description || err.code}).`;
    if (err.unauthorized) return `The secret was refused: ${err.description || 'unauthorized'}. Sign in again.`;
    return `Could not ${action}: ${err.message}`;
  }
  return `Could not ${action}: ${err instanceof Error ? err.message : String(err)}`;
}

/** Shows an error (class "error") or a notice in `box`; `null` empties it. */
export function show(box: HTMLElement, text: string | null, kind: 'error' | 'notice' = 'error'): void {
  if (text === null) replace(box);
  else replace(box, h('p', { class: kind, role: kind === 'error' ? 'alert' : 'status' }, text));
}

/** Runs an action, showing its failure in `box` (and clearing a previous one). */
export async function attempt<T>(box: HTMLElement, action: string, run: () => Promise<T>): Promise<T | undefined> {
  show(box, null);
  try {
    return await run();
  } catch (err) {
    show(box, describeError(err, action));
    return undefined;
  }
}
