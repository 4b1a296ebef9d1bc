// A terminal's output (what a program wrote to a pseudo-terminal, escape sequences and all) as the
// HTML of the screen it leaves: just enough of a terminal for the shell's README picture. Handles
// SGR colours (30–37, 90–97, bold, dim), \r, \n, backspace, and the cursor moves and erases that
// Node's readline writes when it redraws a prompt (CSI G, C, D, A, B, J, K); other sequences are dropped.

interface Cell {
  ch: string;
  style: string;
}

const COLOURS = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The screen (all lines, oldest first) as <span class="…">-coloured HTML lines. */
export function terminalHtml(output: string): string {
  const lines: Cell[][] = [[]];
  let row = 0;
  let col = 0;
  let fg = '';
  const attrs = new Set<string>();
  const style = () => [fg, ...attrs].filter(Boolean).join(' ');
  const line = () => (lines[row] ??= []);
  const put = (ch: string) => {
    const l = line();
    while (l.length < col) l.push({ ch: ' ', style: '' });
    l[col++] = { ch, style: style() };
  };
  const sgr = (params: number[]) => {
    for (const p of params.length ? params : [0]) {
      if (p === 0) {
        fg = '';
        attrs.clear();
      } else if (p === 1) attrs.add('bold');
      else if (p === 2) attrs.add('dim');
      else if (p === 22) (attrs.delete('bold'), attrs.delete('dim'));
      else if (p === 39) fg = '';
      else if (p >= 30 && p <= 37) fg = COLOURS[p - 30];
      else if (p >= 90 && p <= 97) fg = `bright-${COLOURS[p - 90]}`;
    }
  };
  for (let i = 0; i < output.length; i++) {
    const c = output[i];
    if (c === '\x1b') {
      const m = /^\x1b\[([?\d;]*)([A-Za-z])/.exec(output.slice(i, i + 16));
      if (!m) continue;
      i += m[0].length - 1;
      const params = m[1].replace('?', '').split(';').filter(Boolean).map(Number);
      const n = params[0] ?? 1;
      switch (m[2]) {
        case 'm': sgr(params); break;
        case 'G': col = n - 1; break;
        case 'C': col += n; break;
        case 'D': col = Math.max(0, col - n); break;
        case 'A': row = Math.max(0, row - n); break;
        case 'B': row += n; break;
        case 'K': line().length = Math.min(line().length, col); break;
        case 'J': line().length = Math.min(line().length, col); lines.length = row + 1; break;
      }
    } else if (c === '\n') {
      row++;
      col = 0;
      line();
    } else if (c === '\r') col = 0;
    else if (c === '\b') col = Math.max(0, col - 1);
    else if (c >= ' ') put(c);
  }
  while (lines.length > 1 && (lines[lines.length - 1] ?? []).length === 0) lines.pop();
  return [...lines].map((l) => {
    let html = '';
    let open = '';
    for (const cell of l ?? []) {
      if (cell.style !== open) {
        if (open) html += '</span>';
        if (cell.style) html += `<span class="${cell.style}">`;
        open = cell.style;
      }
      html += escapeHtml(cell.ch);
    }
    return open ? `${html}</span>` : html;
  }).join('\n');
}
