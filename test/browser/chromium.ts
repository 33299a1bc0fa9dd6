/**
 * Finds a Chromium for the browser tests and benchmarks — the one place that knows where to look,
 * used by vitest.config.ts (storybook project), the e2e harness, the package smoke test and
 * bench/browser.ts. Order: CHROMIUM_PATH, then the usual system installs, then a browser that
 * `npx playwright install chromium` put in Playwright's cache. Never downloads anything.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

/**
 * Features Playwright (playwright-core 1.65.1) disables by default. A second --disable-features
 * replaces the first rather than adding to it, so ours repeats them.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
];

/**
 * Chromium 156 runs the omnibox popup as a WebUI page in a renderer of its own, preloaded even
 * headless, where nothing ever shows it: measured here, opening 20 pages cost that renderer 0.9 s
 * of CPU and the browser process 1 s more. On two cores that CPU is taken from the pages the
 * browser tests and bench:browser measure.
 */
const HEADLESS_UI_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup", "PreloadTopChromeWebUI"];

/** Flags verified on Debian's chromium, headless, as root, without network. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...HEADLESS_UI_FEATURES].join(",")}`,
];

/** System installs, most common first: Debian, Ubuntu/Fedora, Google Chrome, snap, macOS, Windows. */
export function systemCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const windows = [env.PROGRAMFILES, env["PROGRAMFILES(X86)"], env.LOCALAPPDATA]
    .filter((dir): dir is string => Boolean(dir))
    .map((dir) => join(dir, "Google", "Chrome", "Application", "chrome.exe"));
  return [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    ...windows,
  ];
}

/** Where Playwright's own chromium would be; playwright-core throws on platforms it does not know. */
function playwrightManaged(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}

export type Found = { path: string; source: "CHROMIUM_PATH" | "system" | "playwright" };

export class BrowserNotFoundError extends Error {
  override name = "BrowserNotFoundError";
}

export const HOW_TO_GET_ONE =
  "Install one: `apt-get install chromium` (Debian/Ubuntu), or `npx playwright install chromium`, " +
  "or point CHROMIUM_PATH at a Chromium or Google Chrome executable.";

/**
 * The first browser found, or a BrowserNotFoundError whose message says how to get one. A
 * CHROMIUM_PATH that names a missing file is an error, not a reason to silently use another.
 */
export function findChromium(
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync,
  managed: () => string | undefined = playwrightManaged,
): Found {
  const fromEnv = env.CHROMIUM_PATH;
  if (fromEnv) {
    if (exists(fromEnv)) return { path: fromEnv, source: "CHROMIUM_PATH" };
    throw new BrowserNotFoundError(`CHROMIUM_PATH is set to ${fromEnv}, which does not exist. ${HOW_TO_GET_ONE}`);
  }
  const system = systemCandidates(env).find((path) => exists(path));
  if (system) return { path: system, source: "system" };
  const pw = managed();
  if (pw && exists(pw)) return { path: pw, source: "playwright" };
  throw new BrowserNotFoundError(
    `No Chromium found for the browser tests (looked at CHROMIUM_PATH, ${systemCandidates(env).join(", ")} and Playwright's cache). ${HOW_TO_GET_ONE}`,
  );
}

/** The path, or undefined when none is found (vitest.config.ts must load either way). */
export function chromiumPathOrUndefined(): string | undefined {
  try {
    return findChromium().path;
  } catch {
    return undefined;
  }
}
