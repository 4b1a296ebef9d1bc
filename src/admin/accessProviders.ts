// The selected database's access providers (identity providers whose JWTs authenticate into it):
// a table of them with the audience each one's tokens must carry, a form that creates one (name,
// issuer, JWKS URI, the database's roles it grants with optional predicates), and deleting one
// after a confirmation saying whose tokens stop working.

import type { JsonValue } from '../wire/expr';
import { renderValue } from '../fqljs/render';
import type { FloraClient } from './client';
import { h, replace } from './dom';
import { focusFirstMistake } from './fqlField';
import type { Panel } from './panel';
import { attempt, show } from './messages';
import { predicateList } from './predicateList';
import { offerRoles } from './rolePicker';
import { createAccessProvider, deleteAccessProvider, globalIdOf, listAccessProviders } from './securityQueries';
import { field, pageItems, partialListNote } from './values';

const AUDIENCE_PREFIX = 'https://db.fauna.com/db/';

/** A mistake in the issuer or the JWKS URI, said before anything is sent (the server's rule: https, or http on this machine). */
export function providerFieldsMistake(issuer: string, jwksUri: string): string | undefined {
  if (issuer.trim() === '') return 'The issuer is required: the `iss` claim of the provider\u2019s tokens, e.g. https://example.eu.auth0.com/';
  let url: URL;
  try {
    url = new URL(jwksUri);
  } catch {
    return `The JWKS URI is not a URL: "${jwksUri}". It is where the provider publishes its signing keys, e.g. https://example.eu.auth0.com/.well-known/jwks.json`;
  }
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) return `The JWKS URI must use https (plain http only on this machine): "${jwksUri}".`;
  return undefined;
}

/** An answer's `roles` of a provider in words: `customer`, `staff (with a predicate)`; a deleted role shows as such. */
function rolesText(roles: JsonValue | undefined): string {
  const list = Array.isArray(roles) ? roles : roles === undefined || roles === null ? [] : [roles];
  return list
    .map((r) => {
      const ref = r instanceof Map && r.has('predicate') ? r.get('role') : r;
      const name = ref === undefined || ref === null ? '(deleted role)' : renderValue(ref, { width: 1e9 });
      return ref === r ? name : `${name} (with a predicate)`;
    })
    .join(', ');
}

export function accessProvidersPanel(): Panel {
  const table = h('table', { id: 'access-providers' });
  const box = h('div', { class: 'messages' });
  const rolesHint = h('p', { class: 'hint' });
  const audience = h('p', { id: 'provider-audience', class: 'hint' });
  const name = h('input', { id: 'new-provider-name', placeholder: 'e.g. auth0', required: true });
  const issuer = h('input', { id: 'new-provider-issuer', placeholder: 'e.g. https://example.eu.auth0.com/' });
  const jwks = h('input', { id: 'new-provider-jwks', placeholder: 'e.g. https://example.eu.auth0.com/.well-known/jwks.json' });
  const roles = predicateList({
    id: 'provider-roles',
    choiceLabel: 'role',
    addLabel: 'Add role',
    empty: 'No roles: its tokens authenticate but may do nothing a client key could not.',
    example: 'Query(Lambda("payload", Equals(Select("email_verified", Var("payload")), true)))',
    noChoices: 'The database has no roles yet: create them in the Roles tab to grant them here.',
  });
  const form = h(
    'form',
    { id: 'create-provider', class: 'stacked' },
    h('h3', {}, 'New access provider'),
    h('label', { for: 'new-provider-name' }, 'Name'),
    name,
    h('label', { for: 'new-provider-issuer' }, 'Issuer (the iss claim of its tokens)'),
    issuer,
    h('label', { for: 'new-provider-jwks' }, 'JWKS URI (its signing keys)'),
    jwks,
    h('h4', {}, 'Roles its tokens get'),
    h('p', { class: 'hint' }, 'Each with an optional predicate that receives the token\u2019s payload and must return true.'),
    roles.element,
    rolesHint,
    audience,
    h('button', { type: 'submit' }, 'Create access provider'),
  );
  let client: FloraClient | undefined;

  const reload = async () => {
    const c = client!;
    const page = await attempt(box, 'list access providers', () => c.query(listAccessProviders()));
    if (!page) return replace(table);
    const docs = pageItems(page.value);
    const text = (doc: JsonValue, key: string) => String(field(doc, key) ?? '');
    replace(
      table,
      h('thead', {}, h('tr', {}, ...['name', 'issuer', 'jwks_uri', 'audience', 'roles', ''].map((t) => h('th', {}, t)))),
      h('tbody', {}, ...docs.map((doc) => {
        const providerName = text(doc, 'name');
        const remove = h('button', { type: 'button', class: 'delete', onclick: () => void removeOne(doc) }, 'Delete');
        return h('tr', { 'data-name': providerName }, ...['name', 'issuer', 'jwks_uri', 'audience'].map((k) => h('td', { class: k }, text(doc, k))), h('td', {}, rolesText(field(doc, 'roles'))), h('td', {}, remove));
      })),
    );
    if (docs.length === 0) table.append(h('caption', {}, 'No access providers yet.'));
    const partial = partialListNote(page.value, 'access providers');
    if (partial) table.append(h('caption', { class: 'partial' }, partial));
    const known = docs.map((d) => field(d, 'audience')).find((a) => typeof a === 'string');
    if (known) tellAudience(String(known)); // the same for every provider of the database
  };

  const removeOne = async (doc: JsonValue) => {
    const providerName = String(field(doc, 'name'));
    const granted = rolesText(field(doc, 'roles'));
    const lost = `Tokens issued by ${String(field(doc, 'issuer'))} are refused from then on${granted ? ` and lose the roles ${granted}` : ''}.`;
    if (!window.confirm(`Delete access provider ${providerName}? ${lost} It cannot be undone.`)) return;
    const done = await attempt(box, `delete access provider ${providerName}`, () => client!.query(deleteAccessProvider(providerName)));
    if (done) {
      await reload();
      show(box, `Deleted access provider ${providerName}.`, 'notice');
    }
  };

  const tellAudience = (aud: string) => (audience.textContent = `Its tokens must carry the audience (aud) ${aud}: configure the identity provider with it.`);
  /**
   * The audience this database's providers get, before one exists: the database's global id, read
   * in its parent when the key may (a key's own database cannot read itself); else the table shows
   * it once a provider exists.
   */
  const showAudience = async (c: FloraClient) => {
    audience.textContent = 'Its tokens must carry the audience (aud) shown in the table once the provider exists.';
    if (c.path.length === 0) return;
    try {
      const { value } = await c.in(c.path.slice(0, -1)).query(globalIdOf(c.path[c.path.length - 1]));
      tellAudience(`${AUDIENCE_PREFIX}${String(value)}`);
    } catch {
      // The key may not read its parent: the fallback above stands.
    }
  };

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const mistake = providerFieldsMistake(issuer.value, jwks.value);
    const granted = roles.read();
    if (mistake) return show(box, mistake);
    if (!granted) {
      show(box, 'A predicate has a mistake (shown under it); nothing was sent.');
      return void focusFirstMistake(form);
    }
    const providerName = name.value;
    void attempt(box, `create access provider ${providerName}`, async () => {
      const { value } = await client!.query(createAccessProvider(providerName, issuer.value, jwks.value, granted.map((r) => ({ role: r.choice, predicate: r.predicate }))));
      for (const input of [name, issuer, jwks]) input.value = '';
      roles.set([]);
      await reload();
      show(box, `Created access provider ${providerName}. Configure the identity provider to issue tokens with the audience ${String(field(value, 'audience'))}.`, 'notice');
    });
  });

  const open = (c: FloraClient) => {
    client = c;
    show(box, null);
    roles.set([]);
    void offerRoles(c, [], rolesHint).then((found) => roles.setChoices(found.map((r) => String(field(r, 'name')))));
    void showAudience(c);
    void reload();
  };
  const element = h('section', { id: 'access-providers-panel', class: 'panel' }, h('h2', {}, 'Access providers'), table, box, form);
  return { id: 'access-providers', label: 'Access providers', element, open };
}
