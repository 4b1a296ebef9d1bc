// Progress of a long transfer: a bar redrawn in place on a terminal (counts, rate, ETA), plain
// lines every few seconds otherwise (a log file or CI), and one last line at the end.

export interface ProgressState {
  done: number;
  existing: number;
  problems: number;
  /** Bytes of the source read so far, and in all (0 = unknown: no bar, no ETA). */
  bytesDone: number;
  bytesTotal: number;
}

const BAR = 24;

export class Progress {
  private readonly started = Date.now();
  private last = 0;

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly label: string,
    private readonly everyMs = { tty: 200, plain: 5000 },
  ) {}

  update(s: ProgressState, force = false): void {
    const now = Date.now();
    const tty = this.out.isTTY === true;
    if (!force && now - this.last < (tty ? this.everyMs.tty : this.everyMs.plain)) return;
    this.last = now;
    const line = this.line(s, now);
    this.out.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
  }

  finish(s: ProgressState): void {
    const line = this.line(s, Date.now());
    this.out.write(this.out.isTTY === true ? `\r\x1b[2K${line}\n` : `${line}\n`);
  }

  private line(s: ProgressState, now: number): string {
    const secs = Math.max(0.001, (now - this.started) / 1000);
    const rate = (s.done + s.existing) / secs;
    const parts = [this.label];
    if (s.bytesTotal > 0) {
      const f = Math.min(1, s.bytesDone / s.bytesTotal);
      const filled = Math.round(f * BAR);
      parts.push(`[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${(f * 100).toFixed(0).padStart(3)}%`);
    }
    parts.push(`${s.done} written`);
    if (s.existing) parts.push(`${s.existing} already there`);
    if (s.problems) parts.push(`${s.problems} not imported`);
    parts.push(`${rate.toFixed(0)}/s`);
    if (s.bytesTotal > 0 && s.bytesDone > 0 && s.bytesDone < s.bytesTotal) parts.push(`ETA ${clock(((s.bytesTotal - s.bytesDone) / s.bytesDone) * secs)}`);
    parts.push(`elapsed ${clock(secs)}`);
    return parts.join('  ');
  }
}

function clock(secs: number): string {
  const s = Math.round(secs);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}
