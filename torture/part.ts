// What every part of the torture suite is: a run with the shared options that comes back with its
// row of the summary table, lines of detail (failures with their seed and shortest reproduction),
// and the problems that make it fail (empty when every must-be-0 figure is 0).

export interface PartOptions {
  /** How long the part drives the server (s); a part with trials spreads them over it. */
  seconds: number;
  /** Concurrent clients. */
  clients: number;
  /** Seed of every random choice: the same seed draws the same requests. */
  seed: number;
  /** Crash part: kill-and-restart trials (default 50). */
  trials?: number;
  /** Crash part: size of the store whose restart is timed, in GB (default 1; 0 skips). */
  restartGb?: number;
  /** Prints progress lines. */
  log: (line: string) => void;
}

export interface PartResult {
  row: Record<string, string>;
  details: string[];
  problems: string[];
}

export interface Part {
  name: string;
  /** One line for `npm run torture -- --help`. */
  about: string;
  run(opts: PartOptions): Promise<PartResult>;
}
