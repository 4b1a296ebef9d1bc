// What an answer under overload may be: a success, or a refusal in Fauna's error shape a client can
// act on — 429 `too many requests` with a Retry-After, or a 503 (`time out`, `unavailable`). Anything
// else (a 500, a 429 without Retry-After, a body that is not Fauna's) is `other`; an answer that never
// came is a reset (the connection or stream was cut) or a hang (past the deadline).

export const VERDICTS = ['ok', '429', '503', 'other', 'reset', 'hang'] as const;
export type Verdict = (typeof VERDICTS)[number];

export function classifyAnswer(status: number, retryAfter: string | undefined, body: string): { verdict: Verdict; detail: string } {
  const said = `${status} ${body.slice(0, 200)}`;
  if (status >= 200 && status < 300) return { verdict: 'ok', detail: said };
  const code = faunaErrorCode(body);
  if (status === 429) {
    if (code !== 'too many requests') return { verdict: 'other', detail: `429 not in Fauna's shape: ${said}` };
    if (retryAfter === undefined || !/^\d+$/.test(retryAfter.trim())) return { verdict: 'other', detail: `429 without a Retry-After in seconds (${String(retryAfter)}): ${said}` };
    return { verdict: '429', detail: `Retry-After ${retryAfter}: ${said}` };
  }
  if (status === 503 && code !== undefined) return { verdict: '503', detail: said };
  return { verdict: 'other', detail: said };
}

/** The code of `{"errors":[{"code":…,"description":…}]}`, when the body is that. */
function faunaErrorCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { errors?: { code?: unknown; description?: unknown }[] };
    const first = parsed.errors?.[0];
    return typeof first?.code === 'string' && typeof first.description === 'string' && first.description !== '' ? first.code : undefined;
  } catch {
    return undefined;
  }
}
