// An input for FQL in the driver's syntax (a function's body, a predicate, a call's arguments),
// parsed in the browser: a mistake is shown under the field, with its line, column and a caret,
// and the cursor put on it, before anything is sent. Checked when its form is sent, not when it
// loses focus: a message appearing as the user clicks elsewhere would move what they click on.

import type { JsonValue } from '../wire/expr';
import { FqlJsError } from '../fqljs/errors';
import { h, replace } from './dom';
import { fql } from './queries';

export interface FqlFieldOptions {
  id: string;
  /** Shown above the field; with `compact`, only read out (the field's aria-label). */
  label: string;
  placeholder: string;
  rows?: number;
  compact?: boolean;
  /** Empty text reads as null (else it is a mistake). */
  optional?: boolean;
  /** Text → wire (default: one FQL expression); an FqlJsError points into the text. */
  parse?: (text: string) => JsonValue;
  /** The parsed value to send, or an Error whose message is shown. */
  check?: (wire: JsonValue) => JsonValue;
}

export interface FqlField {
  readonly element: HTMLElement;
  readonly input: HTMLTextAreaElement;
  /** The text; setting it clears a shown mistake. */
  text: string;
  /** The value to send; null when optional and empty; undefined after showing a mistake. */
  read(): JsonValue | null | undefined;
}

export function fqlField(options: FqlFieldOptions): FqlField {
  const { id, label, placeholder, compact = false, optional = false, parse = fql, check } = options;
  const input = h('textarea', {
    id,
    class: 'fql',
    rows: String(options.rows ?? 3),
    spellcheck: 'false',
    placeholder,
    'aria-label': compact ? label : undefined,
    'aria-describedby': `${id}-mistake`,
  });
  const mistake = h('pre', { id: `${id}-mistake`, class: 'fql-mistake', role: 'alert' });
  const element = h('div', { class: compact ? 'fql-field compact' : 'fql-field' }, !compact && h('label', { for: id }, label), input, mistake);

  const clear = () => {
    replace(mistake);
    input.removeAttribute('aria-invalid');
  };
  const fail = (text: string, offset?: number): undefined => {
    replace(mistake, text);
    input.setAttribute('aria-invalid', 'true');
    // The cursor waits at the mistake for when the field gets focus (focusFirstMistake).
    if (offset !== undefined) input.setSelectionRange(offset, offset);
    return undefined;
  };
  const read = (): JsonValue | null | undefined => {
    clear();
    const text = input.value;
    if (text.trim() === '') return optional ? null : fail(`${label}: required, e.g. ${placeholder}`);
    let wire: JsonValue;
    try {
      wire = parse(text);
    } catch (err) {
      if (err instanceof FqlJsError) return fail(`Syntax: ${err.message}`, err.offset);
      return fail(err instanceof Error ? err.message : String(err));
    }
    try {
      return check ? check(wire) : wire;
    } catch (err) {
      return fail(err instanceof Error ? err.message : String(err));
    }
  };
  input.addEventListener('input', () => input.hasAttribute('aria-invalid') && clear());
  return {
    element,
    input,
    get text() {
      return input.value;
    },
    set text(v: string) {
      input.value = v;
      clear();
    },
    read,
  };
}

/** Focuses the first field in `root` showing a mistake (after a form's fields were read); false when none. */
export function focusFirstMistake(root: HTMLElement): boolean {
  const field = root.querySelector<HTMLElement>('[aria-invalid="true"]');
  field?.focus();
  return field !== null;
}
