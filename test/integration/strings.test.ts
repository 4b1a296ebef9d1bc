// String functions (fql-v4.md §3.8) through a real server and the official driver, over HTTP/2
// and HTTP/1.1: every function, Unicode (code points vs UTF-16), Java regex translation, Java
// printf-style Format, and the error texts/positions. Missing required arguments are rejected by
// the driver itself, so those rows go as raw JSON.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, type Expr, type ExprArg } from 'faunadb';
import { httpRequest, serverForFile } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

// A 16 MiB value cap (the default is 64 MiB): the size cases below stay small enough to build quickly.
const server = serverForFile({ env: { FLORA_MAX_VALUE_MB: '16' } });

// The driver's typings declare Format(string, values); at run time it is variadic.
const Format = q.Format as unknown as (fmt: ExprArg, ...values: ExprArg[]) => Expr;

const D = (n: number) => q.ToDouble(n); // the driver sends integral numbers as Longs
const INF = q.Pow(10.5, 400);
const NAN = q.Subtract(INF, INF);
const NEG_ZERO = q.Multiply(-1, 0.5, 0);

const T = q.Time('2019-04-02T20:33:48.123Z');
const EMOJI = '😀'; // one code point, two UTF-16 units
const E_ACUTE = 'e\u0301'; // two code points (e + combining acute)

/** [label, expression, expected driver value] */
const VALUES: [string, ExprArg, unknown][] = [
  // casefold
  ['Casefold default NFKCCaseFold', q.Casefold('Hen Wen'), 'hen wen'],
  ['Casefold full folds', q.Casefold('Straße ẞ ſ ΣΑΣ ς'), 'strasse ss s σασ σ'],
  ['Casefold compatibility forms', q.Casefold('ﬁ Ａ ①'), 'fi a 1'],
  ['Casefold removes default ignorables', q.Casefold('a\u00adb\u200bc'), 'abc'],
  ['Casefold NFC keeps case', q.Casefold('Hen Wen', 'NFC'), 'Hen Wen'],
  ['Casefold NFC composes', q.Casefold(E_ACUTE, 'NFC'), '\u00e9'],
  ['Casefold NFD decomposes', q.Casefold('\u00e9', 'NFD'), E_ACUTE],
  ['Casefold NFKC', q.Casefold('ﬁ①', 'NFKC'), 'fi1'],
  ['Casefold NFKD', q.Casefold('ﬁ\u00e9', 'NFKD'), 'fi' + E_ACUTE],
  ['Casefold explicit NFKCCaseFold', q.Casefold('ABC', 'NFKCCaseFold'), 'abc'],
  ['Casefold non-string passes through', q.Casefold(5), 5],
  ['Casefold list', q.Casefold(['A', 1, 'B']), ['a', 1, 'b']],
  ['Casefold empty list', q.Casefold([]), []],
  ['Casefold one-element list gives one value', q.Casefold(['A']), 'a'],

  // containsstr / startswith / endswith / containsstrregex
  ['ContainsStr', q.ContainsStr('Fauna', 'aun'), true],
  ['ContainsStr missing', q.ContainsStr('Fauna', 'x'), false],
  ['ContainsStr empty search', q.ContainsStr('Fauna', ''), true],
  ['ContainsStr is case sensitive', q.ContainsStr('Fauna', 'fa'), false],
  ['StartsWith', q.StartsWith('Fauna', 'Fa'), true],
  ['StartsWith false', q.StartsWith('Fauna', 'a'), false],
  ['EndsWith', q.EndsWith('Fauna', 'na'), true],
  ['EndsWith false', q.EndsWith('Fauna', 'F'), false],
  ['EndsWith emoji', q.EndsWith('a' + EMOJI, EMOJI), true],
  ['ContainsStrRegex', q.ContainsStrRegex('Fauna', 'a.n'), true],
  ['ContainsStrRegex uses find()', q.ContainsStrRegex('Fauna', '^a'), false],
  ['ContainsStrRegex (?i)', q.ContainsStrRegex('Fauna', '(?i)FAUNA'), true],
  ['ContainsStrRegex ASCII \\s', q.ContainsStrRegex('a\u00a0b', 'a\\sb'), false],
  ['ContainsStrRegex \\h', q.ContainsStrRegex('a\u00a0b', 'a\\hb'), true],
  ['ContainsStrRegex possessive', q.ContainsStrRegex('aaa', 'a++'), true],
  ['ContainsStrRegex atomic group', q.ContainsStrRegex('abc', '(?>ab)c'), true],
  ['ContainsStrRegex literal } and ]', q.ContainsStrRegex('a}b]', '}b]'), true],
  ['ContainsStrRegex escaped quote', q.ContainsStrRegex('say "hi"', '\\"hi\\"'), true],
  ['ContainsStrRegex \\A and \\z', q.ContainsStrRegex('abc', '\\Aabc\\z'), true],
  ['ContainsStrRegex $ before final newline', q.ContainsStrRegex('abc\n', 'c$'), true],
  ['ContainsStrRegex \\z not before newline', q.ContainsStrRegex('abc\n', 'c\\z'), false],
  ['ContainsStrRegex dot excludes \\u0085', q.ContainsStrRegex('a\u0085b', 'a.b'), false],
  ['ContainsStrRegex (?s) dot', q.ContainsStrRegex('a\nb', '(?s)a.b'), true],
  ['ContainsStrRegex octal and hex', q.ContainsStrRegex('AB', '\\0101\\x42'), true],
  ['ContainsStrRegex \\x{…}', q.ContainsStrRegex(EMOJI, '^\\x{1F600}$'), true],
  ['ContainsStrRegex surrogate pair escape', q.ContainsStrRegex(EMOJI, '^\\uD83D\\uDE00$'), true],
  ['ContainsStrRegex POSIX classes', q.ContainsStrRegex('Ab1!', '^\\p{Upper}\\p{Lower}\\p{Digit}\\p{Punct}$'), true],
  ['ContainsStrRegex \\p{Alpha} is ASCII', q.ContainsStrRegex('é', '\\p{Alpha}'), false],
  ['ContainsStrRegex \\p{IsGreek}', q.ContainsStrRegex('αβγ', '^\\p{IsGreek}+$'), true],
  ['ContainsStrRegex \\pL', q.ContainsStrRegex('é', '^\\pL$'), true],
  ['ContainsStrRegex \\P{L}', q.ContainsStrRegex('1', '^\\P{L}$'), true],
  ['ContainsStrRegex intersection', q.ContainsStrRegex('e', '[a-z&&[^aeiou]]'), false],
  ['ContainsStrRegex union', q.ContainsStrRegex('x', '^[a-c[x-z]]$'), true],
  ['ContainsStrRegex leading ] literal', q.ContainsStrRegex(']', '^[]a]$'), true],
  ['ContainsStrRegex \\Q…\\E in a class', q.ContainsStrRegex('-', '^[\\Q^-]\\E]$'), true],
  ['ContainsStrRegex comments mode', q.ContainsStrRegex('ab', '(?x) a  b # trailing comment'), true],
  ['ContainsStrRegex scoped flags', q.ContainsStrRegex('a\nb', '(?s:a.b)'), true],
  ['ContainsStrRegex flags end with their group', q.ContainsStrRegex('a\nb\nc', '((?s)a.b).c'), false],
  ['ContainsStrRegex ReDoS pattern is linear', q.ContainsStrRegex('aaaaaaaaaaaaaaaaaaaaaaaaaaaa!', '(a+)+$'), false],
  ['ContainsStrRegex (a|aa)+$ is linear', q.ContainsStrRegex(q.Concat([q.Repeat('a', 1024), '!']), '(a|aa)+$'), false],
  ['ContainsStrRegex nested quantifiers are linear', q.ContainsStrRegex(q.Repeat('x', 1024), '(x+x+)+y'), false],
  ['ContainsStrRegex (?i) is scoped to its group', q.ContainsStrRegex('AB', '((?i)a)b'), false],
  ['ContainsStrRegex (?i) is ASCII-only', q.ContainsStrRegex('É', '(?i)é'), false],
  ['ContainsStrRegex (?iu) folds Unicode', q.ContainsStrRegex('É', '(?iu)é'), true],
  ['ContainsStrRegex (?U)\\w is Unicode', q.ContainsStrRegex('é', '^(?U)\\w$'), true],
  ['ContainsStrRegex \\p{IsAlphabetic}', q.ContainsStrRegex('é', '^\\p{IsAlphabetic}$'), true],
  ['ContainsStrRegex intersection with a category', q.ContainsStrRegex('É', '^[\\p{L}&&[^a-z]]$'), true],
  ['ContainsStrRegex \\Z before a final terminator', q.ContainsStrRegex('abc\u2028', 'c\\Z'), true],
  ['ContainsStrRegex regexescape round trip', q.ContainsStrRegex('a.b\\Ec', q.RegexEscape('a.b\\Ec')), true],
  ['ContainsStrRegex regexescape is literal', q.ContainsStrRegex('axb', q.RegexEscape('a.b')), false],

  // findstr
  ['FindStr', q.FindStr('fire and fireman', 'fire'), 0],
  ['FindStr start', q.FindStr('fire and fireman', 'fire', 1), 9],
  ['FindStr not found', q.FindStr('fire', 'x'), -1],
  ['FindStr start out of range is 0', q.FindStr('fire fire', 'fire', 100), 0],
  ['FindStr negative start is 0', q.FindStr('fire fire', 'fire', -3), 0],
  ['FindStr counts code points', q.FindStr(`${EMOJI}${EMOJI}x`, 'x'), 2],
  ['FindStr start in code points', q.FindStr(`a${EMOJI}b${EMOJI}`, EMOJI, 2), 3],

  // findstrregex
  [
    'FindStrRegex',
    q.FindStrRegex('fire and fireman', 'fire'),
    [
      { start: 0, end: 3, data: 'fire' },
      { start: 9, end: 12, data: 'fire' },
    ],
  ],
  ['FindStrRegex start', q.FindStrRegex('fire and fireman', 'fire', 2), [{ start: 9, end: 12, data: 'fire' }]],
  ['FindStrRegex num_results', q.FindStrRegex('a1b22c333', '\\d+', 0, 2), [{ start: 1, end: 1, data: '1' }, { start: 3, end: 4, data: '22' }]],
  ['FindStrRegex none', q.FindStrRegex('abc', 'x'), []],
  [
    'FindStrRegex code point offsets',
    q.FindStrRegex(`${EMOJI}ab${EMOJI}ab`, 'ab'),
    [
      { start: 1, end: 2, data: 'ab' },
      { start: 4, end: 5, data: 'ab' },
    ],
  ],
  ['FindStrRegex dot matches a whole emoji', q.FindStrRegex(`${EMOJI}x`, '.'), [{ start: 0, end: 0, data: EMOJI }, { start: 1, end: 1, data: 'x' }]],
  [
    'FindStrRegex empty matches',
    q.FindStrRegex('ab', 'x*'),
    [
      { start: 0, end: -1, data: '' },
      { start: 1, end: 0, data: '' },
      { start: 2, end: 1, data: '' },
    ],
  ],
  ['FindStrRegex (?m)^', q.FindStrRegex('ab\ncd', '(?m)^\\w'), [{ start: 0, end: 0, data: 'a' }, { start: 3, end: 3, data: 'c' }]],
  ['FindStrRegex ^ without (?m)', q.FindStrRegex('ab\ncd', '^\\w'), [{ start: 0, end: 0, data: 'a' }]],
  ['FindStrRegex caps at 1024', q.Count(q.FindStrRegex(q.Repeat('ab', 1024), 'a|b')), 1024],
  ['FindStrRegex $ leaves the final newline out', q.FindStrRegex('abc\n', 'c$'), [{ start: 2, end: 2, data: 'c' }]],
  ['FindStrRegex $ at a final newline and at the end', q.FindStrRegex('a\n', '$'), [{ start: 1, end: 0, data: '' }, { start: 2, end: 1, data: '' }]],
  ['FindStrRegex groups of a long input', q.Count(q.FindStrRegex(q.Repeat('ab ', 1000), '(\\w+)\\s')), 1000],

  // length / case / trim
  ['Length', q.Length('Fauna'), 5],
  ['Length empty', q.Length(''), 0],
  ['Length emoji is one code point', q.Length(EMOJI), 1],
  ['Length combining mark counts', q.Length(E_ACUTE), 2],
  ['LowerCase', q.LowerCase('FaUnA ΣΑΣ'), 'fauna σας'],
  ['UpperCase', q.UpperCase('fauna ß'), 'FAUNA SS'],
  ['TitleCase', q.TitleCase('fire and FIREMAN'), 'Fire And Fireman'],
  ['TitleCase word breaks', q.TitleCase("it's a hello-world, 1st"), "It's A Hello-World, 1st"],
  ['TitleCase special mappings', q.TitleCase('ßa ǆx ﬁx'), 'Ssa ǅx Fix'],
  ['LTrim', q.LTrim(' \t\n x '), 'x '],
  ['RTrim', q.RTrim(' x \t\n'), ' x'],
  ['Trim', q.Trim('  x y  '), 'x y'],
  ['Trim Unicode whitespace', q.Trim('\u00a0\u2003x\u3000'), 'x'],
  ['Trim keeps zero-width space', q.Trim('\u200bx'), '\u200bx'],

  // ngram
  ['NGram defaults', q.NGram('what'), ['w', 'wh', 'h', 'ha', 'a', 'at', 't']],
  ['NGram min = max', q.NGram('what', 2, 2), ['wh', 'ha', 'at']],
  ['NGram 2..3', q.NGram('abcd', 2, 3), ['ab', 'abc', 'bc', 'bcd', 'cd']],
  ['NGram shorter than min', q.NGram('a', 2, 3), []],
  ['NGram code points', q.NGram(`${EMOJI}a`, 1, 1), [EMOJI, 'a']],
  ['NGram list flattens', q.NGram(['ab', 5, 'c'], 1, 1), ['a', 'b', 5, 'c']],
  ['NGram non-string passes through', q.NGram(true), [true]],

  // repeat / space
  ['Repeat default 2', q.Repeat('ab'), 'abab'],
  ['Repeat', q.Repeat('x', 3), 'xxx'],
  ['Repeat 0', q.Repeat('x', 0), ''],
  ['Repeat negative', q.Repeat('x', -1), ''],
  ['Repeat capped at 1024', q.Length(q.Repeat('x', 5000)), 1024],
  ['Space', q.Space(3), '   '],
  ['Space 0', q.Space(0), ''],
  ['Space negative', q.Space(-4), ''],
  ['Space capped at 1024', q.Length(q.Space(2000)), 1024],

  // replace
  ['ReplaceStr', q.ReplaceStr('one fish two fish', 'fish', 'dog'), 'one dog two dog'],
  ['ReplaceStr no match', q.ReplaceStr('abc', 'x', 'y'), 'abc'],
  ['ReplaceStr $ is literal', q.ReplaceStr('abc', 'b', '$&$1'), 'a$&$1c'],
  ['ReplaceStr empty find', q.ReplaceStr(`a${EMOJI}`, '', '-'), `-a-${EMOJI}-`],
  ['ReplaceStrRegex', q.ReplaceStrRegex('one fish two fish', 'f[a-z]+', 'dog'), 'one dog two dog'],
  ['ReplaceStrRegex first', q.ReplaceStrRegex('one fish two fish', 'fish', 'dog', true), 'one dog two fish'],
  ['ReplaceStrRegex first false', q.ReplaceStrRegex('aa', 'a', 'b', false), 'bb'],
  ['ReplaceStrRegex groups', q.ReplaceStrRegex('John Smith', '(\\w+)\\s(\\w+)', '$2, $1'), 'Smith, John'],
  ['ReplaceStrRegex $0', q.ReplaceStrRegex('a.b', '\\.', '[$0]'), 'a[.]b'],
  ['ReplaceStrRegex named group', q.ReplaceStrRegex('abc', '(?<x>b)', '<${x}>'), 'a<b>c'],
  ['ReplaceStrRegex escaped $', q.ReplaceStrRegex('abc', 'b', '\\$\\\\'), 'a$\\c'],
  ['ReplaceStrRegex $10 with one group', q.ReplaceStrRegex('abc', '(b)', '$10'), 'ab0c'],
  ['ReplaceStrRegex unmatched group is empty', q.ReplaceStrRegex('ac', 'a(b)?c', '[$1]'), '[]'],
  ['ReplaceStrRegex empty matches', q.ReplaceStrRegex('abc', '', '-'), '-a-b-c-'],
  ['ReplaceStrRegex empty matches after a match', q.ReplaceStrRegex('abc', 'b*', '-'), '-a--c-'],
  ['ReplaceStrRegex bad replacement without a match', q.ReplaceStrRegex('abc', 'x', '$9'), 'abc'],
  ['ReplaceStrRegex $ before a final newline', q.ReplaceStrRegex('a\n', '$', 'X'), 'aX\nX'],
  ['ReplaceStrRegex group ending at $', q.ReplaceStrRegex('ab cd\n', '(\\w+)$', '<$1>'), 'ab <cd>\n'],
  ['ReplaceStrRegex named group ${name}', q.ReplaceStrRegex('2024-05', '(?<y>\\d+)-(?<m>\\d+)', '${m}/${y}'), '05/2024'],

  // regexescape
  ['RegexEscape', q.RegexEscape('a.b'), '\\Qa.b\\E'],
  ['RegexEscape with \\E', q.RegexEscape('a\\Eb'), '\\Qa\\E\\\\E\\Qb\\E'],

  // substring
  ['SubString from start', q.SubString('ABCDEFG', 2), 'CDEFG'],
  ['SubString with length', q.SubString('ABCDEFG', 2, 3), 'CDE'],
  ['SubString default start', q.SubString('ABC'), 'ABC'],
  ['SubString negative start', q.SubString('ABCDEFGHIJK', -2), 'JK'],
  ['SubString very negative start', q.SubString('ABC', -10, 2), 'AB'],
  ['SubString start = length', q.SubString('ABC', 3), ''],
  ['SubString length past the end', q.SubString('ABC', 1, 100), 'BC'],
  ['SubString length 0', q.SubString('ABC', 1, 0), ''],
  ['SubString code points', q.SubString(`a${EMOJI}bc`, 1, 2), `${EMOJI}b`],
  ['SubString negative start in code points', q.SubString(`a${EMOJI}${EMOJI}`, -2, 1), EMOJI],
  ['SubString splits combining marks', q.SubString(E_ACUTE, 1), '\u0301'],

  // format: strings, booleans, integers
  ['Format %s', Format('%s and %s', 'a', 'b'), 'a and b'],
  ['Format no values', Format('100%% sure%n'), '100% sure\n'],
  ['Format %s scalars', Format('%s %s %s %s %s %s', 1, 2.5, true, null as unknown as ExprArg, 1e21, D(3)), '1 2.5 true null 1.0E21 3.0'],
  ['Format %s time and date', Format('%s %s', T, q.Date('2020-01-02')), '2019-04-02T20:33:48.123Z 2020-01-02'],
  ['Format %S', Format('%S', 'abc'), 'ABC'],
  ['Format width and precision', Format('[%5s][%-5s][%.2s][%5.1s]', 'ab', 'ab', 'abc', 'xyz'), '[   ab][ab   ][ab][    x]'],
  ['Format width counts code points', Format('[%3s]', EMOJI), `[  ${EMOJI}]`],
  ['Format %b', Format('%b %b %b %B', true, null as unknown as ExprArg, 'x', false), 'true false true FALSE'],
  ['Format %d', Format('%d|%5d|%-5d|%05d|%+d|% d|%(d|%,d', 42, 42, 42, -42, 5, 5, -5, 1234567), '42|   42|42   |-0042|+5| 5|(5)|1,234,567'],
  ['Format %x %X %o', Format('%x %X %o %#x %#o %08x', 255, 255, 8, 255, 8, 255), 'ff FF 10 0xff 010 000000ff'],
  ['Format %x of a negative', Format('%x', -1), 'ffffffffffffffff'],
  ['Format positional', Format('%2$s %1$s %<s', 'a', 'b'), 'b a a'],
  ['Format ordinary index ignores explicit ones', Format('%2$s %s %s', 'a', 'b'), 'b a b'],
  ['Format values from an array expression', q.Let({ v: ['x', 'y'] }, Format('%s-%s', q.Var('v'))), 'x-y'],
  ['Format %%  width', Format('[%3%]'), '[  %]'],

  // format: doubles
  ['Format %f', Format('%f', 3.14159), '3.141590'],
  ['Format %.2f rounds half up on decimal digits', Format('%.2f %.2f %.0f', 1.005, 0.125, 0.5), '1.01 0.13 1'],
  ['Format %.20f pads with zeros', Format('%.20f', 0.1), '0.10000000000000000000'],
  ['Format %f flags', Format('%10.3f|%-8.1f|%,.2f|%+.1f|%(.1f|%08.2f', -2.5, 2.5, 1234567.891, D(1), D(-1), -3.14159), '    -2.500|2.5     |1,234,567.89|+1.0|(1.0)|-0003.14'],
  ['Format %f of -0.0', Format('%.1f', NEG_ZERO), '-0.0'],
  ['Format %e', Format('%e %.2e %E %e', 12345.678, 0.000123, 1e100, D(0)), '1.234568e+04 1.23e-04 1.000000E+100 0.000000e+00'],
  ['Format %g', Format('%g %g %g %g %.3g %G', 0.0001, D(123456789), 123.456, D(0), 0.00001234, 1e-5), '0.000100000 1.23457e+08 123.456 0.00000 1.23e-05 1.00000E-05'],
  ['Format non-finite', Format('%f %f %e [%10f] [%-+10e] %(f', NAN, INF, q.Multiply(-1, INF), INF, INF, q.Multiply(-1, INF)), 'NaN Infinity -Infinity [  Infinity] [+Infinity ] (Infinity)'],
  ['Format %E NaN', Format('%E %G', NAN, INF), 'NAN INFINITY'],

  // format: date/time
  ['Format %tF %tT', Format('%1$tF %1$tT.%1$tL', T), '2019-04-02 20:33:48.123'],
  ['Format %t fields', Format('%1$tY|%1$ty|%1$tC|%1$tm|%1$td|%1$te|%1$tj|%1$tH|%1$tI|%1$tk|%1$tl|%1$tM|%1$tS|%1$tN|%1$tp|%1$Tp', T), '2019|19|20|04|02|2|092|20|08|20|8|33|48|123000000|pm|PM'],
  ['Format %t names', Format('%1$tB %1$tb %1$th %1$tA %1$ta %1$TB', T), 'April Apr Apr Tuesday Tue APRIL'],
  ['Format %t composites', Format('%1$tR|%1$tr|%1$tD|%1$tc', T), '20:33|08:33:48 PM|04/02/19|Tue Apr 02 20:33:48 UTC 2019'],
  ['Format %t zone and epoch', Format('%1$tz %1$tZ %1$ts %1$tQ', T), '+0000 UTC 1554237228 1554237228123'],
  ['Format %t on a Date', Format('%1$tF %1$tT %1$tA', q.Date('2020-02-29')), '2020-02-29 00:00:00 Saturday'],
  ['Format %t width', Format('[%-6tY]', T), '[2019  ]'],

  // format: JSON renderings
  ['Format %@', Format('%@', { a: [1, D(2), 'x'] }), '{"a":[1,2.0,"x"]}'],
  ['Format %^', Format('%^ %^', q.Date('2020-01-01'), q.Collection('users')), '{"@date":"2020-01-01"} {"@ref":{"id":"users","collection":{"@ref":{"id":"collections"}}}}'],
  ['Format %@ of a string', Format('%@', 'a"b'), '"a\\"b"'],
];

interface ExpectedError {
  status?: number;
  code?: string;
  description: string;
  position: (string | number)[];
}

const arg = (description: string, position: (string | number)[]): ExpectedError => ({ description, position });

const ERRORS: [string, ExprArg, ExpectedError][] = [
  // argument types
  ['Casefold bad normalizer', q.Casefold('a', 'NFX'), arg("String 'NFKCCaseFold', 'NFC', 'NFD', 'NFKC', or 'NFKD' expected, String provided.", ['normalizer'])],
  ['Casefold normalizer type', q.Casefold('a', 1), arg("String 'NFKCCaseFold', 'NFC', 'NFD', 'NFKC', or 'NFKD' expected, Integer provided.", ['normalizer'])],
  ['ContainsStr value', q.ContainsStr(1, 'a'), arg('String expected, Integer provided.', ['containsstr'])],
  ['ContainsStr search', q.ContainsStr('a', null as unknown as ExprArg), arg('String expected, Null provided.', ['search'])],
  ['ContainsStrRegex pattern', q.ContainsStrRegex('a', 1), arg('String expected, Integer provided.', ['pattern'])],
  ['StartsWith', q.StartsWith(['a'], 'a'), arg('String expected, Array provided.', ['startswith'])],
  ['EndsWith', q.EndsWith('a', true), arg('String expected, Boolean provided.', ['search'])],
  ['FindStr start', q.FindStr('a', 'a', 1.5), arg('Integer expected, Double provided.', ['start'])],
  ['FindStr find', q.FindStr('a', 1), arg('String expected, Integer provided.', ['find'])],
  ['FindStrRegex num_results', q.FindStrRegex('a', 'a', 0, 'x'), arg('Integer expected, String provided.', ['num_results'])],
  ['Length', q.Length(5), arg('String expected, Integer provided.', ['length'])],
  ['LowerCase', q.LowerCase({ a: 1 }), arg('String expected, Object provided.', ['lowercase'])],
  ['UpperCase', q.UpperCase(1.5), arg('String expected, Double provided.', ['uppercase'])],
  ['TitleCase', q.TitleCase(T), arg('String expected, Time provided.', ['titlecase'])],
  ['Trim', q.Trim(null as unknown as ExprArg), arg('String expected, Null provided.', ['trim'])],
  ['LTrim', q.LTrim(1), arg('String expected, Integer provided.', ['ltrim'])],
  ['RTrim', q.RTrim(1), arg('String expected, Integer provided.', ['rtrim'])],
  ['NGram min type', q.NGram('a', 'x'), arg('Integer expected, String provided.', ['min'])],
  ['Repeat value', q.Repeat(1, 2), arg('String expected, Integer provided.', ['repeat'])],
  ['Repeat number', q.Repeat('a', 2.5), arg('Integer expected, Double provided.', ['number'])],
  ['ReplaceStr replace', q.ReplaceStr('a', 'a', 1), arg('String expected, Integer provided.', ['replace'])],
  ['ReplaceStrRegex first', q.ReplaceStrRegex('a', 'a', 'b', 'yes' as unknown as boolean), arg('Boolean expected, String provided.', ['first'])],
  ['RegexEscape', q.RegexEscape(1), arg('String expected, Integer provided.', ['regexescape'])],
  ['Space', q.Space('3'), arg('Integer expected, String provided.', ['space'])],
  ['SubString value', q.SubString(1), arg('String expected, Integer provided.', ['substring'])],
  ['SubString start', q.SubString('abc', '1'), arg('Integer expected, String provided.', ['start'])],
  ['Format string', Format(1), arg('String expected, Integer provided.', ['format'])],
  ['Format %d on a Double', Format('%s %d', 'a', 1.5), arg('Integer expected, Double provided.', ['values', 1])],
  ['Format %x on a String', Format('%x', 'a'), arg('Integer expected, String provided.', ['values'])],
  ['Format %f on a Long', Format('%f', 1), arg('Double expected, Integer provided.', ['values'])],
  ['Format %t on a String', Format('%tY', 'x'), arg('Temporal expected, String provided.', ['values'])],
  ['Format %s of an Object', Format('%s', { a: 1 }), arg('Cannot cast Object to String.', ['values'])],

  // bounds
  ['SubString start past the end', q.SubString('abc', 4), arg('start must be less than or equal to the string length', ['start'])],
  ['SubString negative length', q.SubString('abc', 0, -1), arg('length must be positive', ['length'])],
  ['NGram min 0', q.NGram('abc', 0, 1), arg('min must be greater than 0', ['min'])],
  ['NGram min > max', q.NGram('abc', 3, 2), arg('max must be greater than or equal to min', ['max'])],
  ['NGram max - min > 1', q.NGram('abc', 1, 3), arg('max - min must be less than or equal to 1', ['max'])],
  ['Format too few values', Format('%s %s', 'a'), arg('format specifiers count must be <= arguments size', [])],
  ['Format positional past the end', Format('%3$s', 'a', 'b'), arg('format specifiers count must be <= arguments size', [])],
  ['Format unknown conversion', Format('%q', 'a'), arg("Invalid conversion format 'q'.", ['format'])],
  ['Format dangling %', Format('100%'), arg("Invalid conversion format '%'.", ['format'])],
  ['Format %c is not supported', Format('%c', 65), arg("Invalid conversion format 'c'.", ['format'])],
  ['Format bad date/time suffix', Format('%tq', T), arg("Invalid date/time suffix 'q'.", ['format'])],

  // invalid regexes
  ['regex unclosed group', q.ContainsStrRegex('a', '(ab'), arg('Search pattern /(ab/ is not a valid regular expression.', ['pattern'])],
  ['regex dangling quantifier', q.FindStrRegex('a', '*a'), arg('Search pattern /*a/ is not a valid regular expression.', ['pattern'])],
  ['regex illegal repetition', q.ReplaceStrRegex('a', 'a{', 'b'), arg('Search pattern /a{/ is not a valid regular expression.', ['pattern'])],
  ['regex bad escape', q.ContainsStrRegex('a', '\\y'), arg('Search pattern /\\y/ is not a valid regular expression.', ['pattern'])],
  ['regex bad range', q.ContainsStrRegex('a', '[z-a]'), arg('Search pattern /[z-a]/ is not a valid regular expression.', ['pattern'])],
  ['regex unmatched )', q.ContainsStrRegex('a', 'a)'), arg('Search pattern /a)/ is not a valid regular expression.', ['pattern'])],
  ['regex unknown property', q.ContainsStrRegex('a', '\\p{Nope}'), arg('Search pattern /\\p{Nope}/ is not a valid regular expression.', ['pattern'])],

  // constructs RE2 cannot run (these matched before, with JS RegExps)
  ['regex backreference', q.ContainsStrRegex('abab', '^(ab)\\1$'), arg('Search pattern /^(ab)\\1$/ is not supported: backreferences (\\1) cannot be used; regular expressions run on RE2, which has no backreferences or lookaround.', ['pattern'])],
  ['regex \\11 with one group', q.ContainsStrRegex('aa1', '^(a)\\11$'), arg('Search pattern /^(a)\\11$/ is not supported: backreferences (\\1) cannot be used; regular expressions run on RE2, which has no backreferences or lookaround.', ['pattern'])],
  ['regex ref to a missing group', q.FindStrRegex('a', '\\2a'), arg('Search pattern /\\2a/ is not supported: backreferences (\\2) cannot be used; regular expressions run on RE2, which has no backreferences or lookaround.', ['pattern'])],
  ['regex named backreference', q.ReplaceStrRegex('xx', '^(?<c>x)\\k<c>$', 'y'), arg('Search pattern /^(?<c>x)\\k<c>$/ is not supported: backreferences (\\k<c>) cannot be used; regular expressions run on RE2, which has no backreferences or lookaround.', ['pattern'])],
  ['regex lookahead', q.ContainsStrRegex('ab', 'a(?=b)'), arg('Search pattern /a(?=b)/ is not supported: lookahead (?=…) cannot be used; regular expressions run on RE2, which has no backreferences or lookaround.', ['pattern'])],
  ['regex negative lookahead', q.FindStrRegex('ab', 'a(?!c)'), arg('Search pattern /a(?!c)/ is not supported: negative lookahead (?!…) cannot be used; regular expressions run on RE2, which has no backreferences or lookaround.', ['pattern'])],
  ['regex lookbehind', q.ReplaceStrRegex('ab', '(?<=a)b', 'x'), arg('Search pattern /(?<=a)b/ is not supported: lookbehind (?<=…) cannot be used; regular expressions run on RE2, which has no backreferences or lookaround.', ['pattern'])],
  ['regex negative lookbehind', q.ContainsStrRegex('ab', '(?<!c)b'), arg('Search pattern /(?<!c)b/ is not supported: negative lookbehind (?<!…) cannot be used; regular expressions run on RE2, which has no backreferences or lookaround.', ['pattern'])],
  ['regex \\G', q.FindStrRegex('aa', '\\Ga'), arg('Search pattern /\\Ga/ is not supported: \\G (the end of the previous match) cannot be used; regular expressions run on RE2, which has no \\G.', ['pattern'])],
  ['regex \\X', q.ContainsStrRegex('a', '\\X'), arg('Search pattern /\\X/ is not supported: \\X (grapheme clusters) cannot be used; regular expressions run on RE2, which has no grapheme clusters.', ['pattern'])],
  ['regex Unicode block', q.ContainsStrRegex('α', '\\p{InGreek}'), arg('Search pattern /\\p{InGreek}/ is not supported: Unicode blocks (\\p{InGreek}) cannot be used; use a script such as \\p{IsGreek}.', ['pattern'])],
  ['regex repetition above 1000', q.ContainsStrRegex('a', 'a{1001}'), arg('Search pattern /a{1001}/ is not supported: repetition counts above 1000 ({1001}) cannot be used; regular expressions run on RE2, which allows at most 1000.', ['pattern'])],
  ['regex syntax error wins over lookahead', q.ContainsStrRegex('a', '(?=a)(b'), arg('Search pattern /(?=a)(b/ is not a valid regular expression.', ['pattern'])],

  // Java replacement errors
  ['replacement missing group', q.ReplaceStrRegex('abc', 'b', '$2'), arg('No group 2', ['replace'])],
  ['replacement trailing $', q.ReplaceStrRegex('abc', 'b', 'x$'), arg('Illegal group reference: group index is missing', ['replace'])],

  // nested positions
  ['error inside a nested call', q.Length(q.UpperCase(1)), arg('String expected, Integer provided.', ['length', 'uppercase'])],
];

/** Raw bodies: missing required arguments are not a form at all. */
const RAW: [body: string, keys: string][] = [
  ['{"containsstr":"abc"}', 'containsstr'],
  ['{"containsstrregex":"abc"}', 'containsstrregex'],
  ['{"startswith":"abc"}', 'startswith'],
  ['{"endswith":"abc"}', 'endswith'],
  ['{"findstr":"abc"}', 'findstr'],
  ['{"findstrregex":"abc","start":1}', 'findstrregex, start'],
  ['{"replacestr":"abc","find":"a"}', 'replacestr, find'],
  ['{"replacestrregex":"abc","pattern":"a","first":true}', 'replacestrregex, pattern, first'],
  ['{"substring":"abc","begin":1}', 'substring, begin'],
  ['{"casefold":"abc","normaliser":"NFC"}', 'casefold, normaliser'],
];

for (const proto of ['h2', 'h1'] as const) {
  describe(`strings over ${proto === 'h2' ? 'HTTP/2' : 'HTTP/1.1'}`, () => {
    for (const [label, expr, expected] of VALUES) {
      test(label, async () => {
        assert.deepEqual(await server.drivers[proto].query(expr), expected);
      });
    }

    for (const [label, expr, expected] of ERRORS) {
      test(`error: ${label}`, async () => {
        const f = await failure(server.drivers[proto], expr);
        assert.deepEqual(
          { status: f.status, code: f.code, description: f.description, position: f.position },
          {
            status: expected.status ?? 400,
            code: expected.code ?? 'invalid argument',
            description: expected.description,
            position: expected.position,
          },
        );
      });
    }

    for (const [body, keys] of RAW) {
      test(`missing argument: ${body}`, async () => {
        const res = await httpRequest(server.flora.url, {
          method: 'POST',
          path: '/',
          http2: proto === 'h2',
          headers: { authorization: `Bearer ${server.flora.secret}`, 'x-faunadb-api-version': '4' },
          body,
        });
        assert.equal(res.status, 400);
        assert.deepEqual(JSON.parse(res.body), {
          errors: [
            {
              position: [],
              code: 'invalid expression',
              description: `No form/function found, or invalid argument keys: { ${keys} }.`,
            },
          ],
        });
      });
    }

    test('Long and Double stay distinct in results', async () => {
      const res = await httpRequest(server.flora.url, {
        method: 'POST',
        http2: proto === 'h2',
        headers: { authorization: `Bearer ${server.flora.secret}`, 'x-faunadb-api-version': '4' },
        body: '[{"length":"ab"},{"findstr":"ab","find":"b"},{"findstrregex":"ab","pattern":"b"}]',
      });
      assert.equal(res.body, '{"resource":[2,1,[{"start":1,"end":1,"data":"b"}]]}');
    });
  });
}

describe('regular expressions run in linear time', () => {
  for (const [label, input] of [
    ['the ReDoS input', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa!'],
    ['100 KB of it', q.Concat([q.Repeat(q.Repeat('a', 1024), 100), '!'])],
  ] as [string, ExprArg][]) {
    test(`(a+)+$ on ${label} answers false while /ping is answered`, async () => {
      const query = server.drivers.h2.query(q.ContainsStrRegex(input, '(a+)+$'));
      const ping = httpRequest(server.flora.url, { path: '/ping' });
      const [result, pong] = await Promise.all([query, ping]);
      assert.equal(result, false);
      assert.equal(pong.status, 200);
    });
  }
});

// --- cost and size: no string function is super-linear or builds past the value cap -----------

const CAP = 16 * 1024 * 1024; // the value cap this file's server runs with
const tooLarge = (bytes: number) => `Value exceeds the size limit: got ${bytes} bytes, limit ${CAP} bytes`;
/** n KiB (or MiB) of `unit`, built in the query: Repeat multiplies by at most 1024. */
const kib = (unit: string, n: number): Expr => q.Repeat(q.Repeat(unit, 1024), n);
const mib = (unit: string, n: number): Expr => q.Concat(Array.from({ length: n }, () => kib(unit, 1024)));

describe('string functions refuse results over the value cap (and searches over the compute limit)', () => {
  const LIMITED: [string, ExprArg, string | RegExp][] = [
    ['Format width past V8 string length (was 500)', Format('%9999999999d', 1), tooLarge(9999999999)],
    ['Format width of 100 MB', Format('%100000000d', 1), tooLarge(100000000)],
    ['Format width with 30 digits', Format(`%${'9'.repeat(30)}s`, 'x'), tooLarge(Number.MAX_SAFE_INTEGER)],
    ['Format precision of 100 MB', Format('%.100000000f', 1.5), tooLarge(100000000)],
    ['Format pieces adding up past the cap', Format('%9000000s%9000000s', 'a', 'b'), tooLarge(18000000)],
    // The argument list [a, a] is itself a value the query builds: as JSON it passes the cap first.
    ['Concat doubling (was 500 Invalid string length)', q.Reduce(q.Lambda(['a', 'x'], q.Concat([q.Var('a'), q.Var('a')])), 'ab', Array.from({ length: 40 }, (_, i) => i)), tooLarge(2 + 2 * (2 ** 23 + 3))],
    ['Concat with a separator', q.Concat([mib('a', 9), mib('b', 7)], 'x'), tooLarge(2 + 9 * 1024 * 1024 + 3 + 7 * 1024 * 1024 + 3)],
    // Parts that fit as a list (16 MiB − 8 characters), joined with a 10-character separator: 2 past the cap.
    ['Concat of parts that fit, past the cap with its separator', q.Concat([mib('a', 9), q.SubString(mib('b', 7), 8)], 'x'.repeat(10)), tooLarge(CAP + 2)],
    ['NGram quadratic in min/max', q.NGram(kib('a', 64), 30000, 30001), tooLarge(35537 * 30000 + 35536 * 30001)],
    ['Repeat of a 1 MB string', q.Repeat(kib('a', 1024), 17), tooLarge(17 * 1024 * 1024)],
    ['ReplaceStr multiplying its input', q.ReplaceStr(q.Repeat('a', 1024), 'a', kib('b', 1024)), tooLarge(1024 + 1024 * (1024 * 1024 - 1))],
    ['ReplaceStr with an empty find', q.ReplaceStr(q.Repeat('a', 1024), '', kib('b', 1024)), tooLarge(1024 + 1025 * 1024 * 1024)],
    ['ReplaceStrRegex multiplying its input', q.ReplaceStrRegex(q.Repeat('a', 1024), 'a', kib('b', 1024)), tooLarge(17 * 1024 * 1024)],
    ['UpperCase doubling ß', q.UpperCase(mib('ß', 9)), /^Value exceeds the size limit: got \d+ bytes, limit 16777216 bytes$/],
    ['Casefold doubling ß', q.Casefold(mib('ß', 9)), /^Value exceeds the size limit: got \d+ bytes, limit 16777216 bytes$/],
    ['a regex search costing more than the compute limit', q.ContainsStrRegex(kib('a', 256), '[ab]{1000}c'), /^Transaction does too much compute: got \d+, limit: 12000$/],
    ['TitleCase growing past the cap (İ lowercases to two units)', q.TitleCase(q.Concat(['a', mib('İ', 9)])), tooLarge(1 + 2 * 9 * 1024 * 1024)],
  ];
  for (const [label, expr, description] of LIMITED)
    test(label, async () => {
      const f = await failure(server.drivers.h2, expr);
      assert.equal(f.status, 400);
      assert.equal(f.code, 'bad request');
      if (typeof description === 'string') assert.equal(f.description, description);
      else assert.match(f.description, description);
    });

  test('Format within the cap still pads', async () => {
    assert.equal(await server.drivers.h2.query(q.Length(Format('%1000000d', 7))), 1000000);
  });
});

describe('string functions stay linear on large inputs', () => {
  // Each of these took from seconds to minutes before (quadratic); results are compared in the
  // query so that megabytes do not travel back.
  const LARGE: [string, ExprArg][] = [
    ['TitleCase of 2 MB of words', q.Equals(q.TitleCase(kib('word ', 400)), kib('Word ', 400))],
    ['TitleCase of mixed text', q.Equals(q.TitleCase(kib("it's a hello-world, 1st ŉx ", 20)), kib("It's A Hello-World, 1st ʼNx ", 20))],
    ['TitleCase without spaces', q.Equals(q.TitleCase(kib('ab,cd;', 100)), kib('Ab,Cd;', 100))],
    ['TitleCase of one long word', q.Equals(q.TitleCase(kib('aB', 512)), q.Concat(['A', q.SubString(kib('ab', 512), 1)]))],
    ['RTrim of 1 MB of spaces before an x', q.Equals(q.Length(q.RTrim(q.Concat([kib(' ', 1024), 'x']))), 1024 * 1024 + 1)],
    ['LTrim of an x before 1 MB of spaces', q.Equals(q.Length(q.LTrim(q.Concat(['x', kib(' ', 1024)]))), 1024 * 1024 + 1)],
    ['Trim of 2 MB of spaces around an x', q.Equals(q.Trim(q.Concat([kib('\u3000', 1024), 'x', kib(' ', 1024)])), 'x')],
    ['ContainsStr of a periodic needle', q.Equals(q.ContainsStr(kib('a', 1024), q.Concat([kib('a', 4), 'b', kib('a', 4)])), false)],
    ['FindStr of a periodic needle', q.Equals(q.FindStr(q.Concat([kib('a', 1024), 'b', kib('a', 4)]), q.Concat([kib('a', 4), 'b', kib('a', 4)])), 1020 * 1024)],
    ['ReplaceStr of a periodic needle', q.Equals(q.Length(q.ReplaceStr(kib('a', 1024), q.Concat([kib('a', 4), 'b']), 'x')), 1024 * 1024)],
    ['ReplaceStr of many matches', q.Equals(q.ReplaceStr(kib('ab', 1024), 'b', 'c'), kib('ac', 1024))],
    ['Casefold of 2 MB', q.Equals(q.Casefold(kib('Straße ', 300)), kib('strasse ', 300))],
    ['UpperCase of 2 MB', q.Equals(q.UpperCase(kib('straße ', 300)), kib('STRASSE ', 300))],
    ['LowerCase keeps final sigma across pieces', q.Equals(q.LowerCase(kib('ΟΔΟΣ ', 300)), kib('οδος ', 300))],
    ['SubString of 2 MB', q.Equals(q.SubString(kib('ab', 1024), 1, 3), 'bab')],
    ['NGram of 64 KB', q.Equals(q.Count(q.NGram(kib('ab', 32))), 2 * 65536 - 1)],
    ['FindStrRegex over 1 MB', q.Equals(q.Count(q.FindStrRegex(kib('ab ', 342), '(\\w+)\\s')), 1024)],
    ['ReplaceStrRegex over 512 KB', q.Equals(q.ReplaceStrRegex(kib('ab ', 171), 'b\\s', 'c'), kib('ac', 171))],
  ];
  for (const [label, expr] of LARGE)
    test(label, async () => {
      assert.equal(await server.drivers.h2.query(expr), true);
    });

  test('TitleCase of 1 MB is answered while /ping is', async () => {
    const query = server.drivers.h2.query(q.Length(q.TitleCase(kib('word ', 200))));
    const pong = await httpRequest(server.flora.url, { path: '/ping' });
    assert.equal(pong.status, 200);
    assert.equal(await query, 200 * 1024 * 5);
  });
});
