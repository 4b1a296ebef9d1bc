// String and key quoting: util.inspect's for data (what fauna-shell printed), JSON's for
// expressions (what the driver's Expr.toString prints). Written out so that it runs in a browser.

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const NEEDS_ESCAPE = /[\x00-\x1f\x27\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const NEEDS_ESCAPE_NO_QUOTE = /[\x00-\x1f\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const NAMED: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 39: "\\'", 92: '\\\\' };

function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  if (NAMED[code]) return NAMED[code];
  if (code >= 0xd800) return '\\u' + code.toString(16);
  return '\\x' + code.toString(16).toUpperCase().padStart(2, '0');
}

/** A string as util.inspect writes it: single quotes unless the text holds some, then " or `. */
export function inspectString(s: string): string {
  let quote = "'";
  if (s.includes("'")) {
    if (!s.includes('"')) quote = '"';
    else if (!s.includes('`') && !s.includes('${')) quote = '`';
  }
  const body = s.replace(quote === "'" ? NEEDS_ESCAPE : NEEDS_ESCAPE_NO_QUOTE, escapeChar);
  return quote + body + quote;
}

/** An object key as util.inspect writes it: bare when a plain name. */
export const inspectKey = (k: string): string => (/^[a-zA-Z_][a-zA-Z_0-9]*$/.test(k) ? k : inspectString(k));

/** An object key in an expression: bare when a JavaScript name, else a JSON string. */
export const exprKey = (k: string): string => (IDENTIFIER.test(k) && k !== '__proto__' ? k : JSON.stringify(k));
