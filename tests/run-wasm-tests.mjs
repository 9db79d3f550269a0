// Runs the doctest unit tests compiled to wasm under node.
//   node tests/run-wasm-tests.mjs build/wasm/bin/icl_tests.js [doctest args...]
// Node 20's global fetch makes this Emscripten's loader try to fetch the .wasm by
// path, so the binary is read here and handed to the factory.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [, , jsPath, ...args] = process.argv;
const require = createRequire(import.meta.url);
const factory = require(path.resolve(jsPath));
const wasmBinary = fs.readFileSync(jsPath.replace(/\.js$/, '.wasm'));
let exitCode = null;
await factory({
  wasmBinary,
  arguments: args,
  quit: (status) => { exitCode = status; },
  onExit: (status) => { exitCode = status; },
}).catch((e) => {
  if (exitCode === null) { console.error(e); exitCode = 1; }
});
process.exit(exitCode ?? 0);
