// The ceiling for the benchmark: a bare Node HTTP/2 server that answers every request with a fixed,
// document-sized body, so that the driver + HTTP/2 cost is measured with no database behind it.
// Run as its own process (like Flora) and prints `Ceiling listening on http://127.0.0.1:<port>`.

import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

export const DOCUMENT_DATA = {
  name: 'user-0012345',
  email: 'user0012345@example.com',
  age: 42,
  active: true,
  tags: ['alpha', 'beta', 'gamma'],
  address: { street: '1 Main Street', city: 'Springfield', zip: '12345' },
};

const BODY = JSON.stringify({
  resource: {
    ref: { '@ref': { id: '12345', collection: { '@ref': { id: 'bench', collection: { '@ref': { id: 'collections' } } } } } },
    ts: 1700000000000000,
    data: DOCUMENT_DATA,
  },
});

if (require.main === module) {
  const server = http2.createServer((req, res) => {
    // Consume the query body like a real server would before answering.
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'application/json;charset=utf-8',
        'content-length': String(Buffer.byteLength(BODY)),
        'x-txn-time': String(BigInt(Date.now()) * 1000n),
      });
      res.end(BODY);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`Ceiling listening on http://127.0.0.1:${port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
