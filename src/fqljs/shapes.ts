// How each builder of the official JavaScript driver (faunadb/src/query.js) turns its positional
// arguments into wire keys. Head keys come from Flora's table (wire/builders.ts); this file adds
// what that table cannot say: argument order, arity, and when an argument is left out.

import { BUILDER_HEADS, BUILDER_NAMES } from '../wire/builders';

/**
 * How one wire key gets its value:
 * - `req`: argument `arg`, always present;
 * - `opt`: left out when the argument is absent or null (the driver's `params()`);
 * - `given`: present whenever the argument is passed, null included;
 * - `nullable`: the argument, or null when absent (`Collections()` → `{"collections": null}`);
 * - `rest`: arguments from `arg` on, one of them alone unwrapped (the driver's `varargs()`);
 * - `restArray`: arguments from `arg` on, always an array (`Do`).
 */
export type ParamMode = 'req' | 'opt' | 'given' | 'nullable' | 'rest' | 'restArray';

export interface Param {
  readonly key: string;
  readonly arg: number;
  readonly mode: ParamMode;
}

export interface Shape {
  readonly name: string;
  readonly head: string;
  /** Wire keys in the order the driver writes them (the head first). Empty: `{head: null}`. */
  readonly params: readonly Param[];
  readonly minArgs: number;
  readonly maxArgs: number;
}

/** Builders whose arguments the generic shapes cannot express (see build.ts). */
export const SPECIAL_BUILDERS: ReadonlySet<string> = new Set(['Ref', 'Bytes', 'Let', 'Lambda', 'Object', 'Paginate']);

// Shape of every builder not listed: one argument under the head key. In a spec, `$` is the head
// key, `@i` takes argument i instead of the next one, and a suffix gives the mode:
// `?` opt, `~` given, `*` nullable, `...` rest, `[]` restArray; `-` alone means no arguments.
const VARARGS = '$...';
const SPECS: Record<string, string> = {
  At: '$ expr', If: '$ then else', Do: '$[]', Call: '$ arguments...',
  Map: '$@1 collection@0', Foreach: '$@1 collection@0', Filter: '$@1 collection@0',
  Take: '$ collection', Drop: '$ collection', Prepend: '$ collection', Append: '$ collection',
  Get: '$ ts?', Exists: '$ ts?', Reduce: '$ initial collection',
  Create: '$ params~', Update: '$ params', Replace: '$ params', Insert: '$ ts action params', Remove: '$ ts action',
  Match: '$ terms...', Merge: '$ with lambda?', Join: '$ with', Range: '$ from to',
  Login: '$ params', Identify: '$ password',
  Concat: '$ separator?', Casefold: '$ normalizer?', ContainsStr: '$ search', ContainsStrRegex: '$ pattern',
  StartsWith: '$ search', EndsWith: '$ search', FindStr: '$ find start?', FindStrRegex: '$ pattern start? num_results?',
  NGram: '$ min? max?', Repeat: '$ number?', ReplaceStr: '$ find replace', ReplaceStrRegex: '$ pattern replace first?',
  SubString: '$ start? length?', Format: '$ values...',
  Epoch: '$ unit', TimeAdd: '$ offset unit', TimeSubtract: '$ offset unit', TimeDiff: '$ other unit',
  Database: '$ scope~', Index: '$ scope~', Class: '$ scope~', Collection: '$ scope~', Function: '$ scope~',
  Role: '$ scope?',
  Contains: '$ in', ContainsPath: '$ in', ContainsField: '$ in', ContainsValue: '$ in',
  Select: '$ from default~', SelectAll: '$ from', MoveDatabase: '$ to',
  Round: '$ precision?', Trunc: '$ precision?', Hypot: '$ b?', Pow: '$ exp?',
  ...Object.fromEntries(
    'Identity CurrentIdentity HasIdentity HasCurrentIdentity CurrentToken HasCurrentToken Now NextId NewId'
      .split(' ')
      .map((n) => [n, '-']),
  ),
  ...Object.fromEntries(
    'AccessProviders Classes Collections Databases Indexes Functions Roles Keys Tokens Credentials'.split(' ').map((n) => [n, '$*']),
  ),
  ...Object.fromEntries(
    'Union Intersection Difference Equals Add BitAnd BitOr BitXor Divide Max Min Modulo Multiply Subtract LT LTE GT GTE And Or'
      .split(' ')
      .map((n) => [n, VARARGS]),
  ),
};

const SUFFIXES: [suffix: string, mode: ParamMode][] = [
  ['...', 'rest'], ['[]', 'restArray'], ['?', 'opt'], ['~', 'given'], ['*', 'nullable'],
];

function parseSpec(name: string, head: string, spec: string): Shape {
  if (spec === '-') return { name, head, params: [], minArgs: 0, maxArgs: 0 };
  const params: Param[] = [];
  let minArgs = 0;
  let maxArgs = 0;
  spec.split(' ').forEach((word, i) => {
    let mode: ParamMode = 'req';
    for (const [suffix, m] of SUFFIXES) {
      if (word.endsWith(suffix)) {
        mode = m;
        word = word.slice(0, -suffix.length);
        break;
      }
    }
    const [keyWord, at] = word.split('@');
    const arg = at === undefined ? i : Number(at);
    params.push({ key: keyWord === '$' ? head : keyWord, arg, mode });
    if (mode === 'rest' || mode === 'restArray') {
      // The driver asks for at least one argument in all: the head's, or the first rest one.
      minArgs = Math.max(minArgs, 1);
      maxArgs = Infinity;
    } else {
      if (mode === 'req') minArgs++;
      maxArgs = Math.max(maxArgs, arg + 1);
    }
  });
  return { name, head, params, minArgs, maxArgs };
}

/** Builder name → its shape, for every builder except SPECIAL_BUILDERS. */
export const SHAPES: ReadonlyMap<string, Shape> = new Map(
  BUILDER_NAMES.filter((n) => !SPECIAL_BUILDERS.has(n)).map((name) => {
    const head = BUILDER_HEADS.get(name)!;
    return [name, parseSpec(name, head, SPECS[name] ?? '$')] as const;
  }),
);

/** Every FQL function name the parser accepts, sorted (for tab completion). */
export const FUNCTION_NAMES: readonly string[] = [...BUILDER_NAMES].sort();

/** The driver's arity phrase: "2", "at least 1", "up to 1", "from 1 to 2". */
export function arityText(min: number, max: number): string {
  if (max === Infinity) return `at least ${min}`;
  if (min === 0 && max !== 0) return `up to ${max}`;
  if (min === max) return String(min);
  return `from ${min} to ${max}`;
}
