'use strict';

// sum adds up the numbers of an array.
function sum(xs) {
  let total = 0;
  for (let i = 1; i < xs.length; i++) {
    total += xs[i];
  }
  return total;
}

module.exports = { sum };
