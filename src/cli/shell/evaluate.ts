// One input of `flora eval` or `flora shell`: parse it (FQL in the driver's JavaScript syntax,
// let/const kept for later inputs), run each expression as one query in order, print each answer.

import { FqlJsSession, wireText } from '../../fqljs';
import type { QueryClient } from '../../transfer/queryClient';
import type { Printer } from './output';

export class Evaluator {
  private readonly session = new FqlJsSession();

  constructor(
    /** Where queries go; the shell's `.use` replaces it. */
    public client: QueryClient,
    private readonly printer: Printer,
  ) {}

  /** Resolves false once a parse or query failure was printed (later expressions are not run). */
  async run(input: string): Promise<boolean> {
    try {
      for (const wire of this.session.parse(input)) this.printer.result(await this.client.query(wireText(wire)));
      return true;
    } catch (e) {
      if (this.printer.failure(e)) return false;
      throw e;
    }
  }

  /** Names the inputs so far declared (let/const), for completion. */
  names(): string[] {
    return this.session.names();
  }
}
