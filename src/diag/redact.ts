// What the server's log must never carry: anything shaped like a secret is replaced before a line
// is written, whatever room wrote it and whatever an error message happened to quote.

export const REDACTED = '[redacted]';

const SHAPES: readonly [RegExp, string][] = [
  // Key and token secrets, Flora's and Fauna's (`fnA…`, `fnE…`: base64 of 30 bytes and more,
  // model/secrets.ts); a scoped secret keeps its `:db/path:role`, which names no secret.
  [/(?<![A-Za-z0-9_+/-])fn[A-Za-z0-9_+/-]{20,}={0,2}/g, REDACTED],
  // JSON Web Tokens (access providers' logins): header.payload.signature.
  [/eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  // An Authorization header's credentials, however they got into a message.
  [/\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~:-]+/gi, `$1 ${REDACTED}`],
  // The password of a URL (a postgres:// connection string in a storage error).
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi, `$1${REDACTED}@`],
];

/** `text` with every secret-shaped part, and every one of `secrets` (the root secret), replaced. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const [shape, by] of SHAPES) out = out.replace(shape, by);
  for (const s of secrets) {
    // Whole words only: a short root secret must not eat the letters of every message.
    if (s) out = out.replace(new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(s)}(?![A-Za-z0-9])`, 'g'), REDACTED);
  }
  return out;
}

/** Field names whose values are credentials whatever they look like. */
export function isSecretField(name: string): boolean {
  return /authorization|secret|password|cookie|token/i.test(name);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
