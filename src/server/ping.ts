// GET|HEAD /ping (fql-v4.md §1.11): no authentication; the body is exactly {"resource":"Scope <s> is OK"}.

import type { Handler } from './router';

/** write (default; alias global), read (alias local), all; anything else is the node scope. */
export function pingScope(raw: string | null): string {
  switch ((raw || 'write').toLowerCase()) {
    case 'write':
    case 'global':
      return 'write';
    case 'read':
    case 'local':
      return 'read';
    case 'all':
      return 'all';
    default:
      return 'node';
  }
}

export const ping: Handler = async (ctx) => ({
  status: 200,
  body: JSON.stringify({ resource: `Scope ${pingScope(ctx.query.get('scope'))} is OK` }),
});
