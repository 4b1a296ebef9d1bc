// What a PostgreSQL failure says (storage/pgConnect.ts pgUnavailable) for the failures the
// integration tests cannot cause at will: a host name that is not known, no connection slot left, a
// connection timeout; and never the URL's password.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pgUnavailable } from '../../src/storage/pgConnect';
import { StorageUnavailable } from '../../src/storage/engine';

const failure = (code: string | undefined, message: string) => Object.assign(new Error(message), code ? { code } : {});
const URL = 'postgres://flora:s3cret@db.example:6543/app';

test('each failure names the place, the user or database, and what to do; never the password', () => {
  const said = (code: string | undefined, message: string) => {
    const e = pgUnavailable(failure(code, message), URL);
    assert.ok(e instanceof StorageUnavailable);
    assert.doesNotMatch(e.message, /s3cret/);
    return e.message;
  };
  assert.equal(said('ENOTFOUND', 'getaddrinfo ENOTFOUND db.example'), 'PostgreSQL at db.example:6543 cannot be reached: the host name is not known (ENOTFOUND)');
  assert.equal(
    said('53300', 'sorry, too many clients already'),
    'PostgreSQL at db.example:6543 has no connection left: sorry, too many clients already (53300): raise its max_connections, or run fewer Flora processes',
  );
  assert.equal(
    said(undefined, 'timeout exceeded when trying to connect'),
    'PostgreSQL at db.example:6543 cannot be reached: it did not answer in time (timeout exceeded when trying to connect)',
  );
  assert.equal(said('3D000', 'database "app" does not exist'), 'PostgreSQL at db.example:6543 has no database "app" (3D000): create it, e.g. as the postgres user: createdb -O flora app');
  assert.equal(
    said('28000', 'no pg_hba.conf entry for host "10.0.0.2", user "flora"'),
    'PostgreSQL at db.example:6543 does not let user "flora" in: no pg_hba.conf entry for host "10.0.0.2", user "flora" (28000): check the user in the storage URL, and the server\'s pg_hba.conf',
  );
  assert.equal(
    said('57P03', 'the database system is starting up'),
    'PostgreSQL at db.example:6543 does not take connections now: the database system is starting up (57P03)',
  );
  assert.equal(said('XX000', 'something else'), 'PostgreSQL is unavailable: something else');
});

test('a URL that names no port, user or database: PostgreSQL’s defaults', () => {
  const e = pgUnavailable(failure('3D000', 'database does not exist'), 'postgres://localhost');
  const user = process.env.PGUSER || process.env.USER || 'postgres';
  assert.equal(e.message, `PostgreSQL at localhost:5432 has no database "${user}" (3D000): create it, e.g. as the postgres user: createdb -O ${user} ${user}`);
});

test('an error that already says so is kept', () => {
  const e = new StorageUnavailable('PostgreSQL at x:1 cannot be reached (ECONNREFUSED): is the server running, and listening there?');
  assert.equal(pgUnavailable(e, URL), e);
});
