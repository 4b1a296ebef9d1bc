// The access control matrix: for every kind of secret (rows) and every kind of operation (columns),
// the answer Flora must give. torture/access.ts checks every cell against a real server;
// docs/access-control.md is generated from this data (torture/accessDoc.ts), so the two cannot drift.
//
// Operations act in the database the secret authenticates into: each database holds the same small
// world (accessWorld.ts), so a child database's admin is checked as an admin there, and the columns
// of the "isolation" group check what it can reach of its parent and siblings.

/** What a cell expects. `401`: not authenticated (the API's own wording); `403`: permission denied;
 * `404`: not found; `400 <code>`: that query error; `ok`: success; `true`/`false`: a boolean answer;
 * pages: `all` (both the world's `mine` and `theirs` documents), `own` (only `mine`), `none` (neither). */
export type Outcome = string;

export interface Subject {
  id: string;
  label: string;
  /** Why its row reads as it does, where that is not obvious. */
  note?: string;
  /** Secrets that no longer (or never did) authenticate: every cell is 401. */
  dead?: boolean;
}

export const SUBJECTS: readonly Subject[] = [
  { id: 'root', label: 'root secret', note: 'the configured root key (`--root-secret`): admin of the top database' },
  { id: 'admin', label: 'admin key', note: 'reads its database and its descendants, writes its own (Permissions.scala AdminPermissions)' },
  { id: 'server', label: 'server key', note: 'everything but databases, keys, roles and access providers (Permissions.scala ServerPermissions)' },
  { id: 'readonly', label: 'server-readonly key', note: 'the reads of a server key (documents, history, indexes, schema); no writes, no calls' },
  { id: 'client', label: 'client key', note: 'only what `permissions: "public"` grants (DECISIONS #2)' },
  { id: 'rolekey', label: 'key with role `member`', note: 'exactly the role’s privileges; no identity, so predicates that use CurrentIdentity() deny (fql-v4.md §6.5: a predicate error denies)' },
  { id: 'token-none', label: 'token, identity in no role', note: 'baseline allowances, its own identity document (DECISIONS #15) and public grants' },
  { id: 'token-role', label: 'token, identity in role `member`', note: 'membership predicate true: the role’s predicates see CurrentIdentity()' },
  { id: 'token-inactive', label: 'token, membership predicate false', note: 'no role applies: behaves as a role-less token' },
  { id: 'child-admin', label: 'secret:child:admin', note: 'scoped secret: admin inside database `child` (fql-v4.md §6.2)' },
  { id: 'child-server', label: 'secret:child:server', note: 'scoped secret: server inside database `child`' },
  { id: 'doc', label: 'secret:@doc/members/<M>', note: 'acts as identity M with its membership roles, without a token’s allowances' },
  { id: 'role', label: 'secret:@role/member', note: 'the role’s privileges without an identity' },
  { id: 'child-key', label: 'admin key of database child', note: 'a key whose `database` is `child`: it lives in the parent’s keys and acts in the child' },
  { id: 'child-key-sibling', label: '<child key>:sibling:admin', dead: true, note: 'a scope path is relative to the key’s database: `sibling` is no child of `child` (fql-v4.md §6.2)' },
  { id: 'deleted-key', label: 'deleted key', dead: true, note: 'revoked at once (fql-v4.md §6.1)' },
  { id: 'expired-key', label: 'key whose ttl has passed', dead: true, note: 'a passed `ttl` refuses the secret (fql-v4.md §6.1)' },
  { id: 'logged-out', label: 'token after Logout', dead: true, note: 'Logout(false) deleted it' },
  { id: 'expired-token', label: 'token whose ttl has passed', dead: true, note: 'Login with a `ttl` in the past' },
  { id: 'malformed', label: 'malformed secret', dead: true, note: 'no key or token can have it' },
  { id: 'none', label: 'no secret', dead: true, note: 'no Authorization header' },
];

export type Transport = 'driver' | 'http';

export interface Operation {
  id: string;
  group: string;
  label: string;
  note?: string;
  /** How the cell is reached: FQL cells go through the faunadb driver (HTTP/2) and raw HTTP/1.1. */
  via: 'fql' | 'http';
  /** Runs once, after every other cell (it ends the secret). */
  last?: boolean;
}

const LIVE_IDS = SUBJECTS.filter((s) => !s.dead).map((s) => s.id);

/** A column: the cells of the live rows in SUBJECTS order (dead rows are all 401). */
type Column = Operation & { expect: Record<string, Outcome> };

function col(op: Operation, cells: Outcome[]): Column {
  if (cells.length !== LIVE_IDS.length) throw new Error(`${op.id}: ${cells.length} cells for ${LIVE_IDS.length} live subjects`);
  return { ...op, expect: Object.fromEntries(LIVE_IDS.map((id, i) => [id, cells[i]])) };
}

// Live rows, in order:
//        root  admin server readonly client rolekey token-none token-role token-inactive child-admin child-server doc role child-key
const ok = 'ok';
const no = '403';

/** Who may do what a `member` may do to `mine` (its owner is M). */
const MEMBER_OWN = [ok, ok, ok, ok, no, no, no, ok, no, ok, ok, ok, no, ok];
/** Writers of the world's documents whose predicates let M write `mine`. */
const WRITE_OWN = [ok, ok, ok, no, no, no, no, ok, no, ok, ok, ok, no, ok];
/** Readers and writers of a document nobody's predicates grant. */
const READ_ANY = [ok, ok, ok, ok, no, no, no, no, no, ok, ok, no, no, ok];
const WRITE_ANY = [ok, ok, ok, no, no, no, no, no, no, ok, ok, no, no, ok];
/** Admins only: databases, keys, roles (fql-v4.md §6.3: server keys cannot touch them). */
const ADMINS = [ok, ok, no, no, no, no, no, no, no, ok, no, no, no, ok];
/** Callers of `plain_fn` and `server_fn`: the role grants `call`. */
const CALLERS = [ok, ok, ok, no, no, ok, no, ok, no, ok, ok, ok, ok, ok];
/** The log-export API: the root secret or an admin key (DECISIONS #7). */
const LOG_ADMINS = [ok, ok, no, no, no, no, no, no, no, ok, no, no, no, ok];
/** `Ref("tokens/self")` and `Ref("credentials/self")` resolve for tokens only. */
const BAD_REF = '400 invalid expression';
const SELF_REF = [BAD_REF, BAD_REF, BAD_REF, BAD_REF, BAD_REF, BAD_REF, ok, ok, ok, BAD_REF, BAD_REF, BAD_REF, BAD_REF, BAD_REF];
/** Schema readers: keys with a built-in role but client. */
const SCHEMA_READ = [ok, ok, ok, ok, no, no, no, no, no, ok, ok, no, no, ok];

export const COLUMNS: readonly Column[] = [
  // Documents of the world (`mine` is owned by M, `theirs` by L).
  col({ id: 'get-own', group: 'documents', label: 'Get(mine)', via: 'fql' }, MEMBER_OWN),
  col({ id: 'get-other', group: 'documents', label: 'Get(theirs)', via: 'fql' }, READ_ANY),
  col({ id: 'create', group: 'documents', label: 'Create(things, owner M)', via: 'fql', note: 'the role’s create predicate: the new owner is CurrentIdentity()' }, WRITE_OWN),
  col({ id: 'update-own', group: 'documents', label: 'Update(mine)', via: 'fql' }, WRITE_OWN),
  col({ id: 'update-other', group: 'documents', label: 'Update(theirs)', via: 'fql' }, WRITE_ANY),
  col({ id: 'delete', group: 'documents', label: 'Delete(a doc of M)', via: 'fql' }, WRITE_OWN),
  // Sets: index pages and Documents are filtered document by document by `read` (fql-v4.md §6.5).
  col({ id: 'page-index', group: 'sets', label: 'Paginate(Match(things_all))', via: 'fql', note: 'the role reads the index; each entry is then filtered by `read` on its document' },
    ['all', 'all', 'all', 'all', no, 'none', no, 'own', no, 'all', 'all', 'own', 'none', 'all']),
  col({ id: 'page-docs', group: 'sets', label: 'Paginate(Documents(things))', via: 'fql' },
    ['all', 'all', 'all', 'all', no, 'none', no, 'own', no, 'all', 'all', 'own', 'none', 'all']),
  col({ id: 'page-collections', group: 'sets', label: 'Paginate(Collections())', via: 'fql' }, SCHEMA_READ),
  // Schema.
  col({ id: 'get-collection', group: 'schema', label: 'Get(Collection(things))', via: 'fql' }, SCHEMA_READ),
  col({ id: 'create-collection', group: 'schema', label: 'CreateCollection', via: 'fql' }, WRITE_ANY),
  col({ id: 'create-index', group: 'schema', label: 'CreateIndex', via: 'fql' }, WRITE_ANY),
  col({ id: 'create-function', group: 'schema', label: 'CreateFunction', via: 'fql' }, WRITE_ANY),
  col({ id: 'create-role', group: 'schema', label: 'CreateRole', via: 'fql' }, ADMINS),
  col({ id: 'create-database', group: 'schema', label: 'CreateDatabase', via: 'fql' }, ADMINS),
  col({ id: 'create-key', group: 'schema', label: 'CreateKey', via: 'fql' }, ADMINS),
  // History.
  col({ id: 'events', group: 'history', label: 'Paginate(Events(mine))', via: 'fql', note: '`history_read`, independent of `read`; the role grants it on its own documents' }, MEMBER_OWN),
  col({ id: 'at', group: 'history', label: 'At(ts, Get(mine))', via: 'fql', note: 'a snapshot read is governed by `read`' }, MEMBER_OWN),
  col({ id: 'insert', group: 'history', label: 'Insert(historic, ts, create)', via: 'fql', note: '`history_write`; the role does not grant it' }, WRITE_ANY),
  // Functions.
  col({ id: 'call', group: 'functions', label: 'Call(plain_fn)', via: 'fql', note: 'server-readonly keys may not call (fql-v4.md §6.3)' }, CALLERS),
  col({ id: 'call-server-fn', group: 'functions', label: 'Call(server_fn, theirs)', via: 'fql', note: 'a function with role `server` reads what its caller cannot' }, CALLERS),
  col({ id: 'call-public-fn', group: 'functions', label: 'Call(public_fn)', via: 'fql', note: '`permissions: {call: "public"}` grants client keys and tokens, not keys or scopes with user roles (DECISIONS #2)' },
    [ok, ok, ok, no, ok, no, ok, ok, ok, ok, ok, ok, no, ok]),
  // GraphQL.
  col({ id: 'gql-query', group: 'graphql', label: '/graphql allGnotes', via: 'http', note: 'a denial is a GraphQL error with code `permission denied` (HTTP 200)' },
    [ok, ok, ok, ok, no, ok, no, ok, no, ok, ok, ok, ok, ok]),
  col({ id: 'gql-mutation', group: 'graphql', label: '/graphql createGnote', via: 'http' }, WRITE_ANY),
  col({ id: 'gql-import', group: 'graphql', label: '/import (merge)', via: 'http', note: 'an admin or server secret: an import creates collections, indexes and functions' }, WRITE_ANY),
  // Streams.
  col({ id: 'stream', group: 'streams', label: '/stream mine', via: 'http', note: 'opening a document stream needs `read` on it (fql-v4.md §1.12)' }, MEMBER_OWN),
  col({ id: 'stream-set', group: 'streams', label: '/stream Documents(things)', via: 'http', note: 'a set stream opens for whoever may read some of its documents; events of the others are filtered out (fql-v4.md §1.12)' },
    [ok, ok, ok, ok, no, ok, no, ok, no, ok, ok, ok, ok, ok]),
  // Log export.
  col({ id: 'logs-request', group: 'log export', label: 'POST /api/v1/logs', via: 'http' }, LOG_ADMINS),
  col({ id: 'logs-list', group: 'log export', label: 'POST /api/v1/logs/_list', via: 'http' }, LOG_ADMINS),
  col({ id: 'logs-recent', group: 'log export', label: 'GET /api/v1/logs/_recent', via: 'http', note: 'the newest records at once (the dashboard’s live view); the same bearers as exports' }, LOG_ADMINS),
  col({ id: 'logs-poll-root', group: 'log export', label: 'GET an export the root asked for', via: 'http', note: 'an admin of a child database sees the requests of its subtree only' },
    [ok, ok, no, no, no, no, no, no, no, '404', no, no, no, '404']),
  // Index builds (Flora's read of background-build progress, for the dashboard).
  col({ id: 'index-builds', group: 'indexes', label: 'GET /api/v1/index-builds', via: 'http', note: 'any valid secret; the answer lists only the builds of indexes its role may read' }, Array(14).fill(ok)),
  // Tokens.
  col({ id: 'login', group: 'tokens', label: 'Login(Match(members_by_email))', via: 'fql', note: 'the unique index is public: client keys and tokens read it whole (DECISIONS #2; the core has no public permissions, so this is Flora’s rule); the token is created with server privileges (AuthFunctions.scala LoginFunction)' },
    [ok, ok, ok, ok, ok, no, ok, ok, ok, ok, ok, ok, no, ok]),
  col({ id: 'login-ref', group: 'tokens', label: 'Login(M)', via: 'fql', note: 'with a direct ref the credentials lookup is not permission-checked (fql-v4.md §6.3)' },
    Array(14).fill(ok)),
  col({ id: 'identify', group: 'tokens', label: 'Identify(M, password)', via: 'fql' }, Array(14).fill('true')),
  col({ id: 'current-identity', group: 'tokens', label: 'CurrentIdentity()', via: 'fql' },
    ['400 missing identity', '400 missing identity', '400 missing identity', '400 missing identity', '400 missing identity', '400 missing identity', ok, ok, ok, '400 missing identity', '400 missing identity', ok, '400 missing identity', '400 missing identity']),
  col({ id: 'has-current-identity', group: 'tokens', label: 'HasCurrentIdentity()', via: 'fql' },
    ['false', 'false', 'false', 'false', 'false', 'false', 'true', 'true', 'true', 'false', 'false', 'true', 'false', 'false']),
  col({ id: 'current-token', group: 'tokens', label: 'CurrentToken()', via: 'fql', note: 'a key’s ref only when the key lives in the database it acts in; the root secret has none (fql-v4.md §3.7)' },
    [
      '400 invalid token', ok, ok, ok, ok, ok, ok, ok, ok,
      '400 invalid token', '400 invalid token', '400 invalid token', '400 invalid token', '400 invalid token',
    ]),
  col({ id: 'create-token', group: 'tokens', label: 'Create(Tokens(), {instance: M})', via: 'fql' }, WRITE_ANY),
  col({ id: 'page-tokens', group: 'tokens', label: 'Paginate(Tokens())', via: 'fql' }, SCHEMA_READ),
  col({ id: 'get-own-token', group: 'tokens', label: 'Get(Ref("tokens/self"))', via: 'fql', note: 'a token reads itself; for any other secret the ref does not resolve: `invalid expression` "Invalid ref." (ast/Parser.scala transformRef)' }, SELF_REF),
  col({ id: 'get-own-credentials', group: 'tokens', label: 'Get(Ref("credentials/self"))', via: 'fql', note: 'a token reads its identity’s credentials (hashed_password, never the password)' }, SELF_REF),
  col({ id: 'tokens-self', group: 'tokens', label: 'GET /tokens/self', via: 'http', note: 'a valid secret that is no token: 404 `not found` (FQL1Routes, ModelData.lookupInstanceRef)' },
    ['404', '404', '404', '404', '404', '404', ok, ok, ok, '404', '404', '404', '404', '404']),
  col({ id: 'logout', group: 'tokens', label: 'Logout(false)', via: 'fql', last: true, note: 'false unless the secret is a token (AuthFunctions.scala LogoutFunction)' },
    ['false', 'false', 'false', 'false', 'false', 'false', 'true', 'true', 'true', 'false', 'false', 'false', 'false', 'false']),
  // Keys.
  col({ id: 'page-keys', group: 'keys', label: 'Paginate(Keys())', via: 'fql' }, ADMINS),
  col({ id: 'get-key', group: 'keys', label: 'Get(a key)', via: 'fql', note: 'shows `hashed_secret`, never `secret`' }, ADMINS),
  col({ id: 'key-from-secret', group: 'keys', label: 'KeyFromSecret(a key’s secret)', via: 'fql', note: 'without read on the key: `instance not found` (fql-v4.md §3.4)' },
    [ok, ok, '400 instance not found', '400 instance not found', '400 instance not found', '400 instance not found', '400 instance not found', '400 instance not found', '400 instance not found', ok, '400 instance not found', '400 instance not found', '400 instance not found', ok]),
  // Isolation between databases.
  col({ id: 'get-parent-doc', group: 'isolation', label: 'Get(things/<id of the top world’s mine>)', via: 'fql', note: 'from a child database the parent’s ids name nothing' },
    [ok, ok, ok, ok, no, no, no, ok, no, '404', '404', ok, no, '404']),
  col({ id: 'get-sibling-doc', group: 'isolation', label: 'Get(a doc of Database(sibling))', via: 'fql', note: 'admin and server keys read descendants (Permissions.scala isInScope); roles apply in their own database only; from `child`, `sibling` is undefined' },
    [ok, ok, ok, ok, no, no, no, no, no, '400 invalid ref', '400 invalid ref', no, no, '400 invalid ref']),
  col({ id: 'update-sibling-doc', group: 'isolation', label: 'Update(a doc of Database(sibling))', via: 'fql', note: 'a scoped ref is never written, whoever asks (WriteFunctions.scala: checked before permissions)' },
    [...Array(9).fill('400 invalid argument'), '400 invalid ref', '400 invalid ref', '400 invalid argument', '400 invalid argument', '400 invalid ref']),
  col({ id: 'page-databases', group: 'isolation', label: 'Paginate(Databases())', via: 'fql', note: 'lists the databases below its own only' },
    ['ok: child, sibling', 'ok: child, sibling', no, no, no, no, no, no, no, 'ok: grandchild', no, no, no, 'ok: grandchild']),
];

export const GROUPS: readonly string[] = [...new Set(COLUMNS.map((c) => c.group))];

/** The expected outcome of a cell. */
export function expected(subject: string, op: string): Outcome {
  const s = SUBJECTS.find((x) => x.id === subject);
  const c = COLUMNS.find((x) => x.id === op);
  if (!s || !c) throw new Error(`no cell ${subject} × ${op}`);
  return s.dead ? '401' : c.expect[subject];
}

/** How much access an outcome shows: a refusal 0, an empty page 1, part of a set 2, everything 3, another database's documents 4. */
export function accessLevel(o: Outcome): number {
  // Documents of another database in a page: more than any cell grants.
  if (o.startsWith('LEAK')) return 4;
  if (o === 'ok' || o.startsWith('ok:') || o === 'true' || o === 'all') return 3;
  if (o === 'own' || o === 'theirs only') return 2;
  if (o === 'none') return 1;
  return 0;
}

export type Verdict = 'match' | 'beyond' | 'denied' | 'differs';

/** Beyond the table: more access than expected; denied: less; differs: as much, but another answer. */
export function verdict(want: Outcome, got: Outcome): Verdict {
  if (want === got) return 'match';
  const w = accessLevel(want);
  const g = accessLevel(got);
  return g > w ? 'beyond' : g < w ? 'denied' : 'differs';
}
