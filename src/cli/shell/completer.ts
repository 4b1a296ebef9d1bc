// Tab completion for the shell: the shell's commands at the start of a line (`.use`), otherwise
// the identifier under the cursor among FQL's function names and the names the session declared.

import { FUNCTION_NAMES } from '../../fqljs';

export const COMMANDS: readonly string[] = ['.exit', '.help', '.use'];

/** readline's completer result: the candidates, and the text they replace. */
export type Completion = [string[], string];

export function complete(line: string, declared: readonly string[] = []): Completion {
  if (/^\s*\.\w*$/.test(line)) {
    const word = line.trim();
    return [COMMANDS.filter((c) => c.startsWith(word)), word];
  }
  if (/^\s*\./.test(line)) return [[], '']; // a command's argument
  const word = /[A-Za-z_$][\w$]*$/.exec(line)?.[0];
  // Only a whole identifier: `q.Ad` completes `Ad`; `1e` and `x.1` have none.
  if (!word || /[\w$]/.test(line.charAt(line.length - word.length - 1))) return [[], ''];
  const names = [...new Set([...declared, ...FUNCTION_NAMES])].filter((n) => n.startsWith(word)).sort();
  return [names, word];
}
