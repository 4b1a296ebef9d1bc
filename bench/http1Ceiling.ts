// `node dist/bench/http1Ceiling.js <processes> <response.json> [work]`: the floor under any Node
// HTTP/1.1 server on this machine, for capacity.ts. A bare node:http server in `processes` processes
// (node:cluster, round-robin, as a Flora tier) that reads each request's body and answers with a
// fixed response: the status, headers and body of a real Flora point Get (`response.json`:
// {"headers": {…}, "body": "…"}), so the bytes on the wire are the same and only the database is
// missing. With `work` > 0 each request first parses and re-serialises the response body `work`
// times: a server that spends as much CPU per request as Flora, in short-lived objects as Flora
// does, which says how far any Node server of that weight scales on this machine's cores.
// Prints `Ceiling listening on http://127.0.0.1:<port>` once every process listens.

import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';

const [processes, file, work] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4] ?? 0)];

if (cluster.isPrimary) {
  void (async () => {
    // Port 0 resolved once, so every worker shares one listening socket (as supervisor.ts does).
    const probe = createServer();
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((ok) => probe.close(ok));
    let listening = 0;
    for (let i = 0; i < processes; i++) {
      cluster.fork({ CEILING_PORT: String(port) }).on('listening', () => {
        if (++listening === processes) process.stdout.write(`Ceiling listening on http://127.0.0.1:${port}\n`);
      });
    }
    process.on('SIGTERM', () => {
      for (const w of Object.values(cluster.workers ?? {})) w?.kill();
      process.exit(0);
    });
  })();
} else {
  const { headers, body } = JSON.parse(readFileSync(file, 'utf8')) as { headers: Record<string, string>; body: string };
  const payload = Buffer.from(body);
  const head = { ...headers, 'content-length': String(payload.length) };
  http
    .createServer((req, res) => {
      req.resume(); // read the query like a server would, then answer
      req.on('end', () => {
        let spent = 0;
        for (let i = 0; i < work; i++) spent += JSON.stringify({ ...(JSON.parse(body) as object), i }).length;
        res.writeHead(200, head).end(spent < 0 ? '' : payload); // spent keeps the loop from being optimised away
      });
    })
    .listen(Number(process.env.CEILING_PORT), '127.0.0.1');
}
