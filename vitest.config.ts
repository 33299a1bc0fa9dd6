import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { storybookTest } from "@storybook/addon-vitest/vitest-plugin";
import { playwright } from "@vitest/browser-playwright";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./test/browser/chromium.ts";

const chromium = { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.{ts,tsx}"],
          exclude: ["test/browser/**"],
          environment: "node",
        },
      },
      {
        // The React tests once more on React 18.3 (peer range ^18.2 || ^19): imports Vite
        // transforms are aliased here, CommonJS requires by test/harness/react-18.ts.
        resolve: {
          alias: [
            { find: /^react-dom(?=$|\/)/, replacement: "react-dom-18" },
            { find: /^react(?=$|\/)/, replacement: "react-18" },
          ],
        },
        test: {
          name: "react18",
          include: ["test/react/**/*.test.{ts,tsx}"],
          environment: "node",
          setupFiles: ["test/harness/react-18.ts"],
          server: { deps: { inline: [/@tanstack\/react-query/, /@testing-library\/react/] } },
        },
      },
      {
        // Every story in stories/ is a test: it renders in chromium and its play function runs.
        // No setProjectAnnotations setup file: the plugin applies .storybook/preview itself.
        plugins: [storybookTest({ configDir: fileURLToPath(new URL("./.storybook", import.meta.url)) })],
        test: {
          name: "storybook",
          testTimeout: 20_000,
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: chromium }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
      {
        // Real chromium tabs and "devices" (contexts) against a counting host: test/browser.
        test: {
          name: "e2e",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/browser/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
