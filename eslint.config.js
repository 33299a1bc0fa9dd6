// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import { defineConfig } from "eslint/config";

export default defineConfig(
  {
    ignores: ["dist/**", "storybook-static/**", ".storybook/public/**", "node_modules/**", "coverage/**", "test-results/**", ".vite/**"],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      // `_`-prefixed names are deliberately unused (callback parameters, destructured rest).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
    },
  },
  // Layers point one way: core ← sync ← hocuspocus ← worker ← react ← devtools (the whole order is
  // checked by test/layers.test.ts). The core stays free of React and of the connectors; the
  // connectors never reach into React; nothing in the package reaches the panel or the entries.
  {
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "**/sync/**",
                "**/hocuspocus/**",
                "**/worker/**",
                "**/react/**",
                "**/devtools/**",
                "**/index.ts",
                "../internals.ts",
                "../../internals.ts",
              ],
              message: "src/core imports nothing outside src/core (layers: core ← sync ← hocuspocus ← worker ← react ← devtools).",
            },
            {
              group: [
                "react",
                "react-dom",
                "react/*",
                "@tanstack/*",
                "@hocuspocus/*",
                "y-indexeddb",
                "y-websocket",
                "y-protocols/sync",
                "ws",
              ],
              message: "src/core is framework- and transport-free.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/sync/**/*.ts", "src/hocuspocus/**/*.ts", "src/worker/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/react/**", "**/devtools/**", "../index.ts", "../internals.ts", "react", "react-dom", "@tanstack/*"],
              message: "src/sync, src/hocuspocus and src/worker depend on neither React, the devtools nor the package entries.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/react/**/*.ts", "src/react/**/*.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/devtools/**", "**/sync/**"], message: "src/react depends on src/core only." }] },
      ],
    },
  },
  {
    // Components live in .tsx; hooks may also be plain .ts under src/react and devtools.
    files: ["**/*.tsx", "src/react/**/*.ts", "devtools/**/*.ts"],
    ...reactHooks.configs.flat.recommended,
  },
);
