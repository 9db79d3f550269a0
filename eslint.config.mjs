// ESLint for every JavaScript file of the repository (the test command runs it: the
// "eslint" suite). The packages live in web/node_modules, so they are loaded from there.
import { createRequire } from "node:module";

const require = createRequire(new URL("./web/package.json", import.meta.url));
const js = require("@eslint/js");
const globals = require("globals");

export default [
  { ignores: ["build/**", "**/node_modules/**", "web/wasm/**"] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
    },
  },
  // The pages' scripts and the worker run in the browser.
  {
    files: ["web/src/**/*.js", "web/watch-client.js", "native/app/lab-boot.js"],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
  },
  // Classic scripts (not modules): the worker and the desktop lab's boot script.
  {
    files: ["web/src/worker.js", "web/src/run-store.js", "web/src/run-slices.js", "native/app/lab-boot.js"],
    languageOptions: { sourceType: "script" },
  },
  // Node scripts; the browser tests also hand functions to page.evaluate, which run in
  // the page, so they see both sets of names.
  {
    files: ["**/*.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
];
