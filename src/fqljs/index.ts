// FQL v4 in the official driver's JavaScript syntax: text → wire JSON (for `flora import`,
// `flora shell`/`eval`) and wire JSON → text (for printing results).
//
//   parseFqlJs(source: string): JsonValue            one expression (after any let/const)
//   new FqlJsSession().parse(input: string): JsonValue[]   a shell input; declarations kept
//   wireText(wire: JsonValue): string                the request body the driver would send
//   renderValue(value: JsonValue, {width?, colour?}): string   a response, as fauna-shell printed it
//   renderExpr(wire: JsonValue, {width?, colour?}): string     an expression, in driver syntax
//   FUNCTION_NAMES: readonly string[]                every FQL function name (tab completion)
//
// JsonValue is wire/expr.ts's: objects are Maps, integers bigint, doubles number — what
// wire/json.ts's parseJson reads, and what wire/decode.ts's decodeExpr takes.

export { parseFqlJs, FqlJsSession } from './parse';
export { FqlJsError } from './errors';
export { wireText } from './wireText';
export { renderValue, renderExpr, type Colouriser, type LayoutOptions, type TokenKind } from './render';
export { FUNCTION_NAMES } from './shapes';
