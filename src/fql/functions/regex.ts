// Regular-expression functions of FQL v4 (fql-v4.md §3.8): containsstrregex, findstrregex,
// replacestrregex, regexescape. Patterns are Java regexes, run on RE2 (src/regex/): linear time,
// no backreferences or lookaround (refused with 400 `invalid argument`), deviations from Java
// listed in src/regex/javaRegex.ts.
//
// Indexes are in code points, as Fauna's (Java) implementation reports them.
//
// Cost: a search over n characters with a program of m instructions (RE2's NFA steps every live
// thread per character) is charged n·m/SEARCH_DIVISOR compute units before it runs, so no single
// synchronous search can run long: the compute limit refuses it first. Loops over matches charge
// MATCHES_PER_UNIT matches a unit and yield between searches once the query's slice is used up.

import { errors, type Position } from '../../values/errors';
import type { Value } from '../../values/types';
import type { EvalContext } from '../context';
import { argPos, asBoolean, evalOptional } from '../args';
import { define } from '../registry';
import { RegexMatcher, RegexSyntaxError, RegexUnsupported, compileJavaRegex, type CompiledRegex } from '../../regex/re2';
import { CpCounter, Output, chargeChars, optInt, startIndex, strArg, unitIndex, unitWidth } from './text';

/** Input characters × program instructions per compute unit (~1 µs of re2js NFA work). */
const SEARCH_DIVISOR = 256;
const MATCHES_PER_UNIT = 8;
const MAX_RESULTS = 1024;

function compile(pattern: string, pos: Position, ctx: EvalContext): CompiledRegex {
  chargeChars(ctx, pattern.length);
  try {
    return compileJavaRegex(pattern);
  } catch (e) {
    if (e instanceof RegexUnsupported)
      throw errors.invalidArgument(`Search pattern /${pattern}/ is not supported: ${e.message}.`, pos);
    if (e instanceof RegexSyntaxError) throw errors.invalidArgument(`Search pattern /${pattern}/ is not a valid regular expression.`, pos);
    throw e;
  }
}

/** Charges a search over `chars` characters, before it runs. */
function chargeSearch(ctx: EvalContext, chars: number, rx: CompiledRegex): void {
  const units = Math.floor((chars * rx.size) / SEARCH_DIVISOR);
  if (units > 0) ctx.budget.charge(units);
}

/** Between two searches of a loop: count the match, look at the clock, let others run. */
async function nextMatch(ctx: EvalContext, found: number): Promise<void> {
  if (found % MATCHES_PER_UNIT === 0) ctx.budget.tick();
  ctx.budget.poll();
  await ctx.budget.breathe();
}

define('containsstrregex', async (call, env, ctx) => {
  const s = await strArg(call, 'containsstrregex', env, ctx);
  const pattern = await strArg(call, 'pattern', env, ctx);
  const rx = compile(pattern, argPos(call, 'pattern'), ctx);
  chargeSearch(ctx, s.length, rx);
  return rx.re.test(s);
});

define('findstrregex', async (call, env, ctx) => {
  const s = await strArg(call, 'findstrregex', env, ctx);
  const pattern = await strArg(call, 'pattern', env, ctx);
  const start = startIndex(s, await optInt(call, 'start', env, ctx));
  const num = await optInt(call, 'num_results', env, ctx);
  const rx = compile(pattern, argPos(call, 'pattern'), ctx);
  const limit = Math.min(num ?? MAX_RESULTS, MAX_RESULTS);
  let from = unitIndex(s, start);
  chargeSearch(ctx, s.length - from, rx);
  const results: Value[] = [];
  const cps = new CpCounter(s);
  const m = new RegexMatcher(rx, s);
  while (results.length < limit && m.find(from)) {
    const to = cps.at(m.end);
    results.push(
      new Map<string, Value>([
        ['start', BigInt(cps.at(m.start))],
        ['end', BigInt(to - 1)],
        ['data', s.slice(m.start, m.end)],
      ]),
    );
    if (m.end > m.start) from = m.end;
    else if (m.start >= s.length) break;
    else from = m.start + unitWidth(s, m.start);
    await nextMatch(ctx, results.length);
  }
  ctx.budget.array(results.length);
  return results;
});

define('replacestrregex', async (call, env, ctx) => {
  const s = await strArg(call, 'replacestrregex', env, ctx);
  const pattern = await strArg(call, 'pattern', env, ctx);
  const replace = await strArg(call, 'replace', env, ctx);
  const fv = await evalOptional(call, 'first', env, ctx);
  const first = fv === undefined || fv === null ? false : asBoolean(fv, argPos(call, 'first'));
  const rx = compile(pattern, argPos(call, 'pattern'), ctx);
  chargeSearch(ctx, s.length, rx);
  const out = new Output(ctx.budget);
  const pieces: string[] = [];
  let template: Template | undefined;
  let last = 0;
  let from = 0;
  let found = 0;
  const m = new RegexMatcher(rx, s);
  while (m.find(from)) {
    // Java parses the replacement at the first match: without a match a bad one is no error.
    template ??= parseReplacement(replace, rx, argPos(call, 'replace'));
    const rep = expand(template, m);
    out.add(m.start - last + rep.length);
    pieces.push(s.slice(last, m.start), rep);
    last = m.end;
    if (first) break;
    if (m.end > m.start) from = m.end;
    else if (m.start >= s.length) break;
    else from = m.start + unitWidth(s, m.start);
    await nextMatch(ctx, ++found);
  }
  if (pieces.length === 0) return s;
  out.add(s.length - last);
  pieces.push(s.slice(last));
  return pieces.join('');
});

// --- Java replacement strings ------------------------------------------------------------------

/** Literal text and group references, in order. */
type Template = (string | number)[];

/** Java Matcher.appendReplacement: `$n` (longest valid group number), `${name}`, `\x` escapes. */
function parseReplacement(rep: string, rx: CompiledRegex, pos: Position): Template {
  const fail = (msg: string): never => {
    throw errors.invalidArgument(msg, pos);
  };
  const parts: Template = [];
  let lit = '';
  let i = 0;
  while (i < rep.length) {
    const c = rep[i];
    if (c === '\\') {
      i++;
      if (i === rep.length) fail('character to be escaped is missing');
      lit += rep[i++];
    } else if (c === '$') {
      i++;
      if (i === rep.length) fail('Illegal group reference: group index is missing');
      let group: number;
      if (rep[i] === '{') {
        i++;
        let name = '';
        while (i < rep.length && /[A-Za-z0-9]/.test(rep[i])) name += rep[i++];
        if (name === '') fail('named capturing group has 0 length name');
        if (rep[i] !== '}') fail("named capturing group is missing trailing '}'");
        i++;
        if (/^[0-9]/.test(name)) fail(`capturing group name {${name}} starts with digit character`);
        const g = rx.names.get(name);
        if (g === undefined) fail(`No group with name {${name}}`);
        group = g!;
      } else {
        let n = rep.charCodeAt(i) - 48;
        if (n < 0 || n > 9) fail('Illegal group reference');
        i++;
        while (i < rep.length) {
          const d = rep.charCodeAt(i) - 48;
          if (d < 0 || d > 9 || n * 10 + d > rx.groups) break;
          n = n * 10 + d;
          i++;
        }
        if (n > rx.groups) fail(`No group ${n}`);
        group = n;
      }
      if (lit !== '') parts.push(lit);
      lit = '';
      parts.push(group);
    } else {
      lit += c;
      i++;
    }
  }
  if (lit !== '') parts.push(lit);
  return parts;
}

function expand(t: Template, m: RegexMatcher): string {
  let out = '';
  for (const part of t) out += typeof part === 'string' ? part : (m.group(part) ?? '');
  return out;
}

/** Java Pattern.quote. */
define('regexescape', async (call, env, ctx) => {
  const s = await strArg(call, 'regexescape', env, ctx);
  const parts = s.split('\\E');
  ctx.budget.string(s.length + 4 + 4 * (parts.length - 1));
  return '\\Q' + parts.join('\\E\\\\E\\Q') + '\\E';
});
