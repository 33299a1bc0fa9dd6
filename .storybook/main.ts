import type { StorybookConfig } from "@storybook/react-vite";
import { realTabPlugin } from "./real-tab-plugin.ts";

// No network here and no questions asked: keep telemetry off however Storybook is started
// (`npm start`, `storybook build`, or the vitest plugin, which loads this file too).
process.env.STORYBOOK_DISABLE_TELEMETRY = "1";

const config: StorybookConfig = {
  // The introduction (MDX) first, then the scenarios.
  stories: ["../stories/Introduction.mdx", "../stories/**/*.stories.@(ts|tsx)"],
  // Mock Service Worker: msw-storybook-addon's annotations, applied in preview.ts (started once per page there).
  addons: ["@storybook/addon-docs", "@storybook/addon-vitest"],
  // The service worker script (`npx msw init .storybook/public`), served at /mockServiceWorker.js
  // by `storybook dev`, `storybook build` and the story tests alike.
  staticDirs: ["./public"],
  framework: { name: "@storybook/react-vite", options: {} },
  core: { disableTelemetry: true, disableWhatsNewNotifications: true },
  // The scenarios explain themselves: no onboarding checklist in the sidebar or the menu.
  features: { sidebarOnboardingChecklist: false, menuOnboardingChecklist: false },
  async viteFinal(viteConfig) {
    // With a clean cache `storybook dev` otherwise fails with
    // "does not provide an export named 'default'" for react: Vite must pre-bundle these CommonJS packages.
    const include = viteConfig.optimizeDeps?.include ?? [];
    return {
      ...viteConfig,
      // The "Real tabs" story's page, served at /real-tab/ (dev, build and the story tests).
      plugins: [...(viteConfig.plugins ?? []), realTabPlugin()],
      optimizeDeps: {
        ...viteConfig.optimizeDeps,
        // Sucrase's ES build (package.json `imports`: `#sucrase/*`), loaded when a Programs story first
        // compiles: found then, its pre-bundling reloaded the page under the stories running beside it.
        include: [
          ...new Set([
            ...include,
            "react",
            "react-dom",
            "react-dom/client",
            "react/jsx-runtime",
            "sucrase/dist/esm/index.js",
            "sucrase/dist/esm/parser/index.js",
            "sucrase/dist/esm/parser/tokenizer/keywords.js",
            "sucrase/dist/esm/parser/tokenizer/types.js",
          ]),
        ],
      },
    };
  },
};

export default config;
