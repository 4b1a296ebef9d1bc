// Math functions (fql-v4.md §3.9: abs … bitnot) through a real server and the official driver,
// over HTTP/2 and HTTP/1.1. The driver decodes Longs and Doubles both as JS numbers, so the
// Long/Double distinction, Java's Double text, NaN/Infinity and 64-bit wrapping are checked on
// the raw response text.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, type ExprArg } from 'faunadb';
import { rawQuery, serverForFile } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

const server = serverForFile();

/** [label, expression, expected driver value] */
const VALUES: [string, ExprArg, unknown][] = [
  ['Abs', q.Abs(-5), 5],
  ['Abs double', q.Abs(-2.5), 2.5],
  ['Sign negative', q.Sign(-7), -1],
  ['Sign zero', q.Sign(0), 0],
  ['Sign positive double', q.Sign(0.25), 1],
  ['Sign negative double', q.Sign(-0.25), -1],
  ['Ceil', q.Ceil(1.2), 2],
  ['Ceil negative', q.Ceil(-1.5), -1],
  ['Floor', q.Floor(1.8), 1],
  ['Floor negative', q.Floor(-1.2), -2],
  ['Sqrt', q.Sqrt(16), 4],
  ['Sqrt double', q.Sqrt(2.25), 1.5],
  ['Round default precision 2', q.Round(1234.5678), 1234.57],
  ['Round precision', q.Round(1234.5678, 1), 1234.6],
  ['Round negative precision', q.Round(1234.5678, -2), 1200],
  ['Round half up', q.Round(2.5, 0), 3],
  ['Round half up away from zero', q.Round(-2.5, 0), -3],
  ['Round decimal text', q.Round(2.675, 2), 2.68],
  ['Round Integer unchanged', q.Round(1234, 2), 1234],
  ['Round Integer to hundreds', q.Round(1250, -2), 1300],
  ['Round Integer to tens', q.Round(-1234, -1), -1230],
  ['Trunc default precision 2', q.Trunc(1234.5678), 1234.56],
  ['Trunc negative', q.Trunc(-1.239, 2), -1.23],
  ['Trunc negative precision', q.Trunc(1299.9, -2), 1200],
  ['Trunc Integer', q.Trunc(1299, -2), 1200],
  ['Pow default exponent', q.Pow(3), 9],
  ['Pow', q.Pow(2, 10), 1024],
  ['Pow fractional', q.Pow(4, 0.5), 2],
  ['Pow negative exponent', q.Pow(2, -2), 0.25],
  ['Exp', q.Exp(1), Math.E],
  ['Ln', q.Ln(q.Exp(2)), 2],
  ['Log', q.Log(1000), 3],
  ['Hypot', q.Hypot(3, 4), 5],
  ['Hypot default b', q.Hypot(3), Math.sqrt(18)],
  ['Acos', q.Acos(0.5), Math.acos(0.5)],
  ['Asin', q.Asin(1), Math.PI / 2],
  ['Atan', q.Atan(1), Math.PI / 4],
  ['Cos', q.Cos(0), 1],
  ['Cosh', q.Cosh(0), 1],
  ['Sin', q.Sin(1), Math.sin(1)],
  ['Sinh', q.Sinh(0), 0],
  ['Tan', q.Tan(0), 0],
  ['Tanh', q.Tanh(0), 0],
  ['Degrees', q.Degrees(q.Acos(-1)), 180],
  ['Radians', q.Radians(180), Math.PI],
  ['BitAnd', q.BitAnd(12, 10), 8],
  ['BitAnd single', q.BitAnd(5), 5],
  ['BitAnd fold', q.BitAnd(15, 14, 7), 6],
  ['BitOr', q.BitOr(12, 10), 14],
  ['BitXor', q.BitXor(12, 10), 6],
  ['BitXor over a var array', q.Let({ xs: [1, 2, 4] }, q.BitXor(q.Var('xs'))), 7],
  ['BitAnd truncates Doubles', q.BitAnd(7.9, 3), 3],
  ['BitNot', q.BitNot(0), -1],
  ['BitNot negative', q.BitNot(-6), 5],
  ['BitNot double', q.BitNot(2.5), -3],
  ['math composes', q.Add(q.Abs(-1), q.Sign(-3), q.Floor(2.5)), 2],
  // Max/Min of setAggregates.ts over number varargs
  ['Max of numbers', q.Max(1, 2.5), 2.5],
  ['Min of numbers', q.Min(3, -1.5, 2), -1.5],
];

interface ErrorRow {
  description: string;
  position: (string | number)[];
}
const bad = (description: string, position: (string | number)[]): ErrorRow => ({ description, position });

/** [label, expression, expected `invalid argument` error] */
const ERRORS: [string, ExprArg, ErrorRow][] = [
  ['Abs of a string', q.Abs('a'), bad('Number expected, String provided.', ['abs'])],
  ['Sign of null', q.Sign(null as unknown as ExprArg), bad('Number expected, Null provided.', ['sign'])],
  ['Ceil of a boolean', q.Ceil(true), bad('Number expected, Boolean provided.', ['ceil'])],
  ['Floor of an array', q.Floor([1.5]), bad('Number expected, Array provided.', ['floor'])],
  ['Sqrt of an object', q.Sqrt({ a: 1 }), bad('Number expected, Object provided.', ['sqrt'])],
  ['Sqrt of a negative Integer', q.Sqrt(-4), bad('-4 must be positive', ['sqrt'])],
  ['Sqrt of a negative Double', q.Sqrt(-2.5), bad('-2.5 must be positive', ['sqrt'])],
  ['Round of a string', q.Round('1.5'), bad('Number expected, String provided.', ['round'])],
  ['Round precision Double', q.Round(1.5, 1.5), bad('Integer expected, Double provided.', ['precision'])],
  ['Trunc precision String', q.Trunc(1.5, '1'), bad('Integer expected, String provided.', ['precision'])],
  ['Round reports the number first', q.Round('x', 'y'), bad('Number expected, String provided.', ['round'])],
  ['Pow base', q.Pow('2', 2), bad('Number expected, String provided.', ['pow'])],
  ['Pow exponent', q.Pow(2, '2'), bad('Number expected, String provided.', ['exp'])],
  ['Hypot b', q.Hypot(3, true), bad('Number expected, Boolean provided.', ['b'])],
  ['Exp of a string', q.Exp('1'), bad('Number expected, String provided.', ['exp'])],
  ['Ln of zero', q.Ln(0), bad('0 must be greater than 0', ['ln'])],
  ['Ln of a negative Double', q.Ln(-1.5), bad('-1.5 must be greater than 0', ['ln'])],
  // The driver sends 0.0 as 0 (an Integer): the raw rows check the Double text.
  ['Log of zero', q.Log(0.0), bad('0 must be greater than 0', ['log'])],
  ['Log of a string', q.Log('10'), bad('Number expected, String provided.', ['log'])],
  ['Acos above 1', q.Acos(2), bad('2 must be between -1 and 1 inclusive', ['acos'])],
  ['Asin below -1', q.Asin(-1.5), bad('-1.5 must be between -1 and 1 inclusive', ['asin'])],
  ['Cos of null', q.Cos(null as unknown as ExprArg), bad('Number expected, Null provided.', ['cos'])],
  ['Degrees of a string', q.Degrees('x'), bad('Number expected, String provided.', ['degrees'])],
  ['Tanh of an array', q.Tanh([]), bad('Number expected, Array provided.', ['tanh'])],
  ['BitAnd element', q.BitAnd(1, 'x'), bad('Number expected, String provided.', ['bitand', 1])],
  ['BitOr first bad element wins', q.BitOr(true, 'x'), bad('Number expected, Boolean provided.', ['bitor', 0])],
  ['BitXor of a var holding a string', q.Let({ s: 'x' }, q.BitXor(q.Var('s'))), bad('Number expected, String provided.', ['in', 'bitxor'])],
  ['BitAnd of an empty array', q.Let({ xs: [] }, q.BitAnd(q.Var('xs'))), bad('Non-empty array expected.', ['in', 'bitand'])],
  ['BitNot of a string', q.BitNot('1'), bad('Number expected, String provided.', ['bitnot'])],
];

const TYPE_ERROR = (description: string, position: (string | number)[]) =>
  `{"errors":[{"position":${JSON.stringify(position)},"code":"invalid argument","description":"${description}"}]}`;

/** Exact response text for raw bodies: Long vs Double, Java's Double text, NaN, 64-bit Longs. */
const RAW: [body: string, response: string][] = [
  // abs / sign / ceil / floor
  ['{"abs":-3}', '{"resource":3}'],
  ['{"abs":-3.0}', '{"resource":3.0}'],
  ['{"abs":-9223372036854775807}', '{"resource":9223372036854775807}'],
  ['{"abs":-9223372036854775808}', '{"resource":-9223372036854775808}'],
  ['{"abs":-1.0E10}', '{"resource":1.0E10}'],
  ['{"sign":-2.5}', '{"resource":-1}'],
  ['{"sign":0.0}', '{"resource":1}'],
  ['{"sign":-0.0}', '{"resource":1}'],
  ['{"sign":0}', '{"resource":0}'],
  ['{"sign":-9223372036854775808}', '{"resource":-1}'],
  ['{"sign":{"pow":-8,"exp":0.5}}', '{"resource":1}'],
  ['{"ceil":1.2}', '{"resource":2.0}'],
  ['{"ceil":-0.5}', '{"resource":-0.0}'],
  ['{"ceil":5}', '{"resource":5}'],
  ['{"ceil":9007199254740993}', '{"resource":9007199254740993}'],
  ['{"floor":-1.5}', '{"resource":-2.0}'],
  ['{"floor":1.0E20}', '{"resource":1.0E20}'],
  ['{"floor":-9223372036854775808}', '{"resource":-9223372036854775808}'],
  // sqrt, pow, exp, ln, log, hypot
  ['{"sqrt":16}', '{"resource":4.0}'],
  ['{"sqrt":0}', '{"resource":0.0}'],
  ['{"sqrt":-0.0}', '{"resource":-0.0}'],
  ['{"sqrt":1.0E-8}', '{"resource":1.0E-4}'],
  ['{"sqrt":{"pow":-8,"exp":0.5}}', '{"resource":"NaN"}'],
  ['{"pow":2}', '{"resource":4.0}'],
  ['{"pow":10,"exp":10}', '{"resource":1.0E10}'],
  ['{"pow":10,"exp":-3}', '{"resource":0.001}'],
  // Correctly rounded like Java (V8's Math.pow(10, -4) is 9.999999999999999E-5)
  ['{"pow":10,"exp":-4}', '{"resource":1.0E-4}'],
  ['{"pow":10,"exp":-5}', '{"resource":1.0E-5}'],
  ['{"pow":10,"exp":23}', '{"resource":1.0E23}'],
  ['{"pow":2,"exp":-1022}', '{"resource":2.2250738585072014E-308}'],
  ['{"pow":2,"exp":-1075}', '{"resource":0.0}'],
  ['{"pow":-2,"exp":-3}', '{"resource":-0.125}'],
  ['{"pow":-3,"exp":3}', '{"resource":-27.0}'],
  ['{"pow":0.1,"exp":2}', '{"resource":0.010000000000000002}'],
  ['{"pow":2,"exp":0.5}', '{"resource":1.4142135623730951}'],
  ['{"pow":-8,"exp":0.5}', '{"resource":"NaN"}'],
  ['{"pow":10,"exp":400}', '{"resource":"Infinity"}'],
  ['{"pow":-10,"exp":401}', '{"resource":"-Infinity"}'],
  ['{"pow":0,"exp":-1}', '{"resource":"Infinity"}'],
  ['{"pow":9007199254740993,"exp":1}', '{"resource":9.007199254740992E15}'],
  ['{"exp":0}', '{"resource":1.0}'],
  ['{"exp":1000}', '{"resource":"Infinity"}'],
  ['{"exp":-1000}', '{"resource":0.0}'],
  ['{"ln":1}', '{"resource":0.0}'],
  ['{"log":1000}', '{"resource":3.0}'],
  ['{"log":1.0E-5}', '{"resource":-5.0}'],
  ['{"hypot":3,"b":4}', '{"resource":5.0}'],
  // Correctly rounded like Java (V8's Math.hypot(3, 3) is one ulp above sqrt(18))
  ['{"hypot":3}', '{"resource":4.242640687119285}'],
  ['{"hypot":1.0E308,"b":1.0E308}', '{"resource":1.4142135623730951E308}'],
  ['{"hypot":1.0E-200,"b":1.0E-200}', '{"resource":1.414213562373095E-200}'],
  ['{"hypot":-3,"b":0}', '{"resource":3.0}'],
  ['{"hypot":{"pow":10,"exp":400},"b":{"pow":-8,"exp":0.5}}', '{"resource":"Infinity"}'],
  // trigonometry
  ['{"cos":0}', '{"resource":1.0}'],
  ['{"sin":0}', '{"resource":0.0}'],
  ['{"sinh":-0.0}', '{"resource":-0.0}'],
  ['{"acos":1}', '{"resource":0.0}'],
  ['{"acos":-1}', '{"resource":3.141592653589793}'],
  ['{"asin":-1}', '{"resource":-1.5707963267948966}'],
  ['{"atan":{"pow":10,"exp":400}}', '{"resource":1.5707963267948966}'],
  ['{"tanh":1000}', '{"resource":1.0}'],
  ['{"cosh":1000}', '{"resource":"Infinity"}'],
  ['{"degrees":{"acos":-1}}', '{"resource":180.0}'],
  ['{"degrees":1}', '{"resource":57.29577951308232}'],
  ['{"radians":180}', '{"resource":3.141592653589793}'],
  ['{"radians":1.0E-300}', '{"resource":1.7453292519943295E-302}'],
  // round / trunc
  ['{"round":1234.5678}', '{"resource":1234.57}'],
  ['{"round":1234.5678,"precision":-2}', '{"resource":1200.0}'],
  ['{"round":1250.0,"precision":-2}', '{"resource":1300.0}'],
  ['{"round":2.675}', '{"resource":2.68}'],
  ['{"round":2.5,"precision":0}', '{"resource":3.0}'],
  ['{"round":-2.5,"precision":0}', '{"resource":-3.0}'],
  ['{"round":-0.001}', '{"resource":0.0}'],
  ['{"round":-0.0}', '{"resource":0.0}'],
  ['{"round":1.0E10}', '{"resource":1.0E10}'],
  ['{"round":5.5E-5,"precision":4}', '{"resource":1.0E-4}'],
  ['{"round":1.5E-5,"precision":20}', '{"resource":1.5E-5}'],
  ['{"round":0.5,"precision":-3}', '{"resource":0.0}'],
  ['{"round":950.0,"precision":-3}', '{"resource":1000.0}'],
  ['{"round":1.0E300,"precision":-400}', '{"resource":0.0}'],
  ['{"round":5.0E300,"precision":-301}', '{"resource":1.0E301}'],
  ['{"round":1.5,"precision":9223372036854775807}', '{"resource":1.5}'],
  ['{"round":1234}', '{"resource":1234}'],
  ['{"round":1234,"precision":0}', '{"resource":1234}'],
  ['{"round":1250,"precision":-2}', '{"resource":1300}'],
  ['{"round":-1250,"precision":-2}', '{"resource":-1300}'],
  ['{"round":1249,"precision":-2}', '{"resource":1200}'],
  ['{"round":9007199254740993,"precision":-1}', '{"resource":9007199254740990}'],
  ['{"round":9223372036854775807,"precision":-1}', '{"resource":-9223372036854775806}'],
  ['{"round":9223372036854775807,"precision":-19}', '{"resource":-8446744073709551616}'],
  ['{"round":9223372036854775807,"precision":-20}', '{"resource":0}'],
  ['{"round":-9223372036854775808,"precision":-100}', '{"resource":0}'],
  ['{"trunc":2.679}', '{"resource":2.67}'],
  ['{"trunc":-2.679}', '{"resource":-2.67}'],
  ['{"trunc":0.999,"precision":0}', '{"resource":0.0}'],
  ['{"trunc":123456789.98765,"precision":-3}', '{"resource":1.23456E8}'],
  ['{"trunc":1299,"precision":-2}', '{"resource":1200}'],
  ['{"trunc":-1299,"precision":-2}', '{"resource":-1200}'],
  ['{"trunc":1299,"precision":3}', '{"resource":1299}'],
  ['{"trunc":{"pow":-8,"exp":0.5}}', '{"resource":"NaN"}'],
  // bit operations
  ['{"bitand":[12,10]}', '{"resource":8}'],
  ['{"bitor":[12,10]}', '{"resource":14}'],
  ['{"bitxor":[12,10]}', '{"resource":6}'],
  ['{"bitand":[7.9,3]}', '{"resource":3.0}'],
  ['{"bitand":[3,7.9]}', '{"resource":3.0}'],
  ['{"bitor":5.5}', '{"resource":5.0}'],
  ['{"bitor":-5.5}', '{"resource":-5.0}'],
  ['{"bitand":[-1,9007199254740993]}', '{"resource":9007199254740993}'],
  ['{"bitxor":[9223372036854775807,-1]}', '{"resource":-9223372036854775808}'],
  ['{"bitor":[-9223372036854775808,1]}', '{"resource":-9223372036854775807}'],
  ['{"bitor":[1.0E300,0]}', '{"resource":9.223372036854776E18}'],
  ['{"bitor":[{"pow":-8,"exp":0.5},6]}', '{"resource":6.0}'],
  ['{"bitnot":0}', '{"resource":-1}'],
  ['{"bitnot":2.5}', '{"resource":-3}'],
  ['{"bitnot":-1.0E300}', '{"resource":9223372036854775807}'],
  ['{"bitnot":9223372036854775807}', '{"resource":-9223372036854775808}'],
  // max / min (setAggregates.ts) keep the operand's type
  ['{"max":[1,2.5]}', '{"resource":2.5}'],
  ['{"max":[3,2.5]}', '{"resource":3}'],
  ['{"min":[9007199254740993,9007199254740992.0]}', '{"resource":9.007199254740992E15}'],
  ['{"max":[9007199254740993,9007199254740992.0]}', '{"resource":9007199254740993}'],
  // errors
  ['{"sqrt":-4}', TYPE_ERROR('-4 must be positive', ['sqrt'])],
  ['{"sqrt":-1.0E-10}', TYPE_ERROR('-1.0E-10 must be positive', ['sqrt'])],
  ['{"sqrt":-9223372036854775808}', TYPE_ERROR('-9223372036854775808 must be positive', ['sqrt'])],
  ['{"acos":1.0000001}', TYPE_ERROR('1.0000001 must be between -1 and 1 inclusive', ['acos'])],
  ['{"asin":{"pow":10,"exp":400}}', TYPE_ERROR('Infinity must be between -1 and 1 inclusive', ['asin'])],
  ['{"log":-0.0}', TYPE_ERROR('-0.0 must be greater than 0', ['log'])],
  ['{"ln":-9223372036854775808}', TYPE_ERROR('-9223372036854775808 must be greater than 0', ['ln'])],
  ['{"abs":"1"}', TYPE_ERROR('Number expected, String provided.', ['abs'])],
  ['{"round":1.5,"precision":1.0}', TYPE_ERROR('Integer expected, Double provided.', ['precision'])],
  ['{"bitand":[1,2,null]}', TYPE_ERROR('Number expected, Null provided.', ['bitand', 2])],
  ['{"bitor":[]}', TYPE_ERROR('Non-empty array expected.', ['bitor'])],
  ['{"pow":2,"exp":"x"}', TYPE_ERROR('Number expected, String provided.', ['exp'])],
];

for (const proto of ['h2', 'h1'] as const) {
  describe(`math functions over ${proto === 'h2' ? 'HTTP/2' : 'HTTP/1.1'}`, () => {
    for (const [label, expr, expected] of VALUES) {
      test(label, async () => {
        assert.deepEqual(await server.drivers[proto].query(expr), expected);
      });
    }

    for (const [label, expr, expected] of ERRORS) {
      test(`error: ${label}`, async () => {
        assert.deepEqual(await failure(server.drivers[proto], expr), {
          status: 400,
          code: 'invalid argument',
          ...expected,
        });
      });
    }

    for (const [body, response] of RAW) {
      test(`raw ${body}`, async () => {
        assert.equal(await rawQuery(server.flora.url, server.flora.secret, body, proto === 'h2'), response);
      });
    }
  });
}
