// The Schema tab: the selected database's FSL files (as `fauna schema pull` writes them), each
// one's text coloured, and a push as fauna-shell makes it: a file edited (or a new one typed or
// uploaded), validated to show what it changes (the summary diff), then pushed at once with every
// other file as it is, at the version read (a schema changed meanwhile is refused, not overwritten).
// A refused file shows the core's message, its file name and carets, as the query editor shows errors.

import type { FloraClient } from './client';
import { FloraError } from './client';
import { h, replace } from './dom';
import { fslEditor, fslPre } from './fslViews';
import { describeError, show } from './messages';
import type { Panel } from './panel';
import { pushSchema, readSchemaFiles, validateSchema, type FslFile, type SchemaFiles } from './schemaQueries';
import { pathLabel } from './values';

export function schemaPanel(): Panel {
  const scope = h('span', { id: 'schema-scope' });
  const list = h('ul', { id: 'schema-files', class: 'list' });
  const view = h('div', { id: 'schema-file-view' });
  const box = h('div', { class: 'messages' });
  const name = h('input', { id: 'schema-file-name', placeholder: 'name.fsl', required: true });
  const editor = fslEditor('schema-text', 'FSL');
  const upload = h('input', { type: 'file', id: 'schema-upload', accept: '.fsl' });
  const validate = h('button', { type: 'button', id: 'validate-schema' }, 'Validate');
  const push = h('button', { type: 'submit', id: 'push-schema', disabled: true }, 'Push');
  const cancel = h('button', { type: 'button', id: 'cancel-schema-edit' }, 'Cancel');
  const diff = h('pre', { id: 'schema-diff' });
  /** Under the editor's buttons, as the query editor shows its errors: what validating or pushing refused. */
  const editBox = h('div', { class: 'messages' });
  const form = h(
    'form',
    { id: 'schema-edit', class: 'stacked', hidden: true },
    h('label', { for: 'schema-file-name' }, 'File name'),
    name,
    editor.element,
    h('label', { class: 'file' }, 'Or load a file: ', upload),
    h('div', { class: 'actions' }, validate, push, cancel),
    editBox,
    diff,
  );
  let client: FloraClient | undefined;
  let schema: SchemaFiles = { version: '0', files: [] };
  /** The file the editor replaces ('' for a new one). */
  let editing = '';
  let shown = '';

  /** The files a push sends: every file as read, the edited one as it now reads. */
  const filesToSend = (): FslFile[] => [...schema.files.filter((f) => f.name !== editing), { name: name.value, text: editor.input.value }];
  /** A new file may not take an existing file's name (it would be pushed twice). */
  const clash = () => {
    const taken = editing === '' && schema.files.some((f) => f.name === name.value);
    if (taken) show(editBox, `There is a file named ${name.value} already: edit it, or choose another name.`);
    return taken;
  };
  /** The edit changed since its last validation: it must be validated again before a push. */
  const edited = () => {
    push.disabled = true;
    replace(diff);
  };
  /** A refusal: the core's message as it is when it points into a file, else one line. */
  const failed = (into: HTMLElement, err: unknown, action: string) => {
    if (err instanceof FloraError && err.summary) replace(into, h('pre', { class: 'error summary', role: 'alert' }, err.summary));
    else if (err instanceof FloraError && err.status === 409) show(into, `${describeError(err, action)}. The schema changed since this tab read it: copy your text, reopen the tab and edit again.`);
    else show(into, describeError(err, action));
  };

  const showFile = (file: string) => {
    shown = file;
    for (const b of list.querySelectorAll('button.schema-file')) b.classList.toggle('selected', b.textContent === file);
    const f = schema.files.find((x) => x.name === file);
    if (!f) return replace(view);
    const edit = h('button', { type: 'button', id: 'edit-schema-file', onclick: () => startEdit(f) }, 'Edit');
    replace(view, h('div', { class: 'file-head' }, h('h3', {}, f.name), edit), fslPre(f.text, 'schema-file'));
  };
  const startEdit = (f: FslFile | null) => {
    editing = f?.name ?? '';
    name.value = editing;
    name.readOnly = f !== null;
    editor.set(f?.text ?? '');
    upload.value = '';
    form.hidden = false;
    show(box, null);
    show(editBox, null);
    edited();
    editor.input.focus();
  };
  const closeEdit = () => {
    form.hidden = true;
    edited();
  };
  const load = async (c: FloraClient, select: string) => {
    let read: SchemaFiles;
    try {
      read = await readSchemaFiles(c);
    } catch (err) {
      if (c === client) failed(box, err, 'read the schema files');
      return;
    }
    if (c !== client) return; // another database chosen meanwhile
    schema = read;
    const newFile = h('button', { type: 'button', id: 'new-schema-file', onclick: () => startEdit(null) }, 'New file');
    replace(list, ...schema.files.map((f) => h('li', {}, h('button', { type: 'button', class: 'schema-file', onclick: () => showFile(f.name) }, f.name))), h('li', {}, newFile));
    if (schema.files.length === 0) list.prepend(h('li', { class: 'empty' }, 'No schema files: the database has no collections, functions, roles or access providers.'));
    showFile(schema.files.some((f) => f.name === select) ? select : (schema.files[0]?.name ?? ''));
  };

  editor.input.addEventListener('input', edited);
  name.addEventListener('input', edited);
  upload.addEventListener('change', () => {
    const file = upload.files?.[0];
    if (!file) return;
    void file.text().then((text) => {
      if (!name.readOnly) name.value = file.name;
      editor.set(text);
      edited();
    });
  });
  cancel.addEventListener('click', closeEdit);
  validate.addEventListener('click', () => {
    const c = client!;
    show(editBox, null);
    edited();
    if (clash()) return;
    void validateSchema(c, filesToSend()).then(
      (summary) => {
        replace(diff, summary || 'No changes: the schema is already what these files say.');
        push.disabled = false;
      },
      (err) => failed(editBox, err, 'validate the schema'),
    );
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const c = client!;
    const file = name.value;
    show(editBox, null);
    if (clash()) return;
    void pushSchema(c, filesToSend(), schema.version).then(
      async () => {
        closeEdit();
        await load(c, file);
        show(box, `Pushed ${file}.`, 'notice');
      },
      (err) => failed(editBox, err, 'push the schema'),
    );
  });

  const element = h(
    'section',
    { id: 'schema-panel', class: 'panel' },
    h('h2', {}, 'Schema (FSL) ', scope),
    h('p', { class: 'hint' }, 'The files are the whole schema: a push creates, changes and deletes items to match them (an item no file names is deleted).'),
    list,
    box,
    view,
    form,
  );
  return {
    id: 'schema',
    label: 'Schema',
    element,
    open(c) {
      const keep = client !== undefined && client.path.join('/') === c.path.join('/') ? shown : '';
      client = c;
      scope.textContent = `in ${pathLabel(c.path)}`;
      show(box, null);
      closeEdit();
      replace(list);
      replace(view);
      void load(c, keep);
    },
  };
}
