// `flora cert`: a self-signed certificate and key for --tls-cert/--tls-key, for local use and tests
// (a real deployment uses its CA's or an ACME client's). ECDSA P-256, valid a year, for localhost,
// 127.0.0.1, ::1 and any --name given; clients trust it with NODE_EXTRA_CA_CERTS or their CA option.

import { isIP } from 'node:net';
import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { parseFlags, runCommand, UsageError } from './flags';

export const CERT_USAGE = `Usage: flora cert [options]

Writes a self-signed certificate and its private key (PEM) for serving TLS locally:
  flora start --tls-cert <dir>/flora-cert.pem --tls-key <dir>/flora-key.pem
Valid for a year for localhost, 127.0.0.1 and ::1 (and each --name). Clients must trust the
certificate: NODE_EXTRA_CA_CERTS=<dir>/flora-cert.pem for the Node.js drivers, --cacert for curl.

Options:
  --dir <dir>     Where to write flora-cert.pem and flora-key.pem (default: the current directory)
  --name <name>   Another host name or IP address the certificate is for (repeat: a,b or several flags)
  --force         Replace files that exist
  -h, --help      Show this help

Exit codes: 0 written, 1 failed (files exist, cannot write), 2 bad usage.
`;

interface Options {
  dir: string;
  names: string[];
  force: boolean;
}

const NAME = /^(?=.{1,253}$)[A-Za-z0-9*]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function parse(args: readonly string[]): Options {
  // --name may repeat: parseFlags keeps the last value, so repeated ones are gathered here.
  const names: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--name' || a.startsWith('--name=')) {
      const v = a === '--name' ? args[++i] : a.slice('--name='.length);
      if (v === undefined) throw new UsageError("Option '--name' needs a value.");
      names.push(...v.split(',').map((n) => n.trim()).filter((n) => n !== ''));
    } else rest.push(a);
  }
  // --name is listed though gathered above: a mistyped one is then suggested.
  const { values, switches, operands } = parseFlags(rest, ['--dir', '--name'], ['--force']);
  if (operands.length > 0) throw new UsageError(`Unexpected argument '${operands[0]}'.`);
  for (const n of names) if (isIP(n) === 0 && !NAME.test(n)) throw new UsageError(`'${n}' is not a host name or an IP address.`);
  return { dir: values.get('--dir') ?? '.', names, force: switches.has('--force') };
}

export function certCommand(args: readonly string[], err: Writable = process.stderr, out: Writable = process.stdout): Promise<number> {
  return runCommand({ name: 'cert', usage: CERT_USAGE, parse, run: (opts) => write(opts, out) }, args, out, err);
}

async function write(opts: Options, out: Writable): Promise<number> {
  const { generate } = await import('selfsigned');
  const hosts = [...new Set(['localhost', '127.0.0.1', '::1', ...opts.names])];
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: opts.names[0] ?? 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 365 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: hosts.map((h) => (isIP(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h })) },
    ],
  });
  const certFile = path.join(opts.dir, 'flora-cert.pem');
  const keyFile = path.join(opts.dir, 'flora-key.pem');
  if (!opts.force) for (const f of [certFile, keyFile]) if (existsSync(f)) throw new Error(`${f} exists (--force replaces it)`);
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  await chmod(keyFile, 0o600); // a replaced file keeps its old mode otherwise
  await writeFile(certFile, pems.cert, { mode: 0o644 });
  out.write(
    `Wrote ${certFile} and ${keyFile} (self-signed, for ${hosts.join(', ')}; valid until ${new Date(now + 365 * 86_400_000).toISOString().slice(0, 10)}).\n` +
      `Start:  flora start --tls-cert ${certFile} --tls-key ${keyFile}\n` +
      `Trust:  NODE_EXTRA_CA_CERTS=${certFile} (Node.js drivers), curl --cacert ${certFile}\n`,
  );
  return 0;
}
