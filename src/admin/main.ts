/// <reference lib="dom" />
// The dashboard's entry point: the sign-in screen until a secret is accepted, then databases on the
// left, and the selected database's screens (collections and documents, keys, the query editor, GraphQL…)
// as tabs on the right.

import { accessProvidersPanel } from './accessProviders';
import { FloraClient } from './client';
import { databasesPanel } from './databases';
import { documentsPanel } from './documents';
import { h, replace } from './dom';
import { functionsPanel } from './functions';
import { graphqlPanel } from './graphql';
import { indexesPanel } from './indexes';
import { jobsPanel } from './jobs';
import { keysPanel } from './keys';
import { queryEditor } from './queryEditor';
import { queryLogPanel } from './queryLog';
import { rolesPanel } from './roles';
import { schemaPanel } from './schema';
import { forgetSecret, storeSecret, storedSecret } from './session';
import { signInScreen } from './signIn';
import { tabs } from './tabs';

function workspace(client: FloraClient): HTMLElement {
  const screens = tabs([
    documentsPanel(), schemaPanel(), indexesPanel(), functionsPanel(), rolesPanel(), keysPanel(), accessProvidersPanel(),
    queryEditor(), graphqlPanel(), queryLogPanel(), jobsPanel(),
  ]);
  const selected = (path: string[]) => screens.use(client.in(path));
  // A reload, not a redraw: nothing of the session (the secret in closures, polls, GraphiQL) outlives it.
  const signOut = h('button', { type: 'button', id: 'sign-out', onclick: () => { forgetSecret(); location.reload(); } }, 'Sign out');
  return h(
    'div',
    { id: 'workspace' },
    h('header', {}, h('strong', {}, 'Flora'), signOut),
    h('div', { class: 'columns' }, databasesPanel(client, selected), h('div', { class: 'main' }, screens.element)),
  );
}

function showSignIn(root: HTMLElement): void {
  replace(root, signInScreen((client) => {
    storeSecret(client.secret);
    replace(root, workspace(client));
  }));
}

const root = document.getElementById('app')!;
const secret = storedSecret();
if (secret === null) showSignIn(root);
else replace(root, workspace(new FloraClient(secret)));
// What bench/dashboard.ts times: navigation start to the first screen in the document.
performance.mark('flora-first-screen');
