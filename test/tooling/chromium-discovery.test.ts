import { describe, expect, it } from "vitest";
import { BrowserNotFoundError, findChromium } from "../browser/chromium.ts";

const only =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);
const noPlaywright = () => undefined;

describe("findChromium", () => {
  it("takes CHROMIUM_PATH first, over a system install", () => {
    const found = findChromium({ CHROMIUM_PATH: "/opt/chrome/chrome" }, only("/opt/chrome/chrome", "/usr/bin/chromium"), noPlaywright);
    expect(found).toEqual({ path: "/opt/chrome/chrome", source: "CHROMIUM_PATH" });
  });

  it("refuses a CHROMIUM_PATH that does not exist rather than quietly using another browser", () => {
    expect(() => findChromium({ CHROMIUM_PATH: "/nope" }, only("/usr/bin/chromium"), noPlaywright)).toThrow(
      /CHROMIUM_PATH is set to \/nope/,
    );
  });

  it("finds Debian's, then Ubuntu/Fedora's chromium, then Google Chrome", () => {
    expect(findChromium({}, only("/usr/bin/chromium", "/usr/bin/google-chrome"), noPlaywright).path).toBe("/usr/bin/chromium");
    expect(findChromium({}, only("/usr/bin/chromium-browser"), noPlaywright).path).toBe("/usr/bin/chromium-browser");
    expect(findChromium({}, only("/usr/bin/google-chrome-stable"), noPlaywright).path).toBe("/usr/bin/google-chrome-stable");
    const mac = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome";
    expect(findChromium({}, only(mac), noPlaywright).path).toBe(mac);
  });

  it("falls back to a Playwright-managed browser only when its file exists", () => {
    const managed = () => "/root/.cache/ms-playwright/chromium-1/chrome";
    expect(findChromium({}, only(managed()), managed)).toEqual({ path: managed(), source: "playwright" });
    expect(() => findChromium({}, only(), managed)).toThrow(BrowserNotFoundError);
  });

  it("without any browser, says how to get one", () => {
    expect(() => findChromium({}, only(), noPlaywright)).toThrow(/apt-get install chromium.*npx playwright install chromium/);
  });
});
