// What the readers of Fauna exports hand to `flora import`: a stream of items, one per document
// read, or a problem (a line that could not be taken, with where and why), or a note (something the
// report should say about the whole source). A reader never drops a line silently and never hands
// over half a document: a line is either one whole item or one problem.

import type { Obj, Time } from '../../values/types';
import type { JsonValue } from '../../wire/expr';

/** Where an item came from: the file, the 1-based line it starts on, and for JSON-array files its 1-based element. */
export interface Origin {
  readonly file: string;
  readonly line: number;
  readonly element?: number;
}

/** A document of a user collection. `data` holds the user's fields (v4's `data`), refs as Ref.doc(coll, id) without a database. */
export interface SourceDocument {
  readonly collection: string;
  /** A string of digits that fits a 64-bit id (model/ids.ts). */
  readonly id: string;
  readonly ts?: Time;
  readonly ttl?: Time;
  readonly data: Obj;
  readonly origin: Origin;
  /** The child database it belongs to, below the imported one (flora exports); empty or absent: the imported database. */
  readonly database?: DatabasePath;
}

/** A credential: the document it logs in and its BCrypt hash (v10 exports it as `hashed_password`). */
export interface SourceCredential {
  readonly id: string;
  readonly instance: { readonly collection: string; readonly id: string };
  readonly hashedPassword: string;
  readonly ts?: Time;
  readonly origin: Origin;
  /** As SourceDocument.database. */
  readonly database?: DatabasePath;
}

/** Names of databases below the imported database, outermost first: [] is the imported database itself. */
export type DatabasePath = readonly string[];

/** The native collections of a database's schema, in the order they can be created in. */
export type SchemaNative = 'collections' | 'indexes' | 'functions' | 'roles' | 'access_providers';

/**
 * What only a flora export holds (src/transfer/floraFormat.ts, docs/export-format.md). Documents
 * are the v4 wire JSON as Get returned them (parsed with parseJson: longs are bigints, refs and
 * times still in their @ref / @ts forms), to be created as they are.
 *  - database: a child database to create (`path` ends with its name), before anything in it;
 *  - schema: a schema document of `database`, before its documents, in creatable order
 *    (collections, indexes, functions, roles, access providers);
 *  - key, token: with --keys, as Get returned them (with `hashed_secret`);
 *  - version: with --history, one version of a document within retention, after the documents:
 *    its whole `data` as of `ts` (null for a delete, or where it no longer reads: a passed ttl).
 */
export type FloraItem =
  | { readonly kind: 'database'; readonly path: DatabasePath; readonly document: JsonValue }
  | { readonly kind: 'schema'; readonly database: DatabasePath; readonly native: SchemaNative; readonly document: JsonValue }
  | { readonly kind: 'key' | 'token'; readonly database: DatabasePath; readonly document: JsonValue }
  | {
      readonly kind: 'version';
      readonly database: DatabasePath;
      readonly collection: string;
      readonly id: string;
      readonly ts: Time;
      readonly action: 'create' | 'update' | 'delete';
      readonly data: Obj | null;
    };

export type SourceItem =
  | { readonly kind: 'document'; readonly doc: SourceDocument }
  | { readonly kind: 'credential'; readonly cred: SourceCredential }
  | { readonly kind: 'problem'; readonly file: string; readonly line: number; readonly element?: number; readonly reason: string }
  | { readonly kind: 'note'; readonly text: string }
  | FloraItem;

export type SourceFormat = 'fauna-snapshot' | 'driver-dump' | 'flora-export';

export interface SourceFile {
  readonly path: string;
  readonly bytes: number;
}

export interface SourceDescription {
  readonly format: SourceFormat;
  /** `simple` or `tagged` for a snapshot export. */
  readonly encoding?: 'simple' | 'tagged';
  /** A snapshot's collections as its manifest names them (`Credential` included when exported); a dump's as found while reading (empty before). */
  readonly collections: readonly string[];
  readonly snapshotTs?: Time;
  readonly files: readonly SourceFile[];
}

export interface ReadOptions {
  /** Files (paths as in describe().files) not to read again, e.g. those a resumed import finished. */
  readonly skipFiles?: ReadonlySet<string>;
  /** Told the bytes of each data file read from disk as they are read (compressed, as describe() sizes them): progress. */
  readonly onBytes?: (bytes: number) => void;
}

export interface Source {
  describe(): SourceDescription;
  items(opts?: ReadOptions): AsyncIterable<SourceItem>;
}

/** A path that holds no readable export, or one whose manifest Flora cannot follow: the message says why. */
export class SourceError extends Error {}
