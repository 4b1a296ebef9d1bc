// One input of `flora eval` or `flora shell`, in the language chosen (--version, language.ts): FQL
// v4 in the driver's JavaScript syntax (let/const kept for later inputs, each expression one query,
// in order) or FQL v10 (the whole input one query on /query/1).

import { FqlJsError, FqlJsSession, wireText } from '../../fqljs';
import type { QueryClient } from '../../transfer/queryClient';
import type { Connection } from './connection';
import { refusedByV4IsV10, type Language } from './language';
import type { Printer } from './output';
import { V10Client } from './v10Client';

export class Evaluator {
  private readonly session = new FqlJsSession();
  /** The language of the last input that ran (see refusedByV4IsV10). */
  private last: '4' | '10';

  constructor(
    /** Where queries go; the shell's `.use` replaces it. */
    public client: QueryClient,
    private readonly printer: Printer,
    private readonly connection: Connection,
    readonly language: Language,
  ) {
    this.last = language === '10' ? '10' : '4';
  }

  /** Resolves false once a parse or query failure was printed (later expressions are not run). */
  async run(input: string): Promise<boolean> {
    try {
      if (this.language === '10') return await this.runV10(input);
      let wires;
      try {
        wires = this.session.parse(input);
      } catch (e) {
        if (!(this.language === 'auto' && e instanceof FqlJsError && refusedByV4IsV10(input, this.last))) throw e;
        return await this.runV10(input);
      }
      this.last = '4';
      for (const wire of wires) this.printer.result(await this.client.query(wireText(wire)));
      return true;
    } catch (e) {
      if (this.printer.failure(e)) return false;
      throw e;
    }
  }

  private async runV10(input: string): Promise<boolean> {
    this.last = '10';
    this.printer.resultV10(await V10Client.of(this.connection, this.client.path).query(input, this.printer.v10Format));
    return true;
  }

  /** Names the inputs so far declared (let/const), for completion. */
  names(): string[] {
    return this.session.names();
  }
}
