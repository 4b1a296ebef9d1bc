// docs/access-control.md, generated from the data of torture/accessMatrix.ts (npm test checks that the
// file in the repo is what this prints):
//
//   node dist/torture/accessDoc.js > docs/access-control.md

import { COLUMNS, GROUPS, SUBJECTS, expected } from './accessMatrix';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/</g, '&lt;');

function groupTable(group: string): string[] {
  const cols = COLUMNS.filter((c) => c.group === group);
  const live = SUBJECTS.filter((s) => !s.dead);
  const dead = SUBJECTS.filter((s) => s.dead);
  const lines = [`| secret | ${cols.map((c) => cell(c.label)).join(' | ')} |`, `|---|${cols.map(() => '---').join('|')}|`];
  for (const s of live) lines.push(`| ${cell(s.label)} | ${cols.map((c) => cell(expected(s.id, c.id))).join(' | ')} |`);
  lines.push(`| ${dead.map((s) => cell(s.label)).join(', ')} | ${cols.map((c) => expected(dead[0].id, c.id)).join(' | ')} |`);
  return lines;
}

export function renderAccessDoc(): string {
  const out: string[] = [
    '# Access control matrix',
    '',
    '<!-- Generated from torture/accessMatrix.ts by `node dist/torture/accessDoc.js > docs/access-control.md`; npm test checks it. -->',
    '',
    'What every kind of secret gets from every kind of operation. `npm run torture -- --part access` (and its',
    'short form in `npm test`, test/torture/access.test.ts) checks every cell against a real server: FQL cells',
    'through the official driver over HTTP/2 and as raw HTTP/1.1 with Basic auth, the other endpoints as raw HTTP.',
    'A cell that answers with more access than the table says counts as *beyond the table*, one with less as',
    '*denied against the table*; both must be 0.',
    '',
    'The top database and database `child` hold the same world: collections `things`, `members` and `loners`;',
    'index `things_all` and the public unique index `members_by_email`; functions `plain_fn`, `server_fn` (role',
    '`server`) and `public_fn` (`permissions: {call: "public"}`); the GraphQL schema `Gnote`/`allGnotes`; users',
    'M (member, active), I (member, inactive) and L (loner), each with a password; documents `mine` (owner M),',
    '`theirs` (owner L) and `historic` (owner M); a server key. Role `member` has membership `members` with the',
    'predicate `data.active`, and grants on `things` read, history_read, write, delete and create when the',
    'document’s owner is `CurrentIdentity()`; read on `things_all`, `Gnote`, `allGnotes`; call on `plain_fn`',
    'and `server_fn`; read of one’s own `members` document. Database `sibling` holds one document; `child`',
    'holds database `grandchild`. Each operation acts in the database its secret authenticates into.',
    '',
    'Outcomes: `ok` success; `true`/`false` a boolean answer; pages: `all` (`mine` and `theirs`), `own`',
    '(`mine` only), `none` (neither); `401` not authenticated, in each API’s own words (FQL `unauthorized`;',
    'GraphQL `Invalid database secret.` with HTTP 200, or 401 without a header; `/import`, streams and the',
    'log-export API 401); `403` permission denied (for GraphQL an error with code `permission denied`);',
    '`404` not found; `400 <code>` that query error.',
    '',
    '## Kinds of secret',
    '',
    '| secret | what it is |',
    '|---|---|',
    ...SUBJECTS.map((s) => `| ${cell(s.label)} | ${cell(s.note ?? '')} |`),
  ];
  for (const group of GROUPS) out.push('', `## ${group[0].toUpperCase()}${group.slice(1)}`, '', ...groupTable(group));
  out.push('', '## Why', '');
  for (const c of COLUMNS) if (c.note) out.push(`- **${cell(c.label)}**: ${c.note}.`);
  out.push(
    '',
    '## Secrets do not leak',
    '',
    'After the matrix, the part checks that no key or token secret, the root secret, the password, a',
    '`hashed_password` or a `hashed_secret` appears in the query log files, in a log-export download, in the',
    'server’s output, or in any answer of the matrix — but for a secret the request’s body carried (never the',
    'secret of its Authorization header), a',
    '`hashed_secret` in a read or creation of a key or token, and a `hashed_password` in a token’s read of its',
    'own credentials. Get of a key shows `ref, ts, role, database?, priority?, data?, ttl?, hashed_secret`,',
    'never `secret`; of a token `ref, ts, instance, data?, ttl?, hashed_secret`; of credentials',
    '`ref, ts, instance, hashed_password`, never `password`; of an identity document no `credentials`;',
    '`Login` shows the new `secret` once and no hash; `CreateKey` the new `secret` once (fql-v4.md §4.3).',
    '',
    '## Revocation is immediate, in every process',
    '',
    'On a tier of two processes sharing one store, a secret that has just worked (and so sits in each',
    'process’s cache) is refused by every request that begins after the revocation was acknowledged',
    '(with or without `X-Last-Seen-Txn`; reads are strictly serializable, storage.md): a deleted key, a key',
    'whose `ttl` is moved into the past, a key of a deleted database, a token after `Logout(false)`, after',
    '`Logout(true)` from another token of its identity, deleted by an admin, or whose identity is deleted,',
    'and an `@doc` secret whose document is deleted; a token whose membership predicate turns false loses',
    'its role’s privileges at once (torture/accessRevocation.ts). Only under the opt-in',
    '`--max-staleness-ms` may a read-only request that does not name that time be answered from a snapshot',
    'taken just before the revocation.',
    '',
  );
  return out.join('\n');
}

if (require.main === module) process.stdout.write(renderAccessDoc());
