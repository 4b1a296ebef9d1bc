// A templated query's fragments assembled into one text, as the core's FQL2Query.JSONBuilder does:
//
//   "text"                 the text itself (wrapped in parentheses inside an array or object)
//   {"fql": [f, ...]}      the fragments in turn (in parentheses when inside an array or object)
//   {"value": v}           the placeholder TEMPLATE_VALUE_SIGIL; `v` is kept, undecoded
//   {"array": [f, ...]}    `[f, f]`; an array of values only becomes one value (a JSON array)
//   {"object": {k: f}}     `{ "k": f }`; an object of values only becomes one value, wrapped
//                          as `{"@object": {...}}` so keys starting with `@` survive decoding
//
// Values are left as the JSON the driver sent: the caller decodes each with the tagged format
// and binds the i-th to `$i` (see ./index.ts parseQueryTemplate).

import { TEMPLATE_VALUE_SIGIL } from './exprs';
import { displayString } from './display';

export interface AssembledQuery {
  readonly text: string;
  /** Each value with the offset of its placeholder in `text`, in order. */
  readonly values: { readonly value: unknown; readonly offset: number }[];
}

/** Thrown for a malformed template; the message is the core's. */
export class TemplateError extends Error {}

const SHAPE = "an object with a single key 'fql', 'value', 'array', or 'object'";

export function assembleTemplate(query: unknown): AssembledQuery {
  const b = new Builder();
  b.fragment(query);
  return { text: b.text, values: b.values };
}

class Builder {
  text = '';
  values: { value: unknown; offset: number }[] = [];
  private inContainer = false;
  private hitQuery = false;

  fragment(f: unknown): void {
    if (typeof f === 'string') {
      if (f.includes('\0')) throw new TemplateError('FQL strings cannot contain NUL characters');
      this.hitQuery = true;
      this.text += this.inContainer ? `(${f})` : f;
      return;
    }
    if (f === null || typeof f !== 'object' || Array.isArray(f)) throw new TemplateError(`Expected ${SHAPE}`);
    const keys = Object.keys(f);
    if (keys.length !== 1) throw new TemplateError(`Expected ${SHAPE}`);
    const v = (f as Record<string, unknown>)[keys[0]];
    const outer = this.inContainer;
    switch (keys[0]) {
      case 'fql':
        if (!Array.isArray(v)) throw new TemplateError('Expected an array');
        this.inContainer = false;
        if (outer) this.text += '(';
        for (const part of v) this.fragment(part);
        if (outer) this.text += ')';
        break;
      case 'value':
        this.values.push({ value: v, offset: this.text.length });
        this.text += TEMPLATE_VALUE_SIGIL;
        break;
      case 'array':
        if (!Array.isArray(v)) throw new TemplateError('Expected an array');
        this.inContainer = true;
        this.container(() => {
          this.text += '[';
          v.forEach((part, i) => {
            if (i > 0) this.text += ', ';
            this.fragment(part);
          });
          this.text += ']';
        }, (vals) => vals);
        break;
      case 'object': {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new TemplateError('Expected an object');
        this.inContainer = true;
        const entries = Object.entries(v);
        this.container(() => {
          this.text += '{ ';
          entries.forEach(([k, part], i) => {
            if (i > 0) this.text += ', ';
            this.text += displayString(k) + ': ';
            this.fragment(part);
          });
          this.text += ' }';
        }, (vals) => ({ '@object': Object.fromEntries(entries.map(([k], i) => [k, vals[i]])) }));
        break;
      }
      default:
        throw new TemplateError(`Expected ${SHAPE}`);
    }
    this.inContainer = outer;
  }

  /** Writes a container; if it held values only, replaces it with one value made by `merge`. */
  private container(write: () => void, merge: (values: unknown[]) => unknown): void {
    const prevHit = this.hitQuery;
    this.hitQuery = false;
    const qstart = this.text.length;
    const vstart = this.values.length;
    write();
    if (!this.hitQuery) {
      const merged = merge(this.values.slice(vstart).map((x) => x.value));
      this.text = this.text.slice(0, qstart) + TEMPLATE_VALUE_SIGIL;
      this.values.length = vstart;
      this.values.push({ value: merged, offset: qstart });
    }
    this.hitQuery ||= prevHit;
  }
}
