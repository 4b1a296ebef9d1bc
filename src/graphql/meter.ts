// Every field graphql-js resolves is charged to the request's Budget, like an FQL call: one compute
// unit, the memory its place in the result takes, and its share of the answer's text (so a request
// stops at the compute, memory or response limit, not when it runs out of aliases, fragments or
// list items to multiply). graphql-js resolves synchronous fields in one go, so execution is sliced
// here too: once the slice is used up, each object field and list item it reaches is deferred and
// resolved by a drainer that runs them a slice at a time, giving the event loop away in between
// (leaves are resolved at once: their work is bounded by the operation's text). Resolvers of
// graphql-js's own (introspection, `__typename`, fields without a resolver) are wrapped as well.

import {
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isLeafType,
  isListType,
  isObjectType,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { Budget } from '../model/budget';
import { responseTooLarge } from '../fql/render';

/**
 * Memory one resolved field costs beyond its value: its slot in the result and what graphql-js
 * allocates to resolve it (resolve info, path, arguments) until that is collected. Measured: 44 to
 * 66 bytes kept per field, 96 to 162 at the peak, in wide and in long answers. Charged so that the
 * memory pool bounds what the requests in flight hold together.
 */
const FIELD_BYTES = 160;
/** Text of a field in the answer beyond its key and value: quotes, colon, comma. */
const FIELD_TEXT = 4;
/** Deferred fields run between two looks at the clock. */
const CLOCK_STRIDE = 16;

/** Set on the resolvers meterSchema made, so that types shared by every schema are wrapped once. */
const METERED = Symbol('metered');

type Args = Record<string, unknown>;
type Resolver = GraphQLFieldResolver<unknown, unknown, Args> & { [METERED]?: true };

/** What a field's value is, for how it is sliced. */
const enum Shape {
  /** A scalar or enum (or a list of them): resolved at once, even past the slice (it is O(1) work). */
  Leaf,
  /** An object: what lies below it may be large, so past the slice it is deferred. */
  Object,
  /** A list of objects: past the slice, deferred; its items too, one by one (items()). */
  ObjectList,
}

const enum Admit {
  Now,
  Later,
  Stopped,
}

/** One request's charging and slicing of resolved fields (the GraphQL context carries it as `meter`). */
export class FieldMeter {
  /** Deferred fields, each started in its turn by the drainer; `head` is the next one. */
  private waiting: (() => void)[] = [];
  private head = 0;
  private draining = false;
  /** Set once nothing more is resolved: the meter stopped the request (`failure`), or run() ended. */
  private ended = false;
  private failure: { error: unknown } | undefined;
  /** Rejects what run() races graphql-js's execution against (made only for an execution that waits). */
  private stop: ((error: unknown) => void) | undefined;
  /**
   * What fields reached once the meter ended return: it never settles, so graphql-js goes no deeper.
   * One per request, made when first needed: graphql-js hangs its continuations on it, which must be
   * garbage with the request.
   */
  private never: Promise<never> | undefined;
  /** Estimated length of the answer's text so far (the data's: errors are not counted). */
  private chars = 0;
  private readonly maxText: number;

  constructor(private readonly budget: Budget) {
    this.maxText = budget.limits.maxResponseBytes;
  }

  /**
   * Runs graphql-js's execution until it ends or the meter stops it (a limit reached, the request
   * timed out): then this rejects with that error at once. Either way, what was left pending is
   * dropped and nothing more is resolved: graphql-js ends an execution as soon as a non-null field
   * fails (its siblings may still be deferred), and the transaction ends with it.
   */
  async run<T>(execution: () => T | Promise<T>): Promise<T> {
    try {
      const out = execution();
      const result = out instanceof Promise ? await Promise.race([out, this.stopped()]) : out;
      if (this.failure) throw this.failure.error;
      return result;
    } finally {
      this.close();
    }
  }

  /** Rejects with the error that stops the request (at once when it already has). */
  private stopped(): Promise<never> {
    return new Promise((_, reject) => {
      if (this.failure) reject(this.failure.error);
      else this.stop = reject;
    });
  }

  /** Stops resolving without an error: deferred fields are dropped, fields reached later never settle. */
  private close(): void {
    this.ended = true;
    this.waiting = [];
    this.head = 0;
  }

  /** Charges a field about to be resolved under `key` (its alias or name). */
  private admit(key: string, shape: Shape): Admit {
    if (this.ended) return Admit.Stopped;
    try {
      this.budget.tick();
      this.budget.alloc(FIELD_BYTES);
      this.addText(key.length + FIELD_TEXT);
    } catch (e) {
      this.fail(e);
      return Admit.Stopped;
    }
    return this.budget.yieldDue && shape !== Shape.Leaf ? Admit.Later : Admit.Now;
  }

  /** Estimated length of the answer's data so far: keys, strings, list slots (numbers, times and punctuation are left out). */
  get text(): number {
    return this.chars;
  }

  private addText(chars: number): void {
    this.chars += chars;
    if (this.chars > this.maxText) throw responseTooLarge(this.chars, this.maxText);
  }

  private fail(error: unknown): void {
    if (this.ended) return;
    this.failure = { error };
    this.close();
    this.stop?.(error);
  }

  /**
   * Resolves one field with `resolver`, charged and in its slice. Leaves are never deferred: deferring
   * one costs about what resolving it does, and an object's leaves are bounded by the operation's
   * text; graphql-js would also make a promise of each sibling of a deferred field.
   */
  resolve(resolver: Resolver, shape: Shape, source: unknown, args: Args, context: unknown, info: GraphQLResolveInfo): unknown {
    const objectList = shape === Shape.ObjectList;
    switch (this.admit(info.path.key as string, shape)) {
      case Admit.Now:
        return this.measure(resolver(source, args, context, info), objectList);
      case Admit.Later:
        return this.later(() => this.measure(resolver(source, args, context, info), objectList));
      default:
        return (this.never ??= new Promise<never>(() => undefined));
    }
  }

  /** Charges what a resolver returned; lists of objects are handed out item by item (items()). */
  private measure(value: unknown, objectList: boolean): unknown {
    if (typeof value === 'string') this.charge(value.length * 2, value.length + 2);
    else if (Array.isArray(value)) {
      this.charge(value.length * 8, value.length);
      if (objectList) return this.items(value);
    } else if (objectList && value instanceof Promise) return value.then((v: unknown) => this.measure(v, true));
    return value;
  }

  private charge(bytes: number, text: number): void {
    if (this.ended) return;
    try {
      this.budget.alloc(bytes);
      this.addText(text);
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * The items of a list of objects as graphql-js completes them: those reached once the slice is
   * used up are deferred (their fields are resolved in a later slice), and none once the meter ended.
   */
  private *items(list: readonly unknown[]): Generator<unknown> {
    for (const item of list) {
      if (this.ended) return;
      yield this.budget.yieldDue ? this.later(() => item) : item;
    }
  }

  /** `work` run by the drainer in a later slice; its promise settles with what it returns. */
  private later<T>(work: () => T): Promise<T> {
    const deferred = new Promise<T>((resolve, reject) => {
      this.waiting.push(() => {
        try {
          resolve(work());
        } catch (e) {
          reject(e);
        }
      });
    });
    if (!this.draining) void this.drain();
    return deferred;
  }

  /**
   * Runs deferred fields a slice at a time, in order. After each, the drainer lets the microtasks
   * queued so far run: graphql-js completes the field's value there, resolving the fields below it
   * at once (depth first) until the slice is used up; those it reaches then are deferred in turn.
   */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.head < this.waiting.length && !this.ended) {
        await this.budget.pause();
        let ran = 0;
        while (this.head < this.waiting.length && !this.budget.yieldDue && !this.ended) {
          const work = this.waiting[this.head];
          this.waiting[this.head++] = undefined as unknown as () => void;
          work();
          await null;
          if (++ran % CLOCK_STRIDE === 0) this.budget.poll();
        }
        if (this.head === this.waiting.length) {
          this.waiting = [];
          this.head = 0;
        }
      }
    } catch (e) {
      this.fail(e); // the request timed out (or was cancelled) while it waited for its turn
    } finally {
      this.draining = false;
    }
  }
}

/**
 * Wraps every field resolver of `schema`, graphql-js's introspection fields and the meta fields
 * (`__schema`, `__type`, `__typename`) included, so that a request whose context carries a
 * FieldMeter is charged and sliced per field. Other contexts resolve as before.
 */
export function meterSchema(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap()))
    if (isObjectType(type)) for (const field of Object.values(type.getFields())) meterField(field);
  for (const field of [SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef]) meterField(field);
}

function meterField(field: GraphQLField<unknown, unknown, Args>): void {
  const inner = (field.resolve ?? defaultFieldResolver) as Resolver;
  if (inner[METERED]) return;
  const shape = isLeafType(getNamedType(field.type)) ? Shape.Leaf : isListType(getNullableType(field.type)) ? Shape.ObjectList : Shape.Object;
  const metered: Resolver = (source, args, context, info) => {
    const meter = (context as { meter?: unknown } | null | undefined)?.meter;
    if (!(meter instanceof FieldMeter)) return inner(source, args, context, info);
    return meter.resolve(inner, shape, source, args, context, info);
  };
  metered[METERED] = true;
  field.resolve = metered;
}
