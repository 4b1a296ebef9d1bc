// Set cursors kept in this process's memory: an `after` token is a random name for the set and the
// position it continues from. A token is good in the process that made it, for as long as it is
// among the CURSORS most recent; elsewhere it is not a cursor (the stdlib's invalid cursor error).
// What the endpoint uses while no storage codec (serializable cursors, valid in any process of a
// tier) is plugged in.

import { randomBytes } from 'node:crypto';
import type { CursorCodec } from '../runtime/hooks';
import type { PageTok } from '../runtime/sets';

const CURSORS = 4096;

export class LocalCursors implements CursorCodec {
  /** Least recently made or used first. */
  private readonly held = new Map<string, { readonly tok: PageTok; readonly pageSize: number }>();

  encode(tok: PageTok, pageSize: number): string {
    // Unguessable: a cursor is a capability to another query's set, never to be named by counting.
    const token = randomBytes(18).toString('base64url');
    this.held.set(token, { tok, pageSize });
    if (this.held.size > CURSORS) this.held.delete(this.held.keys().next().value!);
    return token;
  }

  decode(token: string): { readonly tok: PageTok; readonly pageSize: number } | undefined {
    const c = this.held.get(token);
    if (c !== undefined) {
      this.held.delete(token);
      this.held.set(token, c);
    }
    return c;
  }
}
