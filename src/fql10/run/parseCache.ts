// Parsed queries by their text: applications send the same few query texts over and over (a driver's
// fql`…` template becomes the same text whatever its values), so each is parsed once. Bounded in
// entries and in the text it holds, least recently used out first. Failed parses are kept too: a
// client repeating a bad query costs no more than a good one.

import type { Expr } from '../ast';
import { parseQuery, parseQueryTemplate, type ParseResult } from '../parser';

export interface ParseCacheLimits {
  readonly entries: number;
  /** UTF-16 units of query text held at most (the trees are a small multiple of it). */
  readonly chars: number;
}

export const DEFAULT_PARSE_CACHE: ParseCacheLimits = { entries: 1024, chars: 8 * 1024 * 1024 };

export class ParseCache {
  /** Least recently used first (a Map keeps insertion order; a hit is moved to the end). */
  private readonly trees = new Map<string, ParseResult<Expr>>();
  private chars = 0;

  constructor(private readonly limits: ParseCacheLimits = DEFAULT_PARSE_CACHE) {}

  /** The query's tree or its parse errors; `template`: placeholders are `$0`, `$1`, … */
  parse(text: string, template: boolean): ParseResult<Expr> {
    // A template and a plain query of the same text parse differently: the key tells them apart.
    const key = (template ? 't' : 'q') + text;
    const hit = this.trees.get(key);
    if (hit !== undefined) {
      this.trees.delete(key);
      this.trees.set(key, hit);
      return hit;
    }
    const parsed = template ? parseQueryTemplate(text) : parseQuery(text);
    if (key.length <= this.limits.chars) {
      this.trees.set(key, parsed);
      this.chars += key.length;
      for (const [oldest] of this.trees) {
        if (this.trees.size <= this.limits.entries && this.chars <= this.limits.chars) break;
        this.trees.delete(oldest);
        this.chars -= oldest.length;
      }
    }
    return parsed;
  }

  get size(): number {
    return this.trees.size;
  }
}
