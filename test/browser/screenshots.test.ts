/**
 * Screenshots of two scenarios at their end state, for the README: Storybook is built (offline)
 * into a temp dir, served on 127.0.0.1, and each story's iframe runs its play function to the
 * verdict. The PNGs go to docs/ only with UPDATE_SCREENSHOTS=1 (else a temp dir), so `npm test`
 * leaves the work tree clean.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "./harness.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

let dir = "";
let out = "";
let server: Server;
let origin = "";
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "shared-fetch-storybook-"));
  await promisify(execFile)(join(ROOT, "node_modules/.bin/storybook"), ["build", "--disable-telemetry", "--quiet", "-o", dir], {
    cwd: ROOT,
    env: { ...process.env, STORYBOOK_DISABLE_TELEMETRY: "1" },
  });
  out = process.env.UPDATE_SCREENSHOTS === "1" ? join(ROOT, "docs") : join(dir, "screenshots");
  await mkdir(out, { recursive: true });
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(dir, path.endsWith("/") ? `${path}index.html` : path);
    readFile(file).then(
      (body) => {
        res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
        res.end(body);
      },
      () => {
        res.writeHead(404);
        res.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Opens a story alone (its play function runs), waits for its verdict, screenshots the canvas. */
async function shoot(id: string, file: string): Promise<string> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 560 } });
  try {
    await page.goto(`${origin}/iframe.html?id=${id}&viewMode=story`);
    const verdict = page.getByTestId("verdict");
    await verdict.waitFor({ timeout: 60_000 });
    const text = (await verdict.textContent()) ?? "";
    const path = join(out, file);
    await page.locator("#storybook-root").screenshot({ path });
    expect((await stat(path)).size).toBeGreaterThan(10_000);
    return text;
  } finally {
    await page.close();
  }
}

it("screenshots the crashed-tab scenario at its end state", async () => {
  await expect(shoot("scenarios-failures--crashed-tab", "crashed-tab.png")).resolves.toMatch(/^B took over/);
}, 120_000);

it("screenshots the real-tabs scenario at its end state", async () => {
  await expect(shoot("scenarios-real-tabs--crash-a-real-tab", "real-tabs.png")).resolves.toMatch(/took over \d+ ms after/);
}, 120_000);
