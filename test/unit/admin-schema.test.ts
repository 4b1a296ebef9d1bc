// The dashboard's FSL scan (src/admin/fslText.ts): the colours of a schema file and a collection's
// definition cut out of one, tested here without a browser.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectionDefinition, fslPieces } from '../../src/admin/fslText';

/** The generated main.fsl of a database with a collection made by Collection.create and one by v4. */
const GENERATED =
  '// The following schema is auto-generated.\n// This file contains FSL for FQL10-compatible schema items.\n\n' +
  'collection Made {\n  index byName {\n    terms [.name]\n  }\n  history_days 30\n}\n\ncollection old4 {\n  history_days 30\n}\n';

test('fslPieces covers the text and colours keywords, annotations, strings, comments and numbers', () => {
  const text = '@role(admin)\nfunction f(x: String): String { "a#{ "}" }b" /* c /* d */ e */ } // end\ncollection C { ttl_days 7; check ok (_ => true) }\n';
  const pieces = fslPieces(text);
  assert.equal(pieces.map((p) => p.text).join(''), text);
  const kinds = pieces.filter((p) => p.kind !== 'plain' && p.kind !== 'punct').map((p) => `${p.kind}:${p.text}`);
  assert.deepEqual(kinds, [
    'fn:@role', 'name:admin', 'fn:function', 'name:f', 'name:x', 'name:String', 'name:String', 'string:"a#{ "}" }b"',
    'comment:/* c /* d */ e */', 'comment:// end', 'fn:collection', 'name:C', 'fn:ttl_days', 'number:7', 'fn:check', 'name:ok',
    'name:_', 'literal:true',
  ]);
});

test('fslPieces reads a heredoc and an unfinished string to their end', () => {
  const heredoc = 'function g() {\n  <<-END\n    } not a brace\n  END\n}\n';
  assert.equal(fslPieces(heredoc).find((p) => p.kind === 'string')?.text, '<<-END\n    } not a brace\n  END');
  assert.deepEqual(fslPieces('x "abc').at(-1), { text: '"abc', kind: 'string' });
});

test('collectionDefinition cuts one collection out of a file, nested blocks included', () => {
  assert.equal(collectionDefinition(GENERATED, 'Made'), 'collection Made {\n  index byName {\n    terms [.name]\n  }\n  history_days 30\n}');
  assert.equal(collectionDefinition(GENERATED, 'old4'), 'collection old4 {\n  history_days 30\n}');
  assert.equal(collectionDefinition(GENERATED, 'Mad'), null);
});

test('collectionDefinition skips names in comments, strings and inner blocks, and reads backquoted names', () => {
  const text =
    '// collection Pets { not this }\nrole r {\n  privileges Pets { read }\n}\n' +
    'collection `Pets` {\n  compute tag: String = (_ => "}")\n  check c ((d) => d != null)\n}\n';
  assert.equal(collectionDefinition(text, 'Pets'), 'collection `Pets` {\n  compute tag: String = (_ => "}")\n  check c ((d) => d != null)\n}');
  assert.equal(collectionDefinition(text, 'r'), null);
});
