// Text with optional ANSI colours (the core's fql/color.scala ColorBuilder): `color=ansi` on the
// schema API's diff routes. Colour changes are collected and written only when the next text is,
// as few codes as the change needs, so that the escapes fall exactly where the core puts them
// (before an indent, and a reset before a newline).

export type ColorKind = 'none' | 'ansi';

export type Color = 'default' | 'red' | 'green' | 'yellow' | 'blue' | 'cyan';

const FOREGROUND: Record<Exclude<Color, 'default'>, string> = { red: '31', green: '32', yellow: '33', blue: '34', cyan: '36' };

export class ColorText {
  private out = '';
  private current: { fg: Color; bold: boolean } = { fg: 'default', bold: false };
  private next: { fg?: Color; bold?: boolean } = {};

  constructor(private readonly kind: ColorKind) {}

  append(text: string): void {
    if (this.kind === 'ansi') this.applyNext();
    this.out += text;
  }

  select(fg: Color): void {
    this.next.fg = fg;
  }

  bold(): void {
    this.next.bold = true;
  }

  reset(): void {
    this.next = { fg: 'default', bold: false };
  }

  get result(): string {
    return this.out;
  }

  private applyNext(): void {
    const { fg, bold } = this.next;
    const changed = (fg !== undefined && fg !== this.current.fg) || (bold !== undefined && bold !== this.current.bold);
    if (!changed) return;
    const target = { fg: fg ?? this.current.fg, bold: bold ?? this.current.bold };
    const args: string[] = [];
    if (target.fg === 'default' && this.current.fg !== 'default') {
      // The shortest way back to the default colour resets bold too.
      args.push('0');
      if (target.bold) args.push('1');
    } else {
      if (!this.current.bold && target.bold) args.push('1');
      if (this.current.bold && !target.bold) args.push('22');
      if (this.current.fg !== target.fg && target.fg !== 'default') args.push(FOREGROUND[target.fg]);
    }
    this.out += `\u001b[${args.join(';')}m`;
    this.current = target;
    this.next = {};
  }
}
