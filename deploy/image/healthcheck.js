'use strict';
// The image's HEALTHCHECK (no curl in a minimal image): GET /healthz on the container's own port,
// exit 0 on 200. Over HTTPS when FLORA_TLS_CERT is set; the certificate names the service, not
// 127.0.0.1, so it is not verified here: this asks whether the process answers, nothing more.
const port = Number(process.env.FLORA_PORT || 8443);
const tls = (process.env.FLORA_TLS_CERT || '') !== '';
const client = require(tls ? 'node:https' : 'node:http');

const req = client.get({ host: '127.0.0.1', port, path: '/healthz', timeout: 4000, rejectUnauthorized: false }, (res) => {
  res.resume();
  if (res.statusCode !== 200) console.error(`healthcheck: /healthz answered ${res.statusCode}`);
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('no answer within 4 s')));
req.on('error', (err) => {
  console.error(`healthcheck: ${err.message}`);
  process.exit(1);
});
