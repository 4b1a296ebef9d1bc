// What a stream follows and how its events look (fql-v4.md §1.12, wire.md §6.3–6.4): the `fields`
// parameter, the streamable values (a document ref or version, Documents(collection),
// Match(index, terms…)), and the rendering of commit-feed changes into event lines, evaluated in a
// read-only transaction so that permissions are those of the caller at delivery time.

import type { EvalContext } from '../fql/context';
import { diff } from '../fql/events';
import { matchedIndex, openMatch, type MatchedSet } from '../fql/match';
import { dbRefOf, docKeyOf, refOf } from '../model/documents';
import { namedPayload } from '../model/indexer';
import { allowed, checkAccess, checkSetRead } from '../model/permissions';
import { resolveRef, type Target } from '../model/resolve';
import { named, RefNames } from '../model/refNames';
import type { CommittedIndexEntry, CommittedVersion, DocKey, Version } from '../storage/types';
import { errors, ProtocolError, QueryError } from '../values/errors';
import { Ref, SetV, typeName, type Obj, type Value } from '../values/types';
import { encodeRef, encodeValue } from '../wire/encode';
import { jsonString } from '../wire/json';

// ---- fields ----------------------------------------------------------------------------------

export const STREAM_FIELDS = ['action', 'document', 'diff', 'prev', 'index'] as const;
export type StreamField = (typeof STREAM_FIELDS)[number];
export const DEFAULT_FIELDS: readonly StreamField[] = ['action', 'document'];

/** `?fields=a,b` → the fields in canonical order; a ProtocolError (400) for an unknown name. */
export function parseFields(query: URLSearchParams): readonly StreamField[] | ProtocolError {
  const given = query.getAll('fields');
  if (given.length === 0) return DEFAULT_FIELDS;
  const names = given.join(',').split(',').map((s) => s.trim());
  for (const name of names) {
    if (!(STREAM_FIELDS as readonly string[]).includes(name)) {
      return new ProtocolError(
        400,
        'invalid url parameter',
        `Invalid url parameter fields. Unknown field '${name}': expected a comma-separated list of ${STREAM_FIELDS.join(', ')}.`,
      );
    }
  }
  return STREAM_FIELDS.filter((f) => names.includes(f));
}

// ---- what a stream follows ---------------------------------------------------------------------

export type StreamTarget = (
  /** A document of a user collection (a ref, or the ref of a document version). */
  | { kind: 'document'; ref: Ref; key: DocKey }
  /** Documents(collection): add on create, remove on delete. */
  | { kind: 'documents'; collection: Ref; db: bigint; coll: number }
  /** Match(index, terms): the add/remove changes of the index entries with those terms. */
  | { kind: 'match'; index: Ref; terms: Value[]; db: bigint; id: number; prefix: Uint8Array; arityOk: boolean; matches: MatchedSet['matches'] }
) & {
  /** Identifies what is followed and how its events render (the same for the same ref or set). */
  share: string;
};

const NO_TXN = { txnTs: 0n };

function notStreamable(v: Value): QueryError {
  return errors.invalidArgument(`Expected a Document Ref or Version, or a Set Ref, got ${typeName(v)}.`, []);
}

/**
 * The value a stream request evaluated to, as a target; checks that the caller may read it
 * (403 otherwise). Throws `invalid argument` for anything that cannot be streamed.
 */
export async function streamTarget(ctx: EvalContext, v: Value): Promise<StreamTarget> {
  if (v instanceof Map && v.get('ref') instanceof Ref) {
    const ref = v.get('ref') as Ref;
    if (ref.isUserDocument) return documentTarget(ctx, ref, v);
  }
  if (v instanceof Ref && v.isUserDocument) return documentTarget(ctx, v, v);
  if (v instanceof SetV) {
    const head = v.expr.size > 0 ? (v.expr.keys().next().value as string) : undefined;
    if (head === 'documents' && v.expr.size === 1) {
      const coll = v.expr.get('documents');
      if (coll instanceof Ref) {
        const t = await resolveRef(ctx, coll, []);
        if (t.kind === 'schema' && t.native === 'collections') {
          if (!t.entry) throw errors.invalidRef(`Ref refers to undefined collection '${t.name}'`, []);
          await checkSetRead(ctx, { kind: 'doc', db: t.db, coll: t.entry, id: 0n, scoped: t.scoped }, []);
          return { kind: 'documents', collection: coll, db: t.db, coll: Number(t.entry.id), share: `c${encodeValue(v, NO_TXN)}` };
        }
      }
    }
    if (head === 'match' && v.expr.get('match') instanceof Ref) {
      const { index, terms, def, prefix, arityOk, matches } = await openMatch(ctx, v, []);
      return { kind: 'match', share: `m${encodeValue(v, NO_TXN)}`, index, terms, db: def.db, id: def.id, prefix, arityOk, matches };
    }
  }
  throw notStreamable(v);
}

async function documentTarget(ctx: EvalContext, ref: Ref, given: Value): Promise<StreamTarget> {
  const t = await resolveRef(ctx, ref, []);
  const key = docKeyOf(t);
  if (t.kind !== 'doc' || !key) throw notStreamable(given);
  await checkAccess(ctx, 'read', t, []);
  return { kind: 'document', ref, key, share: `d${encodeValue(ref, NO_TXN)}` };
}

/** The string a hub indexes a target by (the same for the changes that concern it). */
export function docKeyString(k: DocKey): string {
  return `${k.db}.${k.coll}.${k.id}`;
}
export function collKeyString(db: bigint, coll: number): string {
  return `${db}.${coll}`;
}
export function indexKeyString(db: bigint, index: number): string {
  return `${db}.${index}`;
}

function startsWith(key: Uint8Array, prefix: Uint8Array): boolean {
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

/** Whether a version written to the target's document / collection produces an event. */
export function versionConcerns(target: StreamTarget, v: CommittedVersion): boolean {
  switch (target.kind) {
    case 'document':
      return v.key.id === target.key.id && v.key.coll === target.key.coll && v.key.db === target.key.db;
    case 'documents':
      return !v.rewrite && v.action !== 'update' && v.key.coll === target.coll && v.key.db === target.db;
    case 'match':
      return false;
  }
}

/** Whether an index entry change produces an event (a Match target with the same index and terms). */
export function entryConcerns(target: StreamTarget, e: CommittedIndexEntry): boolean {
  return target.kind === 'match' && target.arityOk && e.index === target.id && e.db === target.db && startsWith(e.key, target.prefix);
}

// ---- rendering ------------------------------------------------------------------------------

/** The changes of one commit that concern a stream. */
export interface Change {
  ts: bigint;
  versions: CommittedVersion[];
  entries: CommittedIndexEntry[];
}

/** One event line: `{"type":…,"txn":…,"event":…}` and CRLF, as Fauna wrote them. */
export function eventLine(type: string, txn: bigint, event: string): string {
  return `{"type":${jsonString(type)},"txn":${txn},"event":${event}}\r\n`;
}

export function errorLine(txn: bigint, code: string, description: string): string {
  return eventLine('error', txn, `{"code":${jsonString(code)},"description":${jsonString(description)}}`);
}

/** The event object as JSON text: the requested fields that apply, in canonical order. */
function pick(fields: readonly StreamField[], all: Partial<Record<StreamField, () => string>>): string {
  let out = '';
  for (const f of fields) {
    const make = all[f];
    if (make) out += `${out ? ',' : '{'}"${f}":${make()}`;
  }
  return out ? out + '}' : '{}';
}

/** A ref and its JSON text (encoded once per transaction). */
export interface RefText {
  ref: Ref;
  json: string;
}

/**
 * A document as Get renders it, `{ref, ts, …fields}`, written straight to JSON text (the text
 * encodeValue gives for the rendered object) without building the object first.
 */
export function docJson(r: RefText, ts: bigint, fields: Obj | null | undefined, txnTs: bigint): string {
  let out = `{"ref":${r.json},"ts":${ts}`;
  if (fields) {
    for (const [k, v] of fields) {
      // A field that needs escaping or shadows ref/ts: the general way.
      if (k.charCodeAt(0) === 64 /* @ */ || k === 'ref' || k === 'ts') {
        const doc: Obj = new Map<string, Value>([['ref', r.ref], ['ts', ts]]);
        for (const [k2, v2] of fields) doc.set(k2, v2);
        return encodeValue(doc, { txnTs });
      }
      out += `,${jsonString(k)}:${encodeValue(v, { txnTs })}`;
    }
  }
  return out + '}';
}

const EMPTY: Obj = new Map();

/** What a target resolves to in one transaction (null: it no longer exists, so no events). */
type Prepared =
  | { kind: 'document'; t: Target; ref: RefText; readableNow?: boolean }
  | { kind: 'documents'; collRef: Ref; visible: Visible | undefined }
  | { kind: 'match'; visible: Visible | undefined };

type Visible = (ctx: EvalContext, ref: Ref) => Promise<boolean>;

/**
 * Renders changes into event lines inside one read-only transaction, in the permissions of its
 * caller at that time (an event for a document the caller may not read is dropped). The snapshot
 * must include every change rendered. Streams of one secret share a renderer: a target is resolved
 * once, and a change is rendered once per target and fields, whatever the number of streams that
 * follow it. Calls must not overlap (evaluation in a context is sequential).
 */
export class Renderer {
  /** By target (its share string: hashed once, as the same string object comes back every time). */
  private readonly targets = new Map<string, { prep: Prepared | null; byFields: Map<string, Map<bigint, string>> }>();

  constructor(private readonly ctx: EvalContext) {}

  /**
   * `fieldsKey` is `fields` joined with commas. PERMISSION_LOST when the caller may no longer read
   * the document a document stream follows (issue 6: an error event, then the stream ends).
   */
  async render(target: StreamTarget, fields: readonly StreamField[], fieldsKey: string, changes: readonly Change[]): Promise<string | typeof PERMISSION_LOST> {
    let entry = this.targets.get(target.share);
    if (entry === undefined) {
      entry = { prep: await prepare(this.ctx, target), byFields: new Map() };
      this.targets.set(target.share, entry);
    }
    const prep = entry.prep;
    if (prep === null) return '';
    let rendered = entry.byFields.get(fieldsKey);
    if (rendered === undefined) entry.byFields.set(fieldsKey, (rendered = new Map()));
    let out = '';
    for (const change of changes) {
      let text = rendered.get(change.ts);
      if (text === undefined) {
        text = await renderChange(this.ctx, target, prep, fields, change);
        rendered.set(change.ts, text);
      }
      out += text;
    }
    if (prep.kind === 'document' && prep.readableNow === false) return PERMISSION_LOST;
    return out;
  }
}

/** What Renderer.render answers for a document stream whose document the caller may no longer read. */
export const PERMISSION_LOST: unique symbol = Symbol('permission lost');

/** A target that no longer resolves (collection or index deleted) produces no events. */
async function orNone<T>(work: Promise<T>): Promise<T | undefined> {
  try {
    return await work;
  } catch (e) {
    if (e instanceof QueryError) return undefined;
    throw e;
  }
}

async function prepare(ctx: EvalContext, target: StreamTarget): Promise<Prepared | null> {
  switch (target.kind) {
    case 'document': {
      const t = await orNone(resolveRef(ctx, target.ref, []));
      // The same document: a collection deleted and created again under the name is another one.
      if (t?.kind !== 'doc' || t.db !== target.key.db || Number(t.coll.id) !== target.key.coll) return null;
      const ref = refOf(t, dbRefOf(target.ref));
      return { kind: 'document', t, ref: { ref, json: encodeRef(ref) } };
    }
    case 'documents': {
      const t = await orNone(resolveRef(ctx, target.collection, []));
      if (!t || t.kind !== 'schema' || !t.entry || Number(t.entry.id) !== target.coll) return null;
      const collTarget: Target = { kind: 'doc', db: t.db, coll: t.entry, id: 0n, scoped: t.scoped };
      const visible = await orNone(checkSetRead(ctx, collTarget, []).then((f) => ({ f })));
      if (!visible) return null;
      return { kind: 'documents', collRef: Ref.collection(t.entry.name, dbRefOf(target.collection)), visible: visible.f };
    }
    case 'match': {
      const matched = await orNone(matchedIndex(ctx, target.index, [], target.terms));
      if (!matched || matched.def.id !== target.id || matched.def.db !== target.db) return null;
      return { kind: 'match', visible: matched.visible };
    }
  }
}

function renderChange(ctx: EvalContext, target: StreamTarget, prep: Prepared, fields: readonly StreamField[], change: Change): Promise<string> {
  if (target.kind === 'document' && prep.kind === 'document') return renderDocument(ctx, target, prep, fields, change);
  if (target.kind === 'documents' && prep.kind === 'documents') return renderDocuments(ctx, prep, fields, change);
  if (target.kind === 'match' && prep.kind === 'match') return renderMatch(ctx, target, prep, fields, change);
  throw new Error('stream target and its resolution disagree');
}

async function renderDocument(
  ctx: EvalContext,
  target: StreamTarget & { kind: 'document' },
  prep: Prepared & { kind: 'document' },
  fields: readonly StreamField[],
  change: Change,
): Promise<string> {
  const { t, ref } = prep;
  const key = target.key;
  const txnTs = change.ts;
  // The version before a change is read only when the event shows it (diff, prev), names it (a
  // create over a live document is an update, fql-v4.md §1.12) or depends on it (deletes).
  const wantPrev = fields.includes('diff') || fields.includes('prev');
  const wantAction = fields.includes('action');
  let out = '';
  for (const committed of change.versions) {
    const v = await namedVersion(ctx, committed);
    // A delete is judged on the document as it was just before it (a predicate that reads the
    // document would otherwise never grant it); everything else on the current state.
    const readable =
      v.action === 'delete' && !v.rewrite
        ? await readableBefore(ctx, v.ts, () => allowed(ctx, 'read', t))
        : (prep.readableNow ??= await allowed(ctx, 'read', t));
    if (!readable) continue;
    if (v.rewrite) {
      const event = pick(fields, {
        action: () => '"history_rewrite"',
        document: () => docJson(ref, v.ts, v.action === null ? undefined : v.data, txnTs),
      });
      out += eventLine('history_rewrite', txnTs, event);
      continue;
    }
    let prev: Version | null = null;
    if (wantPrev || v.action === 'delete' || (wantAction && v.action === 'create')) {
      prev = await ctx.txn.getVersion(key, v.ts - 1n);
      if (prev && prev.action === 'delete') prev = null;
    }
    // Created and deleted in one transaction: the document never was, nothing happened to it.
    if (v.action === 'delete' && !prev) continue;
    const action = v.action === 'create' && prev ? 'update' : v.action;
    const prevFields = prev?.data ?? undefined;
    const nextFields = v.action === 'delete' ? undefined : (v.data ?? EMPTY);
    const event = pick(fields, {
      action: () => `"${action}"`,
      // A delete shows the document as it was, at the time of the delete.
      document: () => docJson(ref, v.ts, v.action === 'delete' ? prevFields : v.data, txnTs),
      diff: () => docJson(ref, v.ts, diff(prevFields, nextFields), txnTs),
      prev: () => (prev ? docJson(ref, prev.ts as bigint, prev.data, txnTs) : 'null'),
    });
    out += eventLine('version', txnTs, event);
  }
  return out;
}

/** A version as this caller sees it: one another process committed has its refs named first. */
async function namedVersion(ctx: EvalContext, v: CommittedVersion): Promise<CommittedVersion> {
  if (!v.anonymous || !v.data) return v;
  return { ...v, data: await named(ctx.txn.names as RefNames, v.data, v.ts), anonymous: false };
}

/** Runs a permission check as of just before a change at `ts` (for deletes and removals). */
function readableBefore(ctx: EvalContext, ts: bigint, check: () => Promise<boolean>): Promise<boolean> {
  return ctx.within({ readAt: ts - 1n }, check).catch((e: unknown) => {
    if (e instanceof QueryError) return false;
    throw e;
  });
}

async function liveBefore(ctx: EvalContext, key: DocKey, ts: bigint): Promise<boolean> {
  const before = await ctx.txn.getVersion(key, ts - 1n);
  return before !== null && before.action !== 'delete';
}

function setEvent(fields: readonly StreamField[], action: 'add' | 'remove', refJson: string, ts: bigint, index: () => string): string {
  return pick(fields, {
    action: () => `"${action}"`,
    document: () => `{"ref":${refJson},"ts":${ts}}`,
    index,
  });
}

async function renderDocuments(
  ctx: EvalContext,
  prep: Prepared & { kind: 'documents' },
  fields: readonly StreamField[],
  change: Change,
): Promise<string> {
  const { collRef, visible } = prep;
  const index = () => `{"ref":${encodeRef(collRef)},"terms":[],"values":[]}`;
  let out = '';
  // Adds before removes, as Events() orders the changes of one transaction.
  for (const pass of ['create', 'delete'] as const) {
    for (const v of change.versions) {
      if (v.action !== pass) continue;
      // Only membership changes: not a create over a live document (Delete then Create in one
      // transaction), nor the delete of one created in the same transaction.
      if ((await liveBefore(ctx, v.key, change.ts)) === (pass === 'create')) continue;
      const ref = new Ref(String(v.key.id), collRef);
      if (visible && !(await (pass === 'delete' ? readableBefore(ctx, change.ts, () => visible(ctx, ref)) : visible(ctx, ref)))) continue;
      const event = setEvent(fields, pass === 'create' ? 'add' : 'remove', encodeRef(ref), change.ts, index);
      out += eventLine('set', change.ts, event);
    }
  }
  return out;
}

async function renderMatch(
  ctx: EvalContext,
  target: StreamTarget & { kind: 'match' },
  prep: Prepared & { kind: 'match' },
  fields: readonly StreamField[],
  change: Change,
): Promise<string> {
  const { visible } = prep;
  let out = '';
  for (const pass of ['add', 'remove'] as const) {
    for (const e of change.entries) {
      if (e.action !== pass) continue;
      const named = namedPayload(ctx.txn, e.payload, ctx.snapshotTs);
      const { terms, values, ref } = named instanceof Promise ? await named : named;
      if (!target.matches(terms)) continue;
      if (visible && !(await (pass === 'remove' ? readableBefore(ctx, change.ts, () => visible(ctx, ref)) : visible(ctx, ref)))) continue;
      const txnTs = { txnTs: change.ts };
      const index = () => `{"ref":${encodeRef(target.index)},"terms":${encodeValue(terms, txnTs)},"values":${encodeValue(values, txnTs)}}`;
      const event = setEvent(fields, pass, encodeValue(ref, txnTs), change.ts, index);
      out += eventLine('set', change.ts, event);
    }
  }
  return out;
}
