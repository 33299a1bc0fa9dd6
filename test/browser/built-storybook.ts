/**
 * Storybook built (offline) into a temp dir and served on 127.0.0.1, as `storybook build` ships it:
 * the e2e tests open its stories and docs pages in chromium.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inject } from "vitest";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

export type BuiltStorybook = { dir: string; origin: string; close(): Promise<void> };

export async function buildStorybook(): Promise<BuiltStorybook> {
  // Built once per run, by the first file that asks (the e2e files run one at a time), into the
  // directory the project's global setup made and removes: a build takes a minute or more here.
  const dir = inject("e2eStorybookDir");
  if (!existsSync(join(dir, "index.html"))) {
    await promisify(execFile)(join(ROOT, "node_modules/.bin/storybook"), ["build", "--disable-telemetry", "--quiet", "-o", dir], {
      cwd: ROOT,
      env: { ...process.env, STORYBOOK_DISABLE_TELEMETRY: "1" },
    });
  }
  const server = createServer((req, res) => {
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
  return {
    dir,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
