// Java regex → RE2 translation (src/regex): the RE2 source it produces, what the result
// matches (through re2js, with Java group numbering and `$` handling), what it refuses and why,
// and the code-point set algebra underneath.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS, RegexSyntaxError, RegexUnsupported, translateJavaRegex } from '../../src/regex/javaRegex';
import { RegexMatcher, compileJavaRegex } from '../../src/regex/re2';
import {
  caseFold,
  complement,
  contains,
  intersect,
  jsClassRanges,
  normalize,
  re2Class,
  union,
} from '../../src/regex/charSets';

/** Every match of `pattern` in `input` as Java's Matcher.find() loop reports them: [start, end, text]. */
function findAll(pattern: string, input: string): [number, number, string][] {
  const rx = compileJavaRegex(pattern);
  const m = new RegexMatcher(rx, input);
  const out: [number, number, string][] = [];
  let from = 0;
  while (out.length < 100 && m.find(from)) {
    out.push([m.start, m.end, input.slice(m.start, m.end)]);
    if (m.end > m.start) from = m.end;
    else if (m.start >= input.length) break;
    else from = m.start + 1;
  }
  return out;
}

function matches(pattern: string, input: string): boolean {
  return compileJavaRegex(pattern).re.test(input);
}

describe('RE2 source', () => {
  const cases: [string, string][] = [
    ['abc', 'abc'],
    ['a.b', 'a[^\\x{a}\\x{d}\\x{85}\\x{2028}-\\x{2029}]b'],
    ['(?s).', '[\\x{0}-\\x{10ffff}]'],
    ['(?d).', '[^\\x{a}]'],
    ['^a', '\\Aa'],
    ['(?m)^a$', '(?m:^)a(?m:$)'],
    ['a$', 'a(?:(\\r\\n|[\\n\\r\\x{85}\\x{2028}\\x{2029}])?\\z)'],
    ['(?d)a$', 'a(?:(\\n)?\\z)'],
    ['a\\Z', 'a(?:(\\r\\n|[\\n\\r\\x{85}\\x{2028}\\x{2029}])?\\z)'],
    ['a$\\n', 'a\\z\\x{a}'],
    ['\\Aa\\z', '\\Aa\\z'],
    ['\\d\\D', '[\\x{30}-\\x{39}][^\\x{30}-\\x{39}]'],
    ['\\s', '[\\x{9}-\\x{d}\\x{20}]'],
    ['(?i)a1', '[\\x{41}\\x{61}]1'],
    ['(?iu)k', '[\\x{4b}\\x{6b}\\x{212a}]'],
    ['a(?i:b)c', 'a(?:[\\x{42}\\x{62}])c'],
    ['(?i)a(?-i)b', '[\\x{41}\\x{61}]b'],
    ['(a)(?:b)(?<n>c)', '(a)(?:b)(?P<n>c)'],
    ['a*+b++c?+d{2}+', 'a*b+c?d{2}'],
    ['a*?b+?c??d{1,3}?e{2,}', 'a*?b+?c??d{1,3}?e{2,}'],
    ['(?>ab)', '(?:ab)'],
    ['\\Q.*\\E', '\\x{2e}\\x{2a}'],
    ['[a-c&&[b-d]]', '[\\x{62}-\\x{63}]'],
    ['[^\\pL]', '[^\\p{L}]'],
    ['\\p{Lu}', '\\p{Lu}'],
    ['[\\p{Lu}x]', '[\\x{78}\\p{Lu}]'],
    ['(?x) a b # comment\n c', 'abc'],
    ['\\x{1F600}\\u0041\\0101\\cA\\e', '\\x{1f600}AA\\x{1}\\x{1b}'],
    ['\\R', '(?:\\x{d}\\x{a}|[\\x{a}-\\x{d}\\x{85}\\x{2028}-\\x{2029}])'],
    ['^*', '(?:\\A)*'],
  ];
  for (const [java, re2] of cases)
    test(JSON.stringify(java), () => {
      assert.equal(translateJavaRegex(java).source, re2);
    });

  test('group numbering skips the hidden `$` groups', () => {
    const t = translateJavaRegex('(a$)|(b)(?<x>c)');
    assert.equal(t.groups, 3);
    assert.deepEqual(t.re2Groups, [0, 1, 3, 4]);
    assert.deepEqual(t.endGroups, [2]);
    assert.deepEqual([...t.names], [['x', 3]]);
  });
});

describe('matching', () => {
  const cases: [string, string, [number, number, string][]][] = [
    ['(a+)+$', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa!', []],
    ['(a|aa)+$', 'a'.repeat(40) + '!', []],
    ['c$', 'abc\n', [[2, 3, 'c']]],
    ['c$', 'abc\r\n', [[2, 3, 'c']]],
    ['c$', 'abc\n\n', []],
    ['c\\z', 'abc\n', []],
    ['c\\Z', 'abc\u2028', [[2, 3, 'c']]],
    ['(?d)c$', 'abc\r', []],
    ['$', 'a\n', [[1, 1, ''], [2, 2, '']]],
    ['^\\s*$', '  \n', [[0, 3, '  \n']]],
    ['^ *$', '  \n', [[0, 2, '  ']]],
    ['x*', 'ab', [[0, 0, ''], [1, 1, ''], [2, 2, '']]],
    ['b*', 'abc', [[0, 0, ''], [1, 2, 'b'], [2, 2, ''], [3, 3, '']]],
    ['(?m)^\\w', 'ab\ncd', [[0, 1, 'a'], [3, 4, 'c']]],
    ['^\\w', 'ab\ncd', [[0, 1, 'a']]],
    ['a.b', 'a\u0085b a\nb axb', [[8, 11, 'axb']]],
    ['(?s)a.b', 'a\nb', [[0, 3, 'a\nb']]],
    ['.', '😀x', [[0, 2, '😀'], [2, 3, 'x']]],
    ['(?i)straße', 'STRASSE Straße STRAßE', [[8, 14, 'Straße'], [15, 21, 'STRAßE']]],
    ['(?i)é', 'É', []],
    ['(?iu)é', 'É', [[0, 1, 'É']]],
    ['(?i)[a-c]+', 'xAbCd', [[1, 4, 'AbC']]],
    ['(?i)[^a]', 'aAb', [[2, 3, 'b']]],
    ['a(?i)b|c', 'aB C', [[0, 2, 'aB'], [3, 4, 'C']]],
    ['((?i)a)b', 'AB Ab', [[3, 5, 'Ab']]],
    ['\\w+', 'héllo', [[0, 1, 'h'], [2, 5, 'llo']]],
    ['(?U)\\w+', 'héllo', [[0, 5, 'héllo']]],
    ['\\p{IsAlphabetic}+', 'abc1é', [[0, 3, 'abc'], [4, 5, 'é']]],
    ['\\p{IsWhite_Space}', 'a\u00a0b', [[1, 2, '\u00a0']]],
    ['[\\p{L}&&[^a-z]]+', 'abcÉÀdef', [[3, 5, 'ÉÀ']]],
    ['[a-z&&[^aeiou]]+', 'hello', [[0, 1, 'h'], [2, 4, 'll']]],
    ['\\p{IsGreek}+', 'abc αβγ', [[4, 7, 'αβγ']]],
    ['\\p{sc=Grek}', 'α', [[0, 1, 'α']]],
    ['\\p{javaLowerCase}', 'Aa', [[1, 2, 'a']]],
    ['\\pC', '\u0378', [[0, 1, '\u0378']]],
    ['[\\Q^-]\\E]', '-', [[0, 1, '-']]],
    ['\\h\\v', '\u00a0\u2028', [[0, 2, '\u00a0\u2028']]],
    ['\\R', 'a\r\nb', [[1, 3, '\r\n']]],
    ['a++a', 'aaa', [[0, 3, 'aaa']]],
    ['\\bfoo\\b', 'a foo b foobar', [[2, 5, 'foo']]],
    ['(?i)\\p{Lower}', 'aAé', [[0, 1, 'a'], [1, 2, 'A']]],
    ['(?i)\\p{Lu}', 'aAéǅ1', [[0, 1, 'a'], [1, 2, 'A'], [2, 3, 'é'], [3, 4, 'ǅ']]],
    ['(?i)\\P{javaUpperCase}', 'aA1', [[2, 3, '1']]],
    ['(?iU)\\p{Lower}', 'É1', [[0, 1, 'É']]],
  ];
  for (const [pattern, input, expected] of cases)
    test(`${JSON.stringify(pattern)} in ${JSON.stringify(input.slice(0, 20))}`, () => {
      assert.deepEqual(findAll(pattern, input), expected);
    });

  test('groups in Java numbering; `$` takes the terminator back out of groups too', () => {
    const m = new RegexMatcher(compileJavaRegex('(\\w+)(\\.?$)|(x)'), 'ab cd\n');
    assert.ok(m.find(0));
    assert.deepEqual([m.start, m.end], [3, 5]);
    assert.equal(m.group(1), 'cd');
    assert.equal(m.group(2), '');
    assert.equal(m.group(3), undefined);
  });

  test('find() from an index sees the text before it', () => {
    const m = new RegexMatcher(compileJavaRegex('\\bb|^b'), 'ab b');
    assert.ok(m.find(1));
    assert.equal(m.start, 3);
  });

  test('the ReDoS pattern is linear', () => {
    assert.equal(matches('(a+)+$', 'a'.repeat(100_000) + '!'), false);
    assert.equal(matches('(x+x+)+y', 'x'.repeat(100_000)), false);
  });
});

describe('errors', () => {
  const invalid = ['(ab', '*a', 'a{', 'a{x}', 'a{3,2}', '\\y', '[z-a]', 'a)', '[a', '\\p{Nope}', '\\p{Greek}', '(?<1a>x)', '(?<a>x)(?<a>y)', '\\k<zz>', '(?q)', 'a**', '\\', '\\x{110000}', '[\\1]'];
  for (const p of invalid)
    test(`invalid: ${JSON.stringify(p)}`, () => {
      assert.throws(() => translateJavaRegex(p), RegexSyntaxError);
    });

  const refused: [string, string][] = [
    ['(a)\\1', 'backreferences (\\1) cannot be used; regular expressions run on RE2, which has no backreferences or lookaround'],
    ['^(a)\\11$', 'backreferences (\\1) cannot be used'],
    ['(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10', 'backreferences (\\10) cannot be used'],
    ['\\2a', 'backreferences (\\2) cannot be used'],
    ['(?<c>x)\\k<c>', 'backreferences (\\k<c>) cannot be used'],
    ['a(?=b)', 'lookahead (?=…) cannot be used'],
    ['a(?!b)', 'negative lookahead (?!…) cannot be used'],
    ['(?<=a)b', 'lookbehind (?<=…) cannot be used'],
    ['(?<!a)b', 'negative lookbehind (?<!…) cannot be used'],
    ['\\Ga', '\\G (the end of the previous match) cannot be used'],
    ['\\X', '\\X (grapheme clusters) cannot be used'],
    ['\\N{LATIN SMALL LETTER A}', 'named characters (\\N{LATIN SMALL LETTER A}) cannot be used'],
    ['\\b{g}', '\\b{g} boundaries cannot be used'],
    ['\\p{InGreek}', 'Unicode blocks (\\p{InGreek}) cannot be used'],
    ['a{1001}', 'repetition counts above 1000 ({1001}) cannot be used'],
    ['(a{2}){501}', 'nested repetitions counting more than 1000 in all (…{501}) cannot be used'],
    ['(?:a{1000}b{1000}){0,10}', 'nested repetitions'],
    ['(?:(?:(?:(?:(?:(?:a{1000})*){1000}))))', 'nested repetitions'],
    ['('.repeat(300) + ')'.repeat(300), 'groups and classes nested deeper than 250'],
    ['a{1000}'.repeat(25), 'the pattern is too large'],
    ['a'.repeat(LIMITS.patternLength + 1), 'patterns longer than'],
  ];
  for (const [p, message] of refused)
    test(`refused: ${JSON.stringify(p.slice(0, 40))}`, () => {
      assert.throws(
        () => translateJavaRegex(p),
        (e: unknown) => e instanceof RegexUnsupported && e.message.startsWith(message),
      );
    });

  test('a syntax error wins over an unsupported construct', () => {
    assert.throws(() => translateJavaRegex('(?=a)(b'), RegexSyntaxError);
  });

  test('every valid Java construct either translates or is refused, never a JS error', () => {
    for (const p of ['[[[[a]]]]', '[a&&]', '[&&a]', '(?)', '(?-)x', '[^]]', '\\Q', '\\Qab', '[\\Qab\\E-z]', '(?x)[ a ]'])
      try {
        translateJavaRegex(p);
      } catch (e) {
        assert.ok(e instanceof RegexSyntaxError || e instanceof RegexUnsupported, `${p}: ${String(e)}`);
      }
  });
});

describe('code-point sets', () => {
  test('union, intersection, complement', () => {
    const a = normalize([5, 10, 0, 2, 3, 3]);
    assert.deepEqual(a, [0, 3, 5, 10]);
    assert.deepEqual(union(a, [4, 4]), [0, 10]);
    assert.deepEqual(intersect(a, [2, 6]), [2, 3, 5, 6]);
    assert.deepEqual(complement(a), [4, 4, 11, 0x10ffff]);
    assert.deepEqual(complement(complement(a)), a);
    assert.equal(contains(a, 7), true);
    assert.equal(contains(a, 4), false);
    assert.equal(re2Class([]), '[^\\x{0}-\\x{10ffff}]');
  });

  test('case folding: ASCII only, or Unicode orbits', () => {
    assert.deepEqual(caseFold([0x61, 0x61], false), [0x41, 0x41, 0x61, 0x61]);
    assert.deepEqual(caseFold([0xe9, 0xe9], false), [0xe9, 0xe9]);
    assert.deepEqual(caseFold([0xe9, 0xe9], true), [0xc9, 0xc9, 0xe9, 0xe9]);
    assert.deepEqual(caseFold([0x73, 0x73], true), [0x53, 0x53, 0x73, 0x73, 0x17f, 0x17f]);
    assert.deepEqual(caseFold([0x3c3, 0x3c3], true), [0x3a3, 0x3a3, 0x3c2, 0x3c3]);
  });

  test('properties come from V8 and cover every plane', () => {
    assert.deepEqual(
      jsClassRanges('\\p{White_Space}'),
      [0x09, 0x0d, 0x20, 0x20, 0x85, 0x85, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000],
    );
    const nonchars = jsClassRanges('\\p{Noncharacter_Code_Point}');
    assert.equal(contains(nonchars, 0x5fffe), true);
    assert.equal(contains(nonchars, 0x10ffff), true);
    assert.equal(contains(nonchars, 0x5fffd), false);
    const co = jsClassRanges('\\p{Co}');
    assert.equal(contains(co, 0xf0000), true);
    assert.equal(contains(co, 0xffffd), true);
    assert.equal(contains(co, 0xffffe), false);
    const cn = jsClassRanges('\\p{Cn}');
    assert.equal(contains(cn, 0x50000), true);
    assert.equal(contains(cn, 0xd800), false);
    assert.throws(() => jsClassRanges('\\p{NoSuchProperty}'), SyntaxError);
  });
});
