'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { slugify } = require('./slugify');

test('one word', () => {
  assert.strictEqual(slugify('Hello'), 'hello');
});

test('several words', () => {
  assert.strictEqual(slugify('Hello big World'), 'hello-big-world');
});

test('surrounding space', () => {
  assert.strictEqual(slugify('  Go fast  '), 'go-fast');
});
