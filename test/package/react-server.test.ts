/**
 * React Server Components (Next.js App Router): a server component prefetches with
 * sharedQueryOptions into a QueryClient and dehydrates, as TanStack documents for queryOptions.
 * The built dist runs in Node under the `react-server` condition (React's server build: no
 * createContext, no hooks), with "use client" modules made client references as a bundler makes
 * them (react-server-loader.mjs). The Next.js 16.5.0 build this pins is in the README.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { init, parse } from "es-module-lexer";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
// global-setup's `npm pack` rebuilt dist/ in place (prepack).
const dist = join(root, "dist", "src");
const loader = new URL("./react-server-loader.mjs", import.meta.url).href;

const serverComponent = `
import * as Y from "yjs";
import { dehydrate, QueryClient } from "@tanstack/react-query";
const sf = await import(${JSON.stringify(pathToFileURL(join(dist, "index.js")).href)});
let requests = 0;
const fetch = async () => (requests++, new Response(JSON.stringify([{ id: 1 }]), { headers: { "content-type": "application/json" } }));
const store = sf.createSharedFetchStore({ doc: new Y.Doc(), identity: "user-1", fetch });
const client = new QueryClient();
const items = sf.sharedQueryOptions(store, "https://api.example.com/items", { staleTime: 60_000 });
await client.prefetchQuery(items);
const state = dehydrate(client);
const program = sf.sharedProgramOptions(store, "https://app.example.com/main.ts");
const refs = ["useSharedFetch", "useSharedFetchSuspense", "useProgram", "SharedFetchProvider", "useSharedFetchStore"]
  .filter((name) => sf[name].$$typeof === Symbol.for("react.client.reference"));
store.destroy();
console.log(JSON.stringify({
  requests,
  dehydrated: state.queries.map((q) => [q.queryKey, q.state.data]),
  programKey: program.queryKey.slice(0, 3),
  mutationFn: typeof sf.sharedMutationFn(store, () => ({ url: "https://api.example.com/items", method: "POST" })),
  connectors: [typeof sf.connectTabs, typeof sf.connectPeers],
  refs,
  clientModules: globalThis.clientModules.filter((u) => u.includes("/dist/")).map((u) => u.slice(u.indexOf("/dist/") + 1)).sort(),
}));
`;

describe("the main entry in a React Server Component", () => {
  it("prefetches and dehydrates with the hooks as client references", async () => {
    const { NODE_ENV: _testEnv, ...env } = process.env;
    const args = [
      "--conditions=react-server",
      "--no-warnings",
      "--import",
      `data:text/javascript,import { register } from "node:module"; register(${JSON.stringify(loader)});`,
    ];
    const { stdout } = await promisify(execFile)(process.execPath, [...args, "--input-type=module", "-e", serverComponent], {
      cwd: root,
      env,
    });
    const out = JSON.parse(stdout.trim());
    expect(out).toMatchObject({
      requests: 1,
      dehydrated: [[["shared-fetch", "GET", "https://api.example.com/items", expect.any(String)], [{ id: 1 }]]],
      programKey: ["shared-fetch", "program", "https://app.example.com/main.ts"],
      mutationFn: "function",
      connectors: ["function", "function"],
      refs: ["useSharedFetch", "useSharedFetchSuspense", "useProgram", "SharedFetchProvider", "useSharedFetchStore"],
    });
    // Only the hooks' modules: sharedQueryOptions' and sharedProgramOptions' stay server code.
    expect(out.clientModules).toEqual([
      "dist/src/react/provider.js",
      "dist/src/react/use-program.js",
      "dist/src/react/use-shared-fetch-suspense.js",
      "dist/src/react/use-shared-fetch.js",
    ]);
  });

  it('starts every built module that imports a hook or context with "use client"', async () => {
    await init;
    const clientOnly = /\b(use[A-Z]\w*|createContext|QueryClientContext)\b/;
    const files = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js"));
    const missing: string[] = [];
    let marked = 0;
    for (const file of files) {
      const source = readFileSync(join(dist, file), "utf8");
      const [imports] = parse(source);
      const usesClientApi = imports.some(
        ({ specifier, importStart, importEnd }) =>
          (specifier === "react" || specifier === "@tanstack/react-query") &&
          clientOnly.test(source.slice(importStart, importEnd).split(" from ")[0]!),
      );
      const directive = source.startsWith('"use client";');
      if (directive) marked++;
      if (usesClientApi && !directive) missing.push(relative(root, join(dist, file)).split(sep).join("/"));
    }
    expect(missing).toEqual([]);
    expect(marked).toBeGreaterThanOrEqual(7);
  });
});
