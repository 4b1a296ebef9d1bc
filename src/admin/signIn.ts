// The sign-in screen: a secret, checked with a query before anything else is shown.

import { FloraClient } from './client';
import { h } from './dom';
import { describeError, show } from './messages';
import { fql } from './queries';

/** Calls `signedIn` with a client once the server accepts the secret. */
export function signInScreen(signedIn: (client: FloraClient) => void): HTMLElement {
  const secret = h('input', { type: 'password', id: 'secret', name: 'secret', autocomplete: 'off', required: true, placeholder: 'secret' });
  const box = h('div', { id: 'sign-in-message' });
  const form = h('form', { id: 'sign-in', class: 'card' }, h('h1', {}, 'Flora'), h('label', { for: 'secret' }, 'Secret'), secret, h('button', { type: 'submit' }, 'Sign in'), box);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    // The dashboard scopes the secret to each database it shows (`secret:a/b:admin`); a secret
    // scoped already cannot be scoped again (the shell refuses it the same way).
    if (secret.value.includes(':')) {
      show(box, "This secret is scoped already (it has a ':'): sign in with the key's own secret, then pick the database in the tree.");
      return;
    }
    const client = new FloraClient(secret.value);
    show(box, 'Checking…', 'notice');
    client.query(fql('Now()')).then(
      () => signedIn(client),
      (err) => show(box, describeError(err, 'sign in')),
    );
  });
  return form;
}
