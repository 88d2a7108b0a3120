'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { sum } = require('./sum');

test('empty', () => {
  assert.strictEqual(sum([]), 0);
});

test('several', () => {
  assert.strictEqual(sum([2, 3, 4]), 9);
});
