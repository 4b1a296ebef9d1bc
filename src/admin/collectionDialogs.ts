// Creating a collection and editing one (its name, history_days, ttl_days, data and permissions)
// in a dialog, and deleting one after a confirmation.

import type { JsonValue } from '../wire/expr';
import type { FloraClient } from './client';
import { collectionForm, collectionParams, DEFAULT_HISTORY_DAYS } from './collectionSettings';
import { labelled, openDialog } from './dialog';
import { h } from './dom';
import { fqlField } from './fqlField';
import { attempt } from './messages';
import { createCollection, deleteCollection, updateCollection } from './queries';

/** After a write: the collection's name (new or renamed; '' when deleted) and the line to show. */
export type CollectionWritten = (name: string, notice: string) => void;

/** The objects a permissions field may hold: an object literal (or null for none). */
function permissionsObject(wire: JsonValue): JsonValue {
  if (wire instanceof Map && wire.has('object')) return wire;
  throw new Error('Permissions must be an object, e.g. {read: Role("reader"), create: Query(Lambda("doc", true))}.');
}

/**
 * The dialog that creates a collection in `client`'s database, or, given `existing` (the
 * collection as Get answers it), edits that one.
 */
export function collectionDialog(host: HTMLElement, client: FloraClient, existing: JsonValue | null, written: CollectionWritten): void {
  const was = existing === null ? null : collectionForm(existing);
  const input = (id: string, value: string, placeholder: string, extra: Record<string, string> = {}) => {
    const el = h('input', { id, placeholder, autocomplete: 'off', ...extra });
    el.value = value;
    return el;
  };
  const name = input('collection-name', was?.name ?? '', 'e.g. orders');
  const historyDays = input('collection-history-days', was ? was.historyDays : DEFAULT_HISTORY_DAYS, 'empty: forever', { inputmode: 'numeric' });
  const ttlDays = input('collection-ttl-days', was?.ttlDays ?? '', 'empty: never', { inputmode: 'numeric' });
  const data = h('textarea', { id: 'collection-data', rows: '3', spellcheck: 'false', placeholder: '{"owner": "sales"}' });
  data.value = was?.data ?? '';
  const permissions = fqlField({
    id: 'collection-permissions',
    label: 'Permissions (optional, FQL)',
    placeholder: '{read: Role("reader")}',
    rows: 2,
    optional: true,
    check: permissionsObject,
  });
  permissions.text = was?.permissions ?? '';
  const where = client.path.length ? client.path.join('/') : '(root)';
  openDialog({
    id: was ? 'edit-collection' : 'create-collection',
    title: was ? `Edit collection ${was.name}` : `New collection in ${where}`,
    body: [
      labelled('collection-name', 'Name', name, was ? 'Renaming keeps its documents; queries must use the new name.' : 'Letters, digits and _.'),
      labelled('collection-history-days', 'history_days', historyDays, 'Days old versions of documents are kept (empty: forever).'),
      labelled('collection-ttl-days', 'ttl_days', ttlDays, 'Days after its last write a document is removed (empty: never).'),
      labelled('collection-data', 'Data (JSON, optional)', data),
      permissions.element,
    ],
    submit: was ? 'Save' : 'Create collection',
    run: async (box) => {
      const perms = permissions.read();
      if (perms === undefined) return false; // the field shows its mistake
      const done = await attempt(box, was ? `save collection ${was.name}` : 'create the collection', async () => {
        const params = collectionParams({ name: name.value, historyDays: historyDays.value, ttlDays: ttlDays.value, data: data.value, permissions: perms }, was !== null);
        await client.query(was ? updateCollection(was.name, params) : createCollection(params));
        return true;
      });
      if (!done) return false;
      const now = name.value.trim();
      written(now, was ? `Saved collection ${now}.` : `Created collection ${now}: add its first document with New document.`);
      return true;
    },
  }, host);
}

/** Deletes collection `name` once the user confirms; false when they did not or it failed (shown in `box`). */
export async function deleteCollectionConfirmed(box: HTMLElement, client: FloraClient, name: string, written: CollectionWritten): Promise<void> {
  if (!window.confirm(`Delete collection ${name} and every document in it? It cannot be undone.`)) return;
  const done = await attempt(box, `delete collection ${name}`, () => client.query(deleteCollection(name)));
  if (done) written('', `Deleted collection ${name}.`);
}
