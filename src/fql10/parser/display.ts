// Strings written back as FQL source (Display.scala writeStrLit): escapes for quotes,
// backslashes, `#` and control characters, `\uXXXX` for characters a query may not hold and `\u{XXXXXX}` past U+FFFF.

import { isDisplay } from './cursor';

const UNESCAPED: Record<string, string> = { '\\': '\\', '\0': '0', '"': '"', '\n': 'n', '\r': 'r', '\v': 'v', '\t': 't', '\b': 'b', '\f': 'f', '#': '#' };

export function displayString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const esc = UNESCAPED[ch];
    if (esc !== undefined) out += '\\' + esc;
    else if (ch.length > 1) out += '\\u{' + ch.codePointAt(0)!.toString(16).padStart(6, '0') + '}';
    else if (isDisplay(ch.charCodeAt(0))) out += ch;
    else out += '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
  }
  return out + '"';
}
