'use strict';
// The addon built at install (binding.gyp). Satchel loads this package as an optional dependency: where it did not
// build (no compiler, a non-glibc system), the server runs without trimming (server/process/malloc-trim.ts).
module.exports = require('./build/Release/malloc_trim.node');
