// Interprets the JavaScript subset that FQL v4 text is written in (the official driver's syntax),
// without eval: literals, arrays, object literals, calls of the driver's functions (bare or
// `q.`-prefixed), arrow and function expressions (→ Lambda), `let`/`const` declarations, and the
// driver's module by name only (`import`/`require` of 'faunadb', `fauna.query`), as resource files
// write it. Everything else is an FqlJsError pointing at the offending text.

import type * as acorn from 'acorn';
import { callBuilder, isBuilder } from './build';
import { FqlJsError } from './errors';
import { FUNCTION_NAMES } from './shapes';
import { BuildError, FAUNADB, JsFunction, JsObject, Namespace, QUERY, orderedKeys, type JsValue } from './values';

/** The value of a parameter that no argument filled (`Let` calls its function with fewer). */
const MISSING = Symbol('missing');
type Slot = JsValue | typeof MISSING;

/** Names in scope: a function's parameters and declarations, or a session's top-level ones. */
export class Scope {
  constructor(
    readonly vars: Map<string, Slot> = new Map(),
    readonly parent?: Scope,
  ) {}

  lookup(name: string): Slot | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.vars.has(name)) return s.vars.get(name);
    return undefined;
  }

  has(name: string): boolean {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.vars.has(name)) return true;
    return false;
  }
}

/** What to write instead of a JavaScript operator. */
const OPERATOR_HINTS: Record<string, string> = {
  '+': 'Add or Concat', '-': 'Subtract', '*': 'Multiply', '/': 'Divide', '%': 'Modulo', '**': 'Pow',
  '==': 'Equals', '===': 'Equals', '!=': 'Not(Equals(…))', '!==': 'Not(Equals(…))',
  '<': 'LT', '<=': 'LTE', '>': 'GT', '>=': 'GTE', '&&': 'And', '||': 'Or', '!': 'Not',
  '&': 'BitAnd', '|': 'BitOr', '^': 'BitXor', '~': 'BitNot', '??': 'If(IsNull(…), …, …)',
};

const NOT_SUPPORTED: Record<string, string> = {
  AssignmentExpression: 'assignment', UpdateExpression: 'assignment', SpreadElement: 'spread (...)',
  MemberExpression: 'member access (only q.Function(…) calls are allowed)', NewExpression: '`new`',
  ThisExpression: '`this`', ConditionalExpression: 'the ?: operator (use If)', SequenceExpression: 'the comma operator',
  TaggedTemplateExpression: 'tagged templates', ClassExpression: 'classes', AwaitExpression: '`await`',
  YieldExpression: '`yield`', ImportExpression: '`import`', ChainExpression: 'optional chaining', MetaProperty: '`new.target`',
};

const LONG_MAGNITUDE = 2n ** 63n;

export class Interpreter {
  constructor(private readonly source: string) {}

  fail(node: acorn.Node, reason: string): never {
    throw new FqlJsError(reason, this.source, node.start);
  }

  /** Binds a `let`/`const`/`var` declaration's names in `scope`. */
  declare(decl: acorn.VariableDeclaration, scope: Scope): void {
    for (const d of decl.declarations) {
      if (d.id.type === 'ObjectPattern' && d.init) {
        this.destructureFaunadb(d.id, this.expr(d.init, scope), scope);
        continue;
      }
      if (d.id.type !== 'Identifier') this.fail(d.id, 'only plain names can be declared (no destructuring)');
      if (!d.init) this.fail(d, `${d.id.name} needs a value: ${decl.kind} ${d.id.name} = …`);
      scope.vars.set(d.id.name, this.expr(d.init, scope));
    }
  }

  /** `const { query: q } = require('faunadb')`, the one destructuring resource files use. */
  private destructureFaunadb(pattern: acorn.ObjectPattern, value: JsValue, scope: Scope): void {
    if (value !== FAUNADB) this.fail(pattern, 'only plain names can be declared (no destructuring)');
    for (const p of pattern.properties) {
      if (p.type === 'Property' && !p.computed && p.key.type === 'Identifier' && p.key.name === 'query' && p.value.type === 'Identifier') {
        scope.vars.set(p.value.name, QUERY);
      } else {
        this.fail(p, 'only query can be taken from faunadb');
      }
    }
  }

  /** `import * as fauna from 'faunadb'`, `import { query as q } from 'faunadb'` (JavaScript resource files). */
  importFaunadb(decl: acorn.ImportDeclaration, scope: Scope): void {
    if (decl.source.value !== 'faunadb') this.fail(decl.source, 'only the faunadb module can be imported');
    for (const spec of decl.specifiers) {
      if (spec.type !== 'ImportSpecifier') scope.vars.set(spec.local.name, FAUNADB);
      else if (spec.imported.type === 'Identifier' && spec.imported.name === 'query') scope.vars.set(spec.local.name, QUERY);
      else this.fail(spec, 'only query can be imported from faunadb');
    }
  }

  expr(node: acorn.Expression | acorn.SpreadElement | acorn.Super | acorn.PrivateIdentifier, scope: Scope): JsValue {
    switch (node.type) {
      case 'Literal':
        return this.literal(node);
      case 'TemplateLiteral':
        if (node.expressions.length > 0) this.fail(node.expressions[0], 'template substitutions (${…}) are not supported: use Concat or Format');
        return node.quasis[0].value.cooked ?? this.fail(node, 'invalid escape in template string');
      case 'UnaryExpression': {
        if (node.operator !== '-') return this.operator(node, node.operator);
        const v = this.expr(node.argument, scope);
        if (typeof v === 'number' || typeof v === 'bigint') return -v;
        return this.fail(node, 'unary minus applies to numbers only: use Subtract(0, …) for expressions');
      }
      case 'BinaryExpression':
      case 'LogicalExpression':
        return this.operator(node, node.operator);
      case 'ArrayExpression':
        return node.elements.map((el) => (el ? this.expr(el, scope) : this.fail(node, 'arrays with holes are not supported')));
      case 'ObjectExpression':
        return this.object(node, scope);
      case 'Identifier':
        return this.identifier(node, scope);
      case 'CallExpression':
        return this.call(node, scope);
      case 'MemberExpression':
        return this.member(node, scope);
      case 'ArrowFunctionExpression':
      case 'FunctionExpression':
        return this.func(node, scope);
      default:
        return this.fail(node, `${NOT_SUPPORTED[node.type] ?? node.type} is not supported`);
    }
  }

  private operator(node: acorn.Node, op: string): never {
    const hint = OPERATOR_HINTS[op];
    return this.fail(node, `the ${op} operator is not supported${hint ? `: use ${hint}` : ''}`);
  }

  private literal(node: acorn.Literal): JsValue {
    if (node.regex) this.fail(node, 'regular expression literals are not supported: write the pattern as a string');
    if (node.bigint !== undefined) {
      const v = BigInt(node.bigint);
      // 2^63 itself is allowed so that -9223372036854775808n can be written.
      if (v > LONG_MAGNITUDE) this.fail(node, `integer ${node.bigint}n is out of the 64-bit range`);
      return v;
    }
    const v = node.value as string | number | boolean | null;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) this.fail(node, 'number literal out of range');
      // The driver would send such a number as an integer that JavaScript has already rounded.
      if (Number.isInteger(v) && !Number.isSafeInteger(v) && v < 1e21) {
        this.fail(node, `integer ${node.raw} is beyond ±2^53 and loses precision as a JavaScript number: write ${node.raw}n`);
      }
    }
    return v;
  }

  private object(node: acorn.ObjectExpression, scope: Scope): JsObject {
    const entries = new Map<string, JsValue>();
    for (const p of node.properties) {
      if (p.type === 'SpreadElement') this.fail(p, 'spread (...) is not supported');
      if (p.computed) this.fail(p.key, 'computed keys ([…]) are not supported');
      if (p.shorthand) this.fail(p, `shorthand properties are not supported: write ${(p.key as acorn.Identifier).name}: …`);
      if (p.kind !== 'init' || p.method) this.fail(p, 'methods and accessors are not supported in object literals');
      const key = this.propertyKey(p.key);
      // `__proto__: x` sets the prototype instead of a key (and so would not be sent).
      if (key === '__proto__') this.fail(p.key, 'the key __proto__ is not supported');
      entries.set(key, this.expr(p.value, scope)); // a repeated key keeps its first place, as in JavaScript
    }
    const keys = orderedKeys(entries.keys());
    return new JsObject(new Map(keys.map((k) => [k, entries.get(k)!])));
  }

  private propertyKey(key: acorn.Expression | acorn.PrivateIdentifier): string {
    if (key.type === 'Identifier') return key.name;
    if (key.type === 'Literal' && (typeof key.value === 'string' || typeof key.value === 'number')) {
      if (key.bigint !== undefined) return String(BigInt(key.bigint));
      return String(key.value);
    }
    return this.fail(key, 'object keys must be names, strings or numbers');
  }

  private identifier(node: acorn.Identifier, scope: Scope): JsValue {
    const slot = scope.lookup(node.name);
    if (slot === MISSING) this.fail(node, `${node.name} has no value here (Let passes one Var per binding)`);
    if (slot !== undefined) return slot;
    if (isBuilder(node.name)) this.fail(node, `${node.name} is an FQL function: call it, as ${node.name}(…)`);
    if (node.name === 'q') return QUERY; // as in the tools, whose scope has the driver's `query` as q
    if (node.name === 'undefined') this.fail(node, 'undefined is not supported: use null');
    return this.fail(node, `unknown name ${node.name}`);
  }

  private call(node: acorn.CallExpression, scope: Scope): JsValue {
    if (node.optional) this.fail(node, 'optional calls (?.) are not supported');
    const args = node.arguments.map((a) => (a.type === 'SpreadElement' ? this.fail(a, 'spread (...) is not supported') : this.expr(a, scope)));
    const callee = node.callee;
    if (callee.type === 'Identifier' && scope.has(callee.name)) {
      const f = scope.lookup(callee.name);
      if (!(f instanceof JsFunction)) return this.fail(callee, `${callee.name} is not a function`);
      return f.invoke(args);
    }
    if (callee.type === 'Identifier' && callee.name === 'require') return this.requireFaunadb(node);
    const name = this.builderName(callee, scope);
    try {
      return callBuilder(name, args);
    } catch (e) {
      if (e instanceof BuildError) this.fail(node, e.message);
      throw e;
    }
  }

  /** `require('faunadb')` (CommonJS resource files): the driver's module, and no other. */
  private requireFaunadb(node: acorn.CallExpression): Namespace {
    const [arg] = node.arguments;
    if (node.arguments.length !== 1 || arg.type !== 'Literal' || arg.value !== 'faunadb') this.fail(node, "only require('faunadb') is supported");
    return FAUNADB;
  }

  /** The FQL function a callee names: `Get`, `q.Get`, or `fauna.query.Get` after an import. */
  private builderName(callee: acorn.Expression | acorn.Super, scope: Scope): string {
    let id: acorn.Identifier;
    if (callee.type === 'Identifier') id = callee;
    else if (callee.type === 'MemberExpression' && this.memberOf(callee, QUERY, scope)) id = callee.property as acorn.Identifier;
    else return this.fail(callee, 'only FQL functions can be called, by name (Get(…)) or as q.Get(…)');
    if (isBuilder(id.name)) return id.name;
    const near = FUNCTION_NAMES.find((n) => n.toLowerCase() === id.name.toLowerCase());
    return this.fail(id, `unknown FQL function ${id.name}${near ? ` (did you mean ${near}?)` : ''}`);
  }

  /** A member outside a call: only `fauna.query` (for `const q = fauna.query`) is a value. */
  private member(node: acorn.MemberExpression, scope: Scope): Namespace {
    const ns = this.namespace(node, scope);
    if (ns) return ns;
    if (this.memberOf(node, QUERY, scope)) {
      const name = (node.property as acorn.Identifier).name;
      this.fail(node, `q.${name} is an FQL function: call it, as q.${name}(…)`);
    }
    return this.fail(node, `${NOT_SUPPORTED.MemberExpression} is not supported`);
  }

  /** Whether `node` is `<ns>.name`: a plain, non-computed member of namespace `ns`. */
  private memberOf(node: acorn.MemberExpression, ns: Namespace, scope: Scope): boolean {
    return !node.computed && !node.optional && node.property.type === 'Identifier' && this.namespace(node.object, scope) === ns;
  }

  /** The namespace an expression names: `q` (unless rebound), an imported name, or `fauna.query`. */
  private namespace(node: acorn.Node, scope: Scope): Namespace | undefined {
    if (node.type === 'Identifier') {
      const name = (node as acorn.Identifier).name;
      const v = scope.has(name) ? scope.lookup(name) : name === 'q' ? QUERY : undefined;
      return v instanceof Namespace ? v : undefined;
    }
    if (node.type === 'MemberExpression' && this.memberOf(node as acorn.MemberExpression, FAUNADB, scope)) {
      return ((node as acorn.MemberExpression).property as acorn.Identifier).name === 'query' ? QUERY : undefined;
    }
    return undefined;
  }

  private func(node: acorn.ArrowFunctionExpression | acorn.FunctionExpression, scope: Scope): JsFunction {
    if (node.async || node.generator) this.fail(node, 'async functions and generators are not supported');
    const params = node.params.map((p) => (p.type === 'Identifier' ? p.name : this.fail(p, 'only plain parameter names are supported (no defaults, destructuring or rest)')));
    const dup = params.find((p, i) => params.indexOf(p) !== i);
    if (dup) this.fail(node, `parameter ${dup} is declared twice`);
    return new JsFunction(params, (args) => {
      const inner = new Scope(new Map(params.map((p, i) => [p, i < args.length ? args[i] : MISSING])), scope);
      return node.body.type === 'BlockStatement' ? this.block(node.body, inner) : this.expr(node.body, inner);
    });
  }

  /** A function body block: declarations, then `return <expression>`. */
  private block(body: acorn.BlockStatement, scope: Scope): JsValue {
    for (const [i, st] of body.body.entries()) {
      if (st.type === 'VariableDeclaration') this.declare(st, scope);
      else if (st.type === 'ReturnStatement' && i === body.body.length - 1 && st.argument) return this.expr(st.argument, scope);
      else if (st.type !== 'EmptyStatement') this.fail(st, 'a function body holds declarations and ends with return <expression>');
    }
    return this.fail(body, 'a function body must end with return <expression>');
  }
}

