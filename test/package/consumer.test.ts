/**
 * A consumer's first day, with no network: the packed tarball unpacked into a fresh Vite + React +
 * TypeScript app whose other dependencies are links into this project's node_modules, `tsc
 * --strict` on it (our .d.ts included), `vite build`, then two tabs of one chromium on it, on its
 * per-tab page and on its page set up as the README's SharedWorker section says.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rename, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM_ARGS, findChromium } from "../browser/chromium.ts";
import { startHost, type CountingHost } from "../browser/host.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./consumer-app/", import.meta.url));
type Manifest = {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const names = (m: Manifest, ...fields: (keyof Manifest)[]) => fields.flatMap((f) => Object.keys(m[f] ?? {}));

let app: string;
let browser: Browser | undefined;
let host: CountingHost | undefined;
const timings: Record<string, number> = {};
async function timed<T>(label: string, step: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await step();
  } finally {
    timings[label] = Math.round(performance.now() - start);
  }
}

/**
 * Runs a bin of the app's own dependencies in the app, as `npm run build` would there: vitest's
 * NODE_ENV=test left out, or Vite would build React's development bundle. Resolves with what it
 * printed on failure or as a warning, "" when it was silent and succeeded.
 */
async function inApp(bin: string, args: string[]): Promise<string> {
  const { NODE_ENV: _testEnv, ...env } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, [join(app, "node_modules", bin), ...args], { cwd: app, env });
    return (stdout + stderr).trim();
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    return (stdout + stderr).trim() || String(error);
  }
}

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), "shared-fetch-consumer-"));
  await cp(fixture, app, { recursive: true });
  const modules = join(app, "node_modules");
  await mkdir(modules);
  // "npm install ./shared-fetch-0.1.0.tgz", offline: the tarball itself, unpacked in place.
  await run("tar", ["-xzf", inject("packedTarball"), "-C", modules]);
  await rename(join(modules, "package"), join(modules, "shared-fetch"));
  // Only what the app and the package declare is linked, so an import of an undeclared package
  // fails here as it would for a user. Links resolve to their real paths: one copy of Yjs.
  const appManifest = JSON.parse(await readFile(join(app, "package.json"), "utf8")) as Manifest;
  const pkgManifest = JSON.parse(await readFile(join(modules, "shared-fetch", "package.json"), "utf8")) as Manifest;
  const links = new Set([
    ...names(appManifest, "dependencies", "devDependencies"),
    ...names(pkgManifest, "dependencies", "peerDependencies"),
  ]);
  links.delete("shared-fetch");
  for (const name of links) {
    await mkdir(dirname(join(modules, name)), { recursive: true });
    await symlink(join(root, "node_modules", name), join(modules, name), "junction");
  }
});

afterAll(async () => {
  await browser?.close().catch(() => {});
  await host?.close();
  if (app) await rm(app, { recursive: true, force: true });
  console.log(`consumer smoke timings (ms): ${JSON.stringify(timings)}`);
});

describe("a Vite + React + TypeScript app on the packed package", () => {
  it("finds every entry's shipped .d.ts under every moduleResolution, never the shipped .ts sources", async () => {
    // node10 knows no "exports": without typesVersions it would fall through to devtools/index.ts.
    const pkg = JSON.parse(await readFile(join(app, "node_modules", "shared-fetch", "package.json"), "utf8")) as {
      exports: Record<string, string | { types: string }>;
    };
    const entries = Object.entries(pkg.exports).flatMap(([sub, target]) =>
      typeof target === "string" ? [] : [[sub.replace(/^\./, "shared-fetch"), target.types.replace(/^\.\//, "")] as const],
    );
    expect(entries.length).toBe(7);
    const from = join(app, "src", "main.tsx");
    const resolvers = {
      node10: ts.ModuleResolutionKind.Node10,
      node16: ts.ModuleResolutionKind.Node16,
      bundler: ts.ModuleResolutionKind.Bundler,
    };
    const found: Record<string, string | undefined> = {};
    for (const [resolver, moduleResolution] of Object.entries(resolvers)) {
      // Only node16 tells import from require (the app is "type": "module": an import).
      const node16 = resolver === "node16";
      const options = { module: node16 ? ts.ModuleKind.Node16 : ts.ModuleKind.ESNext, moduleResolution };
      for (const [entry] of entries) {
        const mode = node16 ? ts.ModuleKind.ESNext : undefined;
        const { resolvedModule } = ts.resolveModuleName(entry, from, options, ts.sys, undefined, undefined, mode);
        found[`${resolver} ${entry}`] =
          resolvedModule &&
          relative(join(app, "node_modules", "shared-fetch"), resolvedModule.resolvedFileName)
            .split(sep)
            .join("/");
      }
    }
    const expected = Object.fromEntries(Object.keys(resolvers).flatMap((r) => entries.map(([entry, types]) => [`${r} ${entry}`, types])));
    expect(found).toEqual(expected);
    expect(found["node10 shared-fetch/devtools"]).toBe("dist/devtools/index.d.ts");
  });

  it("loads from CommonJS: require() of the entries (Node ≥ 20.19 loads ES modules) and import() alike", async () => {
    const script = [
      'const main = require("shared-fetch");',
      'const worker = require("shared-fetch/worker");',
      'const devtools = require("shared-fetch/devtools/production");',
      'import("shared-fetch").then((esm) => console.log(JSON.stringify([typeof main.createSharedFetchStore, typeof worker.serveBrowserReplica, typeof devtools.SharedFetchDevtools, esm.createSharedFetchStore === main.createSharedFetchStore])));',
    ].join("\n");
    const { NODE_ENV: _testEnv, ...env } = process.env;
    const { stdout } = await run(process.execPath, ["--input-type=commonjs", "-e", script], { cwd: app, env });
    expect(JSON.parse(stdout.trim())).toEqual(["function", "function", "function", true]);
  });

  it("type-checks with tsc --strict, the packages' own declarations included", async () => {
    expect(await timed("tsc", () => inApp("typescript/bin/tsc", ["-p", ".", "--pretty", "false"]))).toBe("");
  });

  it("builds with vite, then two tabs share one request to a loopback host", async () => {
    expect(await timed("vite build", () => inApp("vite/bin/vite.js", ["build", "--logLevel", "warn"]))).toBe("");
    const out = join(app, "dist");
    const started = performance.now();
    host = await startHost(out);
    const api = "/api/consumer";
    host.plan(api, ["hold"]); // answered only once both tabs are up and waiting
    browser = await chromium.launch({ executablePath: findChromium().path, args: CHROMIUM_ARGS });
    const context = await browser.newContext();
    const errors: string[] = [];
    const open = async () => {
      const page = await context.newPage();
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${host!.origin}/?api=${encodeURIComponent(api)}`);
      await page.locator("#state[data-status=pending]").waitFor({ state: "attached" });
      return page;
    };
    const [one, two] = await Promise.all([open(), open()]);
    const call = await host.waitForCall(api, 1);
    // The panel, from the devtools/production subpath as the README's Devtools section mounts it,
    // shows the app's claim while its request is out.
    await one!.getByRole("button", { name: /shared-fetch/ }).click();
    const row = one!.getByRole("region", { name: "shared-fetch devtools" }).getByTestId("key-row");
    await row.waitFor();
    expect(await row.getAttribute("data-status")).toBe("pending");
    expect(await row.getAttribute("data-holder")).not.toBe("none");
    expect(await row.getByRole("rowheader").innerText()).toBe(`GET ${host.origin}${api}`);
    expect(await row.getByTestId("claim-state").innerText()).toMatch(/^rev 1 live/);
    call.respond({ path: api, n: 42 });
    for (const page of [one!, two!]) {
      await page.locator("#state[data-status=success]").waitFor({ state: "attached" });
      expect(await page.locator("#state").textContent()).toBe("42");
      await expect(page.getByRole("button", { name: /shared-fetch/ }).count()).resolves.toBe(1); // the devtools/production subpath renders
    }
    const mine = await Promise.all([one!, two!].map((p) => p.locator("#state").getAttribute("data-mine")));
    timings["two tabs"] = Math.round(performance.now() - started);
    expect(host.count(api)).toBe(1);
    expect(mine).toEqual(["", ""]); // no claim stands once the result is recorded
    expect(errors).toEqual([]);
  });

  it("runs the README's SharedWorker set-up as built: the packaged worker serves two tabs, one request; without SharedWorker, tab replicas", async () => {
    expect(host && browser, "the build, host and browser of the test before").toBeTruthy();
    const errors: string[] = [];
    const twoTabs = async (context: BrowserContext, api: string) => {
      host!.plan(api, ["hold"]);
      const open = async () => {
        const page = await context.newPage();
        page.on("pageerror", (e) => errors.push(e.message));
        await page.goto(`${host!.origin}/worker.html?api=${encodeURIComponent(api)}`);
        await page.locator("#state[data-status=pending]").waitFor({ state: "attached" });
        return page;
      };
      const pages = await Promise.all([open(), open()]);
      (await host!.waitForCall(api, 1)).respond({ path: api, n: 7 });
      for (const page of pages) await page.locator("#state[data-status=success]").waitFor({ state: "attached" });
      const modes = await Promise.all(pages.map((p) => p.locator("#state").getAttribute("data-mode")));
      await context.close();
      return { modes, requests: host!.count(api) };
    };
    const served = await twoTabs(await browser!.newContext(), "/api/consumer-worker");
    const without = await browser!.newContext();
    await without.addInitScript(() => Reflect.deleteProperty(globalThis, "SharedWorker"));
    const fallback = await twoTabs(without, "/api/consumer-no-worker");
    // A worker URL Vite had not bundled would 404, and the tabs would fall back: mode "tab".
    expect(served).toEqual({ modes: ["shared-worker", "shared-worker"], requests: 1 });
    expect(fallback).toEqual({ modes: ["tab", "tab"], requests: 1 });
    expect(errors).toEqual([]);
  });
});
