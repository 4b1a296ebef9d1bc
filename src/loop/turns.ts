// Turns on the event loop for work that runs in slices (queries, large bodies parsed): paused work
// waits in one line, and each turn of the loop resumes only the work at the head of it.
//
// Work that pauses by awaiting setImmediate itself does not share the loop: every immediate queued in
// one turn of the loop runs in the next check phase, back to back, so 64 queries pausing together
// hold the loop for 64 slices before it polls a socket again (and /ping, and every new request, wait
// that long). Here the line has one dispatcher, an immediate that resumes the head of the line: its
// continuation runs as microtasks right after the dispatcher's callback, within the same check
// phase, and then the loop goes round (timers, I/O) before the dispatcher's next immediate resumes the
// next in line. Work that pauses again goes to the back, so turns go round in order and none starves;
// alone, work resumes at the next turn of the loop, as with a bare setImmediate.
//
// Work that starts (rather than resumes) runs outside the line, wherever its request is read: many
// requests read in one turn of the loop would each run a whole slice there before the loop polls
// again. So the work that starts in one turn shares one slice: the first to look at the clock sets it
// up, the others pause when it is used up and take their turns in the line. A turn of the loop thus
// runs about two slices at most, the head of the line's and the new work's, however much waits.
//
// Work whose owner has stopped caring (its client left, its time ran out) is woken out of turn, at
// the dispatcher's next run, so that it stops at once rather than after a full round of the line.
// While work waits, the dispatcher's immediate keeps the process alive, as the work's own immediates
// did: at shutdown the work in line runs to its end, or, its connections dropped, is woken to stop.
//
// Immediates that gather work into one batch (group commit, stream delivery) are not slices of work
// and keep their own: behind the line, every commit would wait a whole round of it.

/** Work waiting in line may say that it would only stop once resumed: it is then woken out of turn. */
export interface Waiting {
  /** True once the work, resumed, would stop at once (checked at every dispatch: keep it cheap). */
  readonly stopDue: boolean;
}

interface Entry {
  resume: () => void;
  waiting: Waiting | undefined;
}

export class TurnLine {
  private line: Entry[] = [];
  private scheduled = false;
  private readonly dispatch = (): void => this.run();
  /** When the slice of the work that started in this turn of the loop ends; 0: none started yet. */
  private startedEnd = 0;
  private readonly endTurn = (): void => {
    this.startedEnd = 0;
  };

  constructor(
    /**
     * How the dispatcher gets its next run: setImmediate, i.e. the next check phase of the loop. Looked
     * up when called, not at load: the dashboard's bundle imports this module (through wire/json.ts)
     * into a browser, which has no setImmediate.
     */
    private readonly schedule: (run: () => void) => void = (run) => setImmediate(run),
  ) {}

  /** Work waiting for its turn now. */
  get waiting(): number {
    return this.line.length;
  }

  /** Resolves at the work's turn: at the earliest the next turn of the loop, after every work already in line. */
  next(waiting?: Waiting): Promise<void> {
    return new Promise<void>((resume) => {
      this.line.push({ resume, waiting });
      if (!this.scheduled) {
        this.scheduled = true;
        this.schedule(this.dispatch);
      }
    });
  }

  /**
   * Where the first slice of work that starts now ends, when the work itself would end it at `end`
   * (its start plus its slice): there, unless work that started earlier in this turn of the loop
   * set up the turn's slice, which then ends it. Called once per work, at its first look at the clock.
   */
  firstSliceEnd(end: number): number {
    if (this.startedEnd === 0) {
      this.startedEnd = end;
      this.schedule(this.endTurn);
      return end;
    }
    return Math.min(end, this.startedEnd);
  }

  private run(): void {
    this.scheduled = false;
    this.wakeStopped();
    // One resume: its continuation runs (microtasks) before the loop goes on.
    this.line.shift()?.resume();
    if (this.line.length > 0) {
      this.scheduled = true;
      this.schedule(this.dispatch);
    }
  }

  /** Resumes every work in line that would only stop, so that it stops now (its memory and turn freed). */
  private wakeStopped(): void {
    let kept: Entry[] | undefined;
    for (let i = 0; i < this.line.length; i++) {
      const e = this.line[i];
      if (isStopDue(e)) {
        kept ??= this.line.slice(0, i);
        e.resume();
      } else kept?.push(e);
    }
    if (kept) this.line = kept;
  }
}

function isStopDue(e: Entry): boolean {
  if (e.waiting === undefined) return false;
  try {
    return e.waiting.stopDue;
  } catch {
    return true; // resumed, the work finds out what is wrong itself
  }
}

/** The process's line: every thread has its own event loop, and so its own copy of this module. */
const loopLine = new TurnLine();

/** Lets the rest of the process run (I/O, timers, other work in line); resolves at this work's turn. */
export function nextTurn(waiting?: Waiting): Promise<void> {
  return loopLine.next(waiting);
}

/** TurnLine.firstSliceEnd of the process's line. */
export function firstSliceEnd(end: number): number {
  return loopLine.firstSliceEnd(end);
}
