// FQL v4 in the official driver's JavaScript syntax: text → wire JSON (for `flora import`,
// `flora shell`/`eval`) and wire JSON → text (for printing results).

export { parseFqlJs, FqlJsSession } from './parse';
export { FqlJsError } from './errors';
export { wireText } from './wireText';
export { renderValue, renderExpr, type Colouriser, type LayoutOptions, type TokenKind } from './render';
export { FUNCTION_NAMES } from './shapes';
