// The Schema tab's calls of the schema API (src/server/schemaApi.ts, as fauna-shell 4 makes them):
// the database's FSL files with their text, a summary diff of files against the database, and an
// active push of files at the version they were read at. Failures are `{"error": {"message"}}`; a
// refused file's message is the core's, with the file name and carets.

import { parseJson } from '../wire/json';
import type { JsonValue } from '../wire/expr';
import { FloraError, type FloraClient } from './client';

export interface FslFile {
  name: string;
  text: string;
}

export interface SchemaFiles {
  /** The schema version the files were read at (µs, exact). */
  version: string;
  files: FslFile[];
}

/** The answer's JSON object, or a FloraError with the API's message (its `summary` too when it spans lines). */
async function answer(res: Response): Promise<Map<string, JsonValue>> {
  const text = await res.text();
  let body: JsonValue = null;
  try {
    body = parseJson(text);
  } catch {
    // Not JSON: the status says it.
  }
  const error = body instanceof Map ? body.get('error') : undefined;
  if (!res.ok || !(body instanceof Map)) {
    const message = error instanceof Map ? String(error.get('message') ?? '') : `HTTP ${res.status}`;
    throw new FloraError(res.status, '', message, message.includes('\n') ? message : '');
  }
  return body;
}

function files(list: readonly FslFile[]): FormData {
  const form = new FormData();
  // As file parts: a string part's line breaks would be sent as CRLF, and the file kept so.
  for (const f of list) form.append(f.name, new Blob([f.text], { type: 'text/plain' }), f.name);
  return form;
}

export async function readSchemaFiles(client: FloraClient): Promise<SchemaFiles> {
  const listed = await answer(await client.fetch('/schema/1/files', { method: 'GET' }));
  const entries = listed.get('files');
  const names = (Array.isArray(entries) ? entries : []).map((e) => (e instanceof Map ? String(e.get('filename')) : ''));
  const read = await Promise.all(
    names.map(async (name) => {
      const body = await answer(await client.fetch(`/schema/1/files/${encodeURIComponent(name)}`, { method: 'GET' }));
      return { name, text: String(body.get('content') ?? '') };
    }),
  );
  return { version: String(listed.get('version')), files: read };
}

/** What pushing `list` would change, one line per item (the `summary` format); '' when nothing. */
export async function validateSchema(client: FloraClient, list: readonly FslFile[]): Promise<string> {
  const body = await answer(await client.fetch('/schema/1/validate?format=summary', { method: 'POST', body: files(list) }));
  return String(body.get('diff') ?? '');
}

/** Applies `list` as the whole schema at once, refused (409) if the schema changed since `version`. */
export async function pushSchema(client: FloraClient, list: readonly FslFile[], version: string): Promise<void> {
  await answer(await client.fetch(`/schema/1/update?version=${encodeURIComponent(version)}`, { method: 'POST', body: files(list) }));
}
