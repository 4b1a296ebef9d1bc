// /query/1 is FQL v10's endpoint (fauna-shell 1.x without `--version 4`, the `fauna` v10 drivers).
// Flora speaks FQL v4 only: the answer says so, in v10's error shape ({error: {code, message},
// summary}), which those clients print as "code: message".

import type { Handler } from './router';

export const FQL_V10_MESSAGE =
  'Flora speaks FQL v4 (the API of the faunadb drivers), not FQL v10. ' +
  'With fauna-shell 1.x add `--version 4` (e.g. `fauna eval --version 4 --url http://127.0.0.1:8443 --secret secret "Now()"`); ' +
  'v10 drivers (the `fauna` npm package) cannot talk to Flora: use `faunadb`.';

export const fqlV10: Handler = async () => ({
  status: 400,
  body: JSON.stringify({ error: { code: 'invalid_request', message: FQL_V10_MESSAGE }, summary: FQL_V10_MESSAGE }),
});
