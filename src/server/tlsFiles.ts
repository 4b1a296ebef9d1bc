// The certificate and key a TLS listener serves, read from their PEM files. Read again on SIGHUP
// or when either file changes (cli/main.ts): a renewed certificate (certbot, cert-manager) is
// served to new connections without a restart; a pair that does not load leaves the old one.

import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

export interface TlsFiles {
  readonly cert: string;
  readonly key: string;
}

export interface TlsPair {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export class TlsFilesError extends Error {}

/** Both files, checked to form a usable pair (the key matches the certificate). */
export function readTlsPair(files: TlsFiles): TlsPair {
  const read = (path: string, what: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (e) {
      throw new TlsFilesError(`cannot read the TLS ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  const pair = { cert: read(files.cert, 'certificate'), key: read(files.key, 'key') };
  try {
    createSecureContext(pair);
  } catch (e) {
    throw new TlsFilesError(`the TLS certificate ${files.cert} and key ${files.key} do not load: ${(e as Error).message}`);
  }
  return pair;
}
