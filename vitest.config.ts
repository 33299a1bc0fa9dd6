import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { storybookTest } from "@storybook/addon-vitest/vitest-plugin";
import { playwright } from "@vitest/browser-playwright";
import { CHROMIUM_ARGS, chromiumPathOrUndefined } from "./test/browser/chromium.ts";

// Found once here (test/browser/chromium.ts); when none is, the browser projects' globalSetup
// (require-browser.ts) stops the run with one message saying how to get one.
const chromium = { executablePath: chromiumPathOrUndefined(), args: CHROMIUM_ARGS };
const requireBrowser = "test/browser/require-browser.ts";

// The tests that exercise the hooks' core (one request shared across tabs, Suspense, SSR and
// hydration, the TanStack hooks, programs, render counts) run on the floors; all of test/react
// runs on 18.3 and 19.
const floorTests = [
  "react-version",
  "readme-usage-example",
  "two-panes",
  "suspense",
  "suspense-across-tabs",
  "tanstack-hooks",
  "infinite-query-across-tabs",
  "optimistic-update-across-tabs",
  "use-program",
  "renders",
  "use-sync-external-store",
  "ssr",
  "ssr-stream-side-by-side",
].map((name) => `test/react/${name}.test.tsx`);

/**
 * A project running `include` on the React of the npm aliases `react` / `react-dom`: imports Vite
 * transforms are aliased here, CommonJS requires by test/harness/react-alias.ts (given `react` here
 * through `provide`), so one React instance serves the whole test.
 */
function reactProject(name: string, react: string, include: string[]) {
  const dom = react.replace(/^react/, "react-dom");
  return {
    resolve: {
      alias: [
        { find: /^react-dom(?=$|\/)/, replacement: dom },
        { find: /^react(?=$|\/)/, replacement: react },
      ],
    },
    test: {
      name,
      include,
      environment: "node",
      provide: { reactAlias: react },
      setupFiles: ["test/harness/react-alias.ts", "test/harness/lazy-chunks.ts", "test/harness/wait-bound.ts"],
      testTimeout: 15_000, // as the unit project's
      server: { deps: { inline: [/@tanstack\/react-query/, /@testing-library\/react/] } },
    },
  };
}

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.{ts,tsx}"],
          exclude: ["test/browser/**", "test/package/**", "test/cluster/**"],
          environment: "node",
          setupFiles: ["test/harness/lazy-chunks.ts", "test/harness/wait-bound.ts"],
          // Beside two browser projects on 2 cores, a test on real sockets or fake-indexeddb can
          // take several seconds; what each asserts is untimed (timing claims live in npm run bench).
          testTimeout: 15_000,
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
      // The React tests once more on React 18.3, then a subset of them on each floor of the peer
      // range (^18.2 || ^19): 18.2.0 and 19.0.0, which an app may hold.
      reactProject("react18", "react-18", ["test/react/**/*.test.{ts,tsx}"]),
      reactProject("react18.2", "react-18-2", floorTests),
      reactProject("react19.0", "react-19-0", floorTests),
      {
        // Every story in stories/ is a test: it renders in chromium and its play function runs.
        // No setProjectAnnotations setup file: the plugin applies .storybook/preview itself.
        plugins: [storybookTest({ configDir: fileURLToPath(new URL("./.storybook", import.meta.url)) })],
        test: {
          name: "storybook",
          globalSetup: [requireBrowser],
          // Several scenarios wait out leases on purpose, on a loaded machine.
          testTimeout: 60_000,
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
          globalSetup: [requireBrowser, "test/browser/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        // The package as published: packed once (prepack builds), then its contents, types and
        // size budgets are checked and a Vite + React app built on it runs in chromium.
        test: {
          name: "package",
          include: ["test/package/**/*.test.ts"],
          // After the other projects, not beside them: its tsc runs and builds would steal the
          // CPU that the unit tests' timers and the browser tests' timings need on 2 cores.
          sequence: { groupOrder: 2 },
          environment: "node",
          globalSetup: [requireBrowser, "test/package/global-setup.ts"],
          testTimeout: 90_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
