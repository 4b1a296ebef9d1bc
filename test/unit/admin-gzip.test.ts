// Which Accept-Encoding headers get the dashboard's files gzipped (src/server/admin.ts acceptsGzip).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptsGzip } from '../../src/server/admin';

test('gzip when listed or matched by *, unless its q is 0', () => {
  for (const yes of ['gzip', 'gzip, deflate, br', 'br;q=1.0, GZIP;q=0.5', '*', 'identity, *;q=0.1', ' deflate , gzip ']) assert.equal(acceptsGzip(yes), true, yes);
  for (const no of [undefined, '', 'identity', 'br, deflate', 'gzip;q=0', 'gzip;q=0.0, identity', '*;q=0', 'x-gzip']) assert.equal(acceptsGzip(no), false, String(no));
});
