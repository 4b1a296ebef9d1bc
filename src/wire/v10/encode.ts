// Materialized values (model.ts) as JSON text in the `simple` and `tagged` formats, as the core's
// MaterializedValue.encode writes them:
//  - tagged: Int `{"@int":"1"}` (within 32 bits) / `{"@long":"…"}`, Double `{"@double":"1.0"}`
//    (Java's Double.toString, `NaN`, `Infinity`), `@time` (Java's Instant.toString), `@date`,
//    `@bytes` (base64), `@mod`, `@ref`, `@doc`, `@set`, `@stream`, and `@object` around a struct
//    with a key starting with `@`;
//  - simple: the same without tags (numbers bare, NaN and ±Infinity as strings; a missing document
//    is `null`).
// Written straight into a string, not through an intermediate tree.

import { Bytes, DateV, Time, TxnTime } from '../../values/types';
import { formatDouble } from '../encode';
import { jsonString } from '../json';
import { formatDate, formatTime } from '../time';
import {
  Doc,
  DocRef,
  FunctionValue,
  LegacyRef,
  Module,
  NamedRef,
  NullDoc,
  SetPage,
  SetToken,
  StreamToken,
  type MObject,
  type MValue,
  SmallLong,
} from './model';

export type JsonFormat = 'simple' | 'tagged';

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;

/** `v` as JSON text; `txnTs` (µs) renders the running transaction's time (TxnTime). */
export function encodeValue(v: MValue, format: JsonFormat, txnTs: bigint): string {
  const w = new Writer(format === 'tagged', txnTs);
  w.value(v, false);
  return w.out;
}

/** The string a function value renders as in JSON (the decorated format drops the parentheses). */
function functionText(f: FunctionValue): string {
  return f.name === undefined ? '[function <lambda>]' : `[function ${f.name}()]`;
}

export function legacyRefText(r: LegacyRef): string {
  return `[legacy ${r.kind} ${r.name}]`;
}

class Writer {
  out = '';
  constructor(
    private readonly tagged: boolean,
    private readonly txnTs: bigint,
  ) {}

  /** Writes `{"<tag>":` (tagged only); `close` ends it. */
  private open(tag: string): void {
    if (this.tagged) this.out += '{"' + tag + '":';
  }

  private close(): void {
    if (this.tagged) this.out += '}';
  }

  private taggedString(tag: string, s: string): void {
    this.out += this.tagged ? '{"' + tag + '":' + jsonString(s) + '}' : jsonString(s);
  }

  /** `inDoc`: within a read document's fields, where documents render as references. */
  value(v: MValue, inDoc: boolean): void {
    switch (typeof v) {
      case 'string':
        this.out += jsonString(v);
        return;
      case 'bigint':
        if (this.tagged) this.out += (v >= INT_MIN && v <= INT_MAX ? '{"@int":"' : '{"@long":"') + v + '"}';
        else this.out += v.toString();
        return;
      case 'number':
        if (this.tagged) this.out += '{"@double":"' + formatDouble(v) + '"}';
        else this.out += Number.isFinite(v) ? formatDouble(v) : '"' + formatDouble(v) + '"';
        return;
      case 'boolean':
        this.out += v ? 'true' : 'false';
        return;
    }
    if (v === null) this.out += 'null';
    else if (v instanceof SmallLong) this.out += this.tagged ? '{"@long":"' + v.value + '"}' : v.value.toString();
    else if (Array.isArray(v)) this.array(v, inDoc);
    else if (v instanceof Map) this.object(v, inDoc);
    else if (v instanceof Doc) {
      if (inDoc) this.ref(v.ref);
      else {
        this.open('@doc');
        this.object(v.fields, true);
        this.close();
      }
    } else if (v instanceof DocRef || v instanceof NamedRef) this.ref(v);
    else if (v instanceof Module) this.taggedString('@mod', v.name);
    else if (v instanceof Time) this.taggedString('@time', formatTime(v.nanos));
    else if (v instanceof DateV) this.taggedString('@date', formatDate(v.days));
    else if (v instanceof TxnTime) this.taggedString('@time', formatTime(this.txnTs * 1000n));
    else if (v instanceof Bytes) this.taggedString('@bytes', base64(v.bytes));
    else if (v instanceof NullDoc) this.nullDoc(v, inDoc);
    else if (v instanceof SetPage) {
      this.open('@set');
      this.out += '{"data":';
      this.array(v.data, inDoc);
      if (v.after !== undefined) this.out += ',"after":' + jsonString(v.after);
      this.out += '}';
      this.close();
    } else if (v instanceof SetToken) this.taggedString('@set', v.token);
    else if (v instanceof StreamToken) this.taggedString('@stream', v.token);
    else if (v instanceof FunctionValue) this.out += jsonString(functionText(v));
    else this.out += jsonString(legacyRefText(v));
  }

  private array(items: readonly MValue[], inDoc: boolean): void {
    if (items.length === 0) {
      this.out += '[]';
      return;
    }
    this.out += '[';
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.out += ',';
      this.value(items[i], inDoc);
    }
    this.out += ']';
  }

  private object(o: MObject, inDoc: boolean): void {
    let escaped = false;
    if (this.tagged) {
      for (const k of o.keys()) {
        if (k.charCodeAt(0) === 64 /* @ */) {
          escaped = true;
          break;
        }
      }
    }
    if (escaped) this.out += '{"@object":';
    this.out += '{';
    let first = true;
    for (const [k, v] of o) {
      if (first) first = false;
      else this.out += ',';
      this.out += jsonString(k) + ':';
      this.value(v, inDoc);
    }
    this.out += escaped ? '}}' : '}';
  }

  /** A reference: `{"@ref": {id|name, coll}}`. */
  private ref(r: DocRef | NamedRef): void {
    this.open('@ref');
    this.refFields(r);
    this.out += '}';
    this.close();
  }

  /** `{"id":…,"coll":…` without the closing brace. */
  private refFields(r: DocRef | NamedRef): void {
    this.out += r instanceof DocRef ? '{"id":' + jsonString(r.id) : '{"name":' + jsonString(r.name);
    this.out += ',"coll":';
    this.taggedString('@mod', r.coll.name);
  }

  private nullDoc(d: NullDoc, inDoc: boolean): void {
    if (inDoc) this.ref(d.ref);
    else if (!this.tagged) this.out += 'null';
    else {
      this.out += '{"@ref":';
      this.refFields(d.ref);
      this.out += ',"exists":false,"cause":' + jsonString(d.cause) + '}}';
    }
  }
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
