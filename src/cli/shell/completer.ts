// Tab completion for the shell: the shell's commands at the start of a line (`.use`), otherwise
// the identifier under the cursor among the language's global names (FQL v4's functions, FQL v10's
// modules, functions and keywords; both in auto) and the names the session declared.

import { FUNCTION_NAMES } from '../../fqljs';
import { V10_NAMES, type Language } from './language';

export const COMMANDS: readonly string[] = ['.exit', '.help', '.use'];

/** readline's completer result: the candidates, and the text they replace. */
export type Completion = [string[], string];

export function complete(line: string, declared: readonly string[] = [], language: Language = '4'): Completion {
  if (/^\s*\.\w*$/.test(line)) {
    const word = line.trim();
    return [COMMANDS.filter((c) => c.startsWith(word)), word];
  }
  if (/^\s*\./.test(line)) return [[], '']; // a command's argument
  const word = /[A-Za-z_$][\w$]*$/.exec(line)?.[0];
  // Only a whole identifier: `q.Ad` completes `Ad`; `1e` and `x.1` have none.
  const before = line.charAt(line.length - (word?.length ?? 0) - 1);
  if (!word || /[\w$]/.test(before)) return [[], ''];
  // A v10 field or method (`Math.ab`) is no global; v4's `q.Add` is.
  const v4 = language === '10' ? [] : FUNCTION_NAMES;
  const v10 = language === '4' || before === '.' ? [] : V10_NAMES;
  const names = [...new Set([...declared, ...v4, ...v10])].filter((n) => n.startsWith(word)).sort();
  return [names, word];
}
