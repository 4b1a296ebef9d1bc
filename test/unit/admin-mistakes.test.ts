// Where the query editor marks a mistake (src/admin/mistakes.ts): positions from an FQL v10 summary,
// and the highlighted pieces with the mistake's stretch marked.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { highlightPieces } from '../../src/admin/highlight';
import { markMistake, offsetOf, summaryMistake } from '../../src/admin/mistakes';

test('a line and column (code points) as an offset; past the end, the end', () => {
  assert.equal(offsetOf('ab\ncd', 2, 2), 4);
  assert.equal(offsetOf('😀x', 1, 2), 2, 'an astral character is one column, two units');
  assert.equal(offsetOf('ab', 5, 1), 2);
  assert.equal(offsetOf('ab\ncd', 1, 9), 2, 'a column past the line stops at its end');
});

test("a v10 summary's first position, its length from the carets", () => {
  const summary = 'error: Query aborted.\nat *query*:1:6\n  |\n1 | abort("no")\n  |      ^^^^^^\n  |';
  assert.deepEqual(summaryMistake('abort("no")', summary), { offset: 5, length: 6 });
  assert.deepEqual(summaryMistake('1 +', 'error: Expected expression\nat *query*:1:4\n  |\n1 | 1 +\n  |    ^\n  |'), { offset: 3, length: 1 });
  assert.equal(summaryMistake('x', 'error: no position'), null);
});

test('the pieces with the stretch marked: split where it starts and ends; at the end or a line break, a marked space', () => {
  const text = (pieces: ReturnType<typeof markMistake>) => pieces.map((p) => (p.mistake ? `[${p.text}]` : p.text)).join('');
  assert.equal(text(markMistake(highlightPieces('abort("no")'), { offset: 5, length: 6 })), 'abort[(]["no"][)]');
  assert.equal(text(markMistake(highlightPieces('Add(1, 2)'), { offset: 5, length: 1 })), 'Add(1[,] 2)');
  assert.equal(text(markMistake(highlightPieces('1 +'), { offset: 3, length: 1 })), '1 +[ ]');
  assert.equal(text(markMistake(highlightPieces('a\nb'), { offset: 1, length: 1 })), 'a[ ]\nb');
  assert.equal(markMistake(highlightPieces('"ab"'), { offset: 1, length: 1 }).map((p) => p.kind).join(), 'string,string,string', 'the split parts keep their colour');
});
