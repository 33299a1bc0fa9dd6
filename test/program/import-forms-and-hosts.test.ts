/**
 * The resolver against DESIGN's contract and real hosts: every import form is followed in a JSX
 * module too (Sucrase's token scan); a specifier with an extension is requested as written (only
 * one with none is probed); the entry is scanned whatever its name ends with; other origins are
 * never fetched, not even through a redirect (one within the origin is followed); a host's HTML fallback page is not a module; a
 * per-call lease reaches the program's claim.
 */
import { createServer } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ProgramResolveError, resolveProgram } from "../../src/core/program/index.ts";
import { servedPerTest } from "./module-host.ts";
import { cluster } from "../harness/replicas.ts";

const serve = servedPerTest();
const names = (p: { files: { name: string }[] }) => p.files.map((f) => f.name);

const rawServers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of rawServers.splice(0)) await close();
});
async function rawHost(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  rawServers.push(async () => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("JSX modules (Sucrase token scan): every import form", () => {
  it("follows `export * as ns from` and `export type * as T from` in a .tsx the lexer cannot read", async () => {
    const h = await serve({
      "/app/main.tsx": `export * as ns from "./ns.ts";\nexport type * as T from "./t.ts";\nexport const el = <b>x</b>;`,
      "/app/ns.ts": `export const n = 1;`,
      "/app/t.ts": `export type T = 1;`,
    });
    const p = await resolveProgram(h.url("/app/main.tsx"), { fetch });
    expect(names(p)).toEqual(["/app/main.tsx", "/app/ns.ts", "/app/t.ts"]);
  });
});

describe("JSX modules: import() of a template literal without substitutions", () => {
  it("follows import(`./lazy.ts`) in a .tsx the lexer cannot read (the lexer path follows it in .js)", async () => {
    const h = await serve({
      "/app/main.tsx": "export const el = <b>x</b>;\nexport const lazy = () => import(`./lazy.ts`);",
      "/app/lazy.ts": `export default 1;`,
    });
    const p = await resolveProgram(h.url("/app/main.tsx"), { fetch });
    expect(names(p)).toEqual(["/app/main.tsx", "/app/lazy.ts"]);
  });
});

describe("a specifier with an extension is requested as written (probing is for names without one)", () => {
  it("import logo from './logo.svg' fetches /app/logo.svg; './button.styles' is still found as button.styles.ts", async () => {
    const h = await serve({
      "/app/main.ts": `import logo from "./logo.svg";\nexport default logo;`,
      "/app/logo.svg": { body: `<svg xmlns="http://www.w3.org/2000/svg"/>`, headers: { "content-type": "image/svg+xml" } },
    });
    const p = await resolveProgram(h.url("/app/main.ts"), { fetch });
    expect(names(p)).toEqual(["/app/main.ts", "/app/logo.svg"]);
    const styled = await serve({
      "/app/main.ts": `import { s } from "./button.styles";\nexport default s;`,
      "/app/button.styles.ts": `export const s = 1;`,
    });
    const q = await resolveProgram(styled.url("/app/main.ts"), { fetch });
    expect(names(q)).toEqual(["/app/main.ts", "/app/button.styles.ts"]);
  });
});

describe("the entry is a module whatever its name ends with", () => {
  it("entry /app/main (served as JavaScript) has its imports followed", async () => {
    const h = await serve({
      "/app/main": `import { x } from "./x.ts";\nexport default x;`,
      "/app/x.ts": `export const x = 1;`,
    });
    const p = await resolveProgram(h.url("/app/main"), { fetch });
    expect(names(p)).toEqual(["/app/main", "/app/x.ts"]);
  });
});

describe("redirects: other origins are never fetched", () => {
  it("a same-origin module redirecting to another origin fails the resolution, naming both; its code never passes for this origin's file", async () => {
    const other = await rawHost((_req, res) => res.writeHead(200, { "content-type": "text/javascript" }).end(`export const foreign = 1;`));
    const h = await serve({
      "/app/main.ts": `import "./x.js";`,
      "/app/x.js": { status: 302, headers: { location: `${other}/x.js` } },
    });
    const error = await resolveProgram(h.url("/app/main.ts"), { fetch }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProgramResolveError);
    expect((error as Error).message).toBe(
      `module /app/x.js redirected to another origin (${other}) (imported by /app/main.ts as './x.js')`,
    );
  });
});

describe("redirects within the origin are followed", () => {
  it("a module redirected within its origin is the target's code under the name it was imported by, requested once", async () => {
    const h = await serve({
      "/app/main.ts": `import { x } from "./x.js";\nimport "./again.ts";\nexport default x;`,
      "/app/again.ts": `export { x } from "./x.js";`,
      "/app/x.js": { status: 302, headers: { location: "/app/v2/x.js" } },
      "/app/v2/x.js": `export const x = 2;`,
    });
    const p = await resolveProgram(h.url("/app/main.ts"), { fetch });
    expect(p.files).toEqual([
      { name: "/app/main.ts", contents: `import { x } from "./x.js";\nimport "./again.ts";\nexport default x;` },
      { name: "/app/again.ts", contents: `export { x } from "./x.js";` },
      { name: "/app/x.js", contents: `export const x = 2;` },
    ]);
    expect(h.count("/app/x.js")).toBe(1);
    expect(h.count("/app/v2/x.js")).toBe(1);
  });
});

describe("a host's HTML fallback page (200 text/html for unknown paths) is not a module", () => {
  it("probing './x' on a host that serves index.html for unknown paths skips the HTML and finds x.js", async () => {
    const files: Record<string, string> = {
      "/app/main.ts": `import { x } from "./x";\nexport default x;`,
      "/app/x.js": `export const x = 1;`,
    };
    const origin = await rawHost((req, res) => {
      const body = files[new URL(req.url!, "http://h").pathname];
      if (body !== undefined) res.writeHead(200, { "content-type": "text/javascript" }).end(body);
      else
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(`<!doctype html><html><body><div id="root"></div></body></html>`);
    });
    const p = await resolveProgram(`${origin}/app/main.ts`, { fetch });
    expect(names(p)).toEqual(["/app/main.ts", "/app/x.js"]);
    // A JavaScript importer: a TypeScript one's './y.js' may also be y.ts, y.tsx (all three listed).
    files["/app/main.js"] = `import "./y.js";`;
    await expect(resolveProgram(`${origin}/app/main.js`, { fetch })).rejects.toThrow(
      "module './y.js' imported by /app/main.js not found (/app/y.js is an HTML page (text/html), not a module)",
    );
    await expect(resolveProgram(`${origin}/app/none.ts`, { fetch })).rejects.toThrow(
      "entry module /app/none.ts is an HTML page (text/html), not a module",
    );
  });
});

describe("ensureProgram's per-call leaseMs (DESIGN: the lease is overridable per call)", () => {
  it("the claim written for ensureProgram(req, { leaseMs: 1234 }) carries 1234 (DESIGN: lease overridable per call)", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    // the harness host holds every call until answered: the claim stays standing
    const p = a!.ensureProgram({ url: "https://modules.example.test/app/main.ts" }, { leaseMs: 1234 });
    await c.host.whenCalls(1);
    await new Promise((r) => setTimeout(r, 20));
    const claims = b!.claims() as [string, { leaseMs: number }][];
    expect(claims).toHaveLength(1);
    expect(claims[0]![1].leaseMs).toBe(1234);
    c.destroy();
    await p.catch(() => {});
  });
});
