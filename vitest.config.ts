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
          exclude: ["test/browser/**", "test/cluster/**"],
          environment: "node",
        },
      },
      {
        // Real Redis, PostgreSQL and Hocuspocus processes on 127.0.0.1, started by each file. It runs
        // after the other projects (groupOrder 1): its process starts would otherwise eat the CPU
        // that the unit project's 5 s timeouts count on, on a 2-core machine.
        test: {
          name: "cluster",
          sequence: { groupOrder: 1 },
          include: ["test/cluster/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
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
