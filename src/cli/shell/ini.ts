// A small INI reader for fauna-shell's endpoints file (written by the `ini` npm package): sections,
// `key = value` lines, `;`/`#` comments, quoted values. No dependency for a file this simple.

/** Keys outside any section are under ''. Section names are as written (`endpoint.local`), `\.` unescaped. */
export type IniSections = Map<string, Map<string, string>>;

export function parseIni(text: string): IniSections {
  const sections: IniSections = new Map([['', new Map()]]);
  let current = sections.get('')!;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const header = /^\[(.*)\]$/.exec(line);
    if (header) {
      const name = header[1].trim().replace(/\\\./g, '.');
      current = sections.get(name) ?? new Map();
      sections.set(name, current);
      continue;
    }
    const eq = line.indexOf('=');
    // A bare key is `true` in the ini package; no endpoint setting is a flag, so it is skipped.
    if (eq < 0) continue;
    current.set(unquote(line.slice(0, eq).trim()), unquote(line.slice(eq + 1).trim()));
  }
  return sections;
}

/**
 * `"…"` is JSON (as the ini package writes a value that needs quoting), `'…'` is literal; otherwise
 * an unescaped `;` or `#` starts a comment and `\;`, `\#`, `\\` stand for the character, as the ini package reads them.
 */
function unquote(v: string): string {
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
    try {
      const s: unknown = JSON.parse(v);
      if (typeof s === 'string') return s;
    } catch {
      // not JSON: keep the text between the quotes
    }
    return v.slice(1, -1);
  }
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1);
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i];
    if (c === '\\' && i + 1 < v.length && ';#\\'.includes(v[i + 1])) out += v[++i];
    else if (c === ';' || c === '#') break;
    else out += c;
  }
  return out.trim();
}
