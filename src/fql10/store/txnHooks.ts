// Hooks over a bare TxnContext, for evaluations that have no endpoint around them: a collection
// schema's lambdas run while either language writes a document (schemaLanguage.ts).

import type { TxnContext } from '../../model/context';
import { newId } from '../../model/ids';
import { Time } from '../../values/types';
import type { CursorCodec } from '../runtime/hooks';
import type { CallCtx } from '../runtime/table';
import type { RtValue } from '../runtime/values';
import type { StoreHooks } from './hooks';
import { isEnvProtected, isEnvTypechecked, scopeIdentity, scopeToken } from './query';
import { resolveStoreGlobal, STORE_GLOBALS } from './resolver';

export class BareTxnHooks implements StoreHooks {
  readonly maxStackFrames = 2048;
  readonly globals = STORE_GLOBALS;
  constructor(
    readonly tx: TxnContext,
    readonly cursors: CursorCodec,
  ) {}
  compute(n: number): void {
    for (let i = 0; i < n; i++) this.tx.tick();
  }
  snapshotTime(): Time {
    return Time.fromMicros(this.tx.snapshotTs);
  }
  newId(): bigint {
    return newId();
  }
  resolveGlobal(ctx: CallCtx, name: string): Promise<RtValue | undefined> {
    return resolveStoreGlobal(ctx, name);
  }
  identity(ctx: CallCtx): Promise<RtValue | undefined> {
    return scopeIdentity(ctx);
  }
  token(ctx: CallCtx): Promise<RtValue | undefined> {
    return scopeToken(ctx);
  }
  isEnvTypechecked(ctx: CallCtx): Promise<boolean> {
    return isEnvTypechecked(ctx);
  }
  isEnvProtected(ctx: CallCtx): Promise<boolean> {
    return isEnvProtected(ctx);
  }
}
