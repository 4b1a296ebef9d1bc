// Entry points: FQL-JS text → the wire JSON the official driver would send for it.

import * as acorn from 'acorn';
import type { JsonValue } from '../wire/expr';
import { checkSize, resetBudget, wrap } from './build';
import { FqlJsError } from './errors';
import { Interpreter, Scope } from './interpret';
import { BuildError } from './values';

const OPTIONS: acorn.Options = { ecmaVersion: 'latest', sourceType: 'script' };

/** One expression of a program, and where it starts. */
interface ParsedExpression {
  readonly wire: JsonValue;
  readonly offset: number;
}

/**
 * Parses `source`, which must hold exactly one expression (a resource file, `flora eval`), after
 * any number of `let`/`const` declarations. A source that is an object literal `{…}` is one
 * expression, as fauna-schema-migrate reads it.
 */
export function parseFqlJs(source: string): JsonValue {
  const found = run(source, new Scope());
  if (found.length !== 1) {
    const at = found[1]?.offset ?? source.length;
    throw new FqlJsError(found.length === 0 ? 'no expression to run' : `expected one expression, found ${found.length}`, source, at);
  }
  return found[0].wire;
}

/**
 * A shell's parser: each input may declare names with `let`/`const` (kept for later inputs, as in
 * fauna-shell 0.x) and holds any number of expressions, each one query.
 */
export class FqlJsSession {
  private scope = new Scope();

  /** The expressions of one input, in order. Its declarations are kept only if the whole input parses. */
  parse(input: string): JsonValue[] {
    const trial = new Scope(new Map(this.scope.vars));
    const found = run(input, trial);
    this.scope = trial;
    return found.map((e) => e.wire);
  }

  /** Names declared so far (for completion). */
  names(): string[] {
    return [...this.scope.vars.keys()];
  }
}

function run(source: string, scope: Scope): ParsedExpression[] {
  resetBudget();
  try {
    const interpreter = new Interpreter(source);
    const out: ParsedExpression[] = [];
    const emit = (node: acorn.Expression): void => {
      const value = interpreter.expr(node, scope);
      let wire: JsonValue;
      try {
        wire = wrap(value); // as Client.query does
        checkSize(wire);
      } catch (e) {
        if (e instanceof BuildError) interpreter.fail(node, e.message);
        throw e;
      }
      out.push({ wire, offset: node.start });
    };
    const object = leadingObject(source);
    if (object) {
      emit(object);
      return out;
    }
    for (const st of parseProgram(source).body) {
      if (st.type === 'ExpressionStatement') emit(st.expression);
      else if (st.type === 'VariableDeclaration') interpreter.declare(st, scope);
      else if (st.type === 'ImportDeclaration') interpreter.importFaunadb(st, scope);
      else if (st.type === 'ExportDefaultDeclaration' && !st.declaration.type.endsWith('Declaration')) emit(st.declaration as acorn.Expression);
      else if (st.type !== 'EmptyStatement') interpreter.fail(st, 'only expressions, let/const declarations, imports of faunadb and export default are supported');
    }
    return out;
  } catch (e) {
    // Deep nesting exhausts the stack in acorn or here: report it rather than crash.
    if (e instanceof RangeError) throw new FqlJsError('expression nested too deeply', source, 0);
    if (e instanceof BuildError) throw new FqlJsError(e.message, source, 0);
    throw e;
  }
}

/** A script, or a module when it imports or exports (a JavaScript resource file of fauna-schema-migrate). */
function parseProgram(source: string): acorn.Program {
  try {
    return acorn.parse(source, { ...OPTIONS, locations: true });
  } catch (e) {
    if (!(e instanceof SyntaxError && e.message.includes('sourceType: module'))) throw syntaxError(e, source);
    return syntax(() => acorn.parse(source, { ...OPTIONS, sourceType: 'module', locations: true }), source);
  }
}

/**
 * `{…}` at the start reads as an object, not a block (fauna-schema-migrate wraps such a file in
 * parentheses; Node's REPL does the same): returns it when nothing but `;` follows.
 */
function leadingObject(source: string): acorn.Expression | undefined {
  const first = syntax(() => acorn.tokenizer(source, OPTIONS).getToken(), source);
  if (first.type.label !== '{') return undefined;
  const node = syntax(() => acorn.parseExpressionAt(source, first.start, { ...OPTIONS, locations: true }), source);
  const rest = syntax(() => acorn.parse(source.slice(node.end), OPTIONS), source, node.end);
  const extra = rest.body.find((s) => s.type !== 'EmptyStatement');
  if (extra) throw new FqlJsError('expected one expression after the object literal, found more', source, node.end + extra.start);
  return node;
}

/** Runs an acorn call, its SyntaxError becoming an FqlJsError (`base`: where the text it read starts). */
function syntax<T>(f: () => T, source: string, base = 0): T {
  try {
    return f();
  } catch (e) {
    throw syntaxError(e, source, base);
  }
}

function syntaxError(e: unknown, source: string, base = 0): unknown {
  const pos = (e as { pos?: unknown }).pos;
  if (!(e instanceof SyntaxError) || typeof pos !== 'number') return e;
  const reason = e.message.replace(/ \(\d+:\d+\)$/, '');
  // acorn's own guard against deep nesting
  if (reason.includes('stack space')) return new FqlJsError('expression nested too deeply', source, 0);
  return new FqlJsError(`syntax error: ${reason}`, source, base + pos);
}
