// Time and date functions of FQL v4 (fql-v4.md §3.10). Registered with define() at module load.

import { define } from '../registry';
import { argPos, asString, evalArg } from '../args';
import { errors } from '../../values/errors';
import { Time } from '../../values/types';
import { parseIsoTime } from '../../wire/time';

/** Now() and Time("now") are the transaction's snapshot time, not its commit time. */
define('now', async (_call, _env, ctx) => Time.fromMicros(ctx.snapshotTs));

define('time', async (call, env, ctx) => {
  const s = asString(await evalArg(call, 'time', env, ctx), argPos(call, 'time'));
  if (s === 'now') return Time.fromMicros(ctx.snapshotTs);
  const nanos = parseIsoTime(s);
  if (nanos === undefined) throw errors.invalidArgument(`Cannot cast '${s}' to a time.`, argPos(call, 'time'));
  return new Time(nanos);
});

