'use strict';

// slugify turns a title into a URL slug: lower case, words joined by '-'.
function slugify(title) {
  return title.trim().toLowerCase().replace(' ', '-');
}

module.exports = { slugify };
