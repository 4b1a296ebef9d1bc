// JSON text of a fuzzed request, with number tokens JSON.stringify cannot write: exact 64-bit
// integers (bigints), and `Raw` tokens such as 1e309, -0 or 2^63 written as given. Written with an
// explicit stack: trees tens of thousands of levels deep (past the server's nesting limit, on
// purpose) would overflow JSON.stringify's recursion.

/** A number token written verbatim into the request text. */
export class Raw {
  constructor(readonly text: string) {}
}

type Frame = { items: [key: string | undefined, value: unknown][]; at: number; close: string };

export function wireText(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (v: unknown): void => {
    if (v === null || v === undefined) out.push('null');
    else if (typeof v === 'bigint') out.push(v.toString());
    else if (v instanceof Raw) out.push(v.text);
    else if (typeof v === 'number') out.push(Number.isFinite(v) ? String(v) : 'null');
    else if (typeof v !== 'object') out.push(JSON.stringify(v));
    else if (Array.isArray(v)) {
      out.push('[');
      stack.push({ items: v.map((x) => [undefined, x]), at: 0, close: ']' });
    } else {
      out.push('{');
      stack.push({ items: Object.entries(v), at: 0, close: '}' });
    }
  };
  open(root);
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.at === top.items.length) {
      out.push(top.close);
      stack.pop();
      continue;
    }
    const [key, value] = top.items[top.at];
    if (top.at++ > 0) out.push(',');
    if (key !== undefined) out.push(JSON.stringify(key), ':');
    open(value);
  }
  return out.join('');
}
