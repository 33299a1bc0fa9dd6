/**
 * The README's ```tsx and ```ts examples compile as a reader's app would compile them: against
 * the packed package (its .d.ts, its `exports`), under `moduleResolution` "bundler" and "node16",
 * with `strict`, `exactOptionalPropertyTypes` and `verbatimModuleSyntax` on; so do the calls and
 * elements its prose gives whole (INLINE). An example a reader copies must not fail to type.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

function blocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```tsx?\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/**
 * The calls and elements the README's prose gives whole, for a reader to copy (not the fragments
 * with `…` in them). Each is looked up verbatim in the README, then compiled beside the fenced
 * blocks in a file that declares what the prose takes as given: a store, a doc, the tabs'
 * connection, a request.
 */
const INLINE_HEAD = `import type * as Y from "yjs";
import { TanStackDevtools } from "@tanstack/react-devtools";
import { ReactQueryDevtoolsPanel } from "@tanstack/react-query-devtools";
import { connectPeers, connectTabs, sharedMutationFn, sharedProgramOptions, sharedQueryOptions, useProgram, useSharedFetchSuspense } from "shared-fetch";
import type { Connection, SharedFetchStoreWithExtras, SharedRequest } from "shared-fetch";
import { SharedFetchDevtoolsPanel, sharedFetchDevtoolsPlugin } from "shared-fetch/devtools";
import { SharedFetchDevtools } from "shared-fetch/devtools/production";

declare const store: SharedFetchStoreWithExtras;
declare const tabs: Connection;
declare const doc: Y.Doc;
declare const name: string;
declare const room: string;
declare const url: string;
declare const req: { url: string };
declare const request: SharedRequest;
declare const signal: AbortSignal;
declare const maxAgeMs: number;
declare const retry: number;
declare const retryDelay: number;
const awareness = tabs.awareness;
`;
const INLINE = [
  "connectTabs(doc, { name })",
  'connectPeers(doc, { url: "wss://sync.example.com", room })',
  "useSharedFetchSuspense(url)",
  "useProgram(url, { compile: true })",
  "store.ensure(req, { signal, maxAgeMs, retry, retryDelay })",
  "store.ensureProgram(req, { maxAgeMs })",
  "store.refetch(req, { skipInFlight: true })",
  "store.refetchProgram(req, { skipInFlight: true })",
  "sharedQueryOptions(store, null)",
  "sharedProgramOptions(store, null)",
  "sharedMutationFn(store, (variables) => request, { retry: 2 })",
  "<SharedFetchDevtoolsPanel store={store} awareness={tabs.awareness} />",
  "<SharedFetchDevtools store={store} simulations />",
  "sharedFetchDevtoolsPlugin({ store, simulations: true })",
  '<TanStackDevtools plugins={[{ name: "TanStack Query", render: <ReactQueryDevtoolsPanel /> }, sharedFetchDevtoolsPlugin({ store, awareness })]} />',
  "store.inspect()",
  "store.malformed()",
];

let app: string;
let files: string[];
let examples: string[];
let readme: string;

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), "shared-fetch-readme-"));
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "readme-app", private: true, type: "module" }));
  const modules = join(app, "node_modules");
  // A copy, not a link: TypeScript follows a link to its real path, where no dependency is found.
  await cp(inject("packedDir"), join(modules, "shared-fetch"), { recursive: true });
  const pkg = JSON.parse(await readFile(join(modules, "shared-fetch", "package.json"), "utf8")) as Record<string, Record<string, string>>;
  const links = [
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
    "@types/react",
    "@types/react-dom",
    "react-dom",
    // The inline TanStack Devtools example's shell and Query panel.
    "@tanstack/react-devtools",
    "@tanstack/react-query-devtools",
  ];
  for (const name of links) {
    await mkdir(dirname(join(modules, name)), { recursive: true });
    await symlink(join(root, "node_modules", name), join(modules, name), "junction");
  }
  readme = await readFile(join(root, "README.md"), "utf8");
  examples = blocks(readme);
  await mkdir(join(app, "src"));
  files = await Promise.all(
    examples.map(async (code, i) => {
      const file = join(app, "src", `example-${i + 1}.tsx`);
      await writeFile(file, `${code}\nexport {};\n`);
      return file;
    }),
  );
  const inline = join(app, "src", "inline-examples.tsx");
  await writeFile(inline, INLINE_HEAD + INLINE.map((code, i) => `export const inline${i + 1} = ${code};\n`).join(""));
  files.push(inline);
});

afterAll(async () => {
  if (app) await rm(app, { recursive: true, force: true });
});

function problems(moduleResolution: "bundler" | "node16"): string[] {
  const node16 = moduleResolution === "node16";
  const program = ts.createProgram(files, {
    strict: true,
    exactOptionalPropertyTypes: true,
    verbatimModuleSyntax: true,
    noEmit: true,
    jsx: ts.JsxEmit.ReactJSX,
    target: ts.ScriptTarget.ES2022,
    module: node16 ? ts.ModuleKind.Node16 : ts.ModuleKind.ESNext,
    moduleResolution: node16 ? ts.ModuleResolutionKind.Node16 : ts.ModuleResolutionKind.Bundler,
    // Third-party declarations are theirs (@hocuspocus/common's fail node16's rule on extensions).
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(app.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

describe("README examples on the packed package", () => {
  it("there are examples, and they import several entries of the package", async () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
    const code = (await Promise.all(files.map((f) => readFile(f, "utf8")))).join("\n");
    for (const entry of ['"shared-fetch"', '"shared-fetch/devtools"', '"shared-fetch/hocuspocus"']) expect(code).toContain(entry);
  });

  it("the inline calls and elements compiled here are the README's, word for word", () => {
    const prose = readme.replace(/^```[\s\S]*?^```$/gm, "").replace(/\s+/g, " ");
    expect(INLINE.filter((code) => !prose.includes(`\`${code}\``))).toEqual([]);
  });

  it.each(["bundler", "node16"] as const)(
    "every ```tsx and ```ts block, and the inline examples, compile under moduleResolution %s, strict, exactOptionalPropertyTypes, verbatimModuleSyntax",
    (resolution) => {
      expect(problems(resolution)).toEqual([]);
    },
  );
});

// The Next.js providers file, as a reader copies it: rendered on the server with renderToString,
// then hydrated under StrictMode in development (jsdom, fake-indexeddb), where React runs a
// useState initializer twice. connectTabs and createSharedFetchStore are counted through a module
// that wraps them; `fetch` answers the page's one request.
const hydrateScript = (jsdom: string, fakeIndexedDb: string) => `
import { createElement as h, StrictMode } from "react";
import { renderToString } from "react-dom/server";
import { useSharedFetch } from "shared-fetch";
import { made } from "./counting.mjs";
const { Providers } = await import("./providers.mjs");
globalThis.userId = "user-1";
function Items() {
  const query = useSharedFetch("https://api.example.com/items");
  return h("p", null, query.data ? query.data.length + " items" : query.status);
}
const app = () => h(StrictMode, null, h(Providers, null, h(Items)));
const html = renderToString(app());
const server = { ...made, html };
made.stores = 0; made.tabs = 0;
await import(${JSON.stringify(fakeIndexedDb)});
const { JSDOM } = await import(${JSON.stringify(jsdom)});
const dom = new JSDOM('<!doctype html><div id="root">' + html + "</div>", { url: "https://app.example.com/" });
for (const name of ["window", "document", "navigator", "localStorage"])
  Object.defineProperty(globalThis, name, { value: dom.window[name], configurable: true });
globalThis.fetch = async () => new Response("[1,2]", { headers: { "content-type": "application/json" } });
const errors = [];
console.error = (...args) => errors.push(args.map(String).join(" "));
const { hydrateRoot } = await import("react-dom/client");
hydrateRoot(document.getElementById("root"), app(), { onRecoverableError: (e) => errors.push(String(e)) });
const root = document.getElementById("root");
for (let i = 0; i < 200 && root.textContent !== "2 items"; i++) await new Promise((r) => setTimeout(r, 50));
console.log(JSON.stringify({ server, client: { ...made, text: root.textContent }, errors }));
process.exit(0);
`;

describe("README's Next.js providers file, server-rendered and hydrated", () => {
  it("makes one store and one tabs connection per page under StrictMode in development, and shows the data", async () => {
    const source = examples.find((code) => code.startsWith('"use client";') && code.includes("function Providers"));
    expect(source).toBeDefined();
    const js = ts
      .transpileModule(source!, {
        compilerOptions: { jsx: ts.JsxEmit.ReactJSX, module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      })
      .outputText.replace('from "shared-fetch"', 'from "./counting.mjs"');
    await writeFile(join(app, "src", "providers.mjs"), js);
    await writeFile(
      join(app, "src", "counting.mjs"),
      [
        'import * as sf from "shared-fetch";',
        'export * from "shared-fetch";',
        "export const made = { stores: 0, tabs: 0 };",
        "export const connectTabs = (...args) => (made.tabs++, sf.connectTabs(...args));",
        "export const createSharedFetchStore = (...args) => (made.stores++, sf.createSharedFetchStore(...args));",
      ].join("\n"),
    );
    const resolve = (name: string) => pathToFileURL(join(root, "node_modules", name)).href;
    await writeFile(join(app, "src", "hydrate.mjs"), hydrateScript(resolve("jsdom/lib/api.js"), resolve("fake-indexeddb/auto/index.mjs")));
    const { stdout } = await promisify(execFile)(process.execPath, [join(app, "src", "hydrate.mjs")], {
      cwd: app,
      env: { ...process.env, NODE_ENV: "development" },
    });
    expect(JSON.parse(stdout.trim())).toEqual({
      server: { stores: 1, tabs: 0, html: "<p>pending</p>" },
      client: { stores: 1, tabs: 1, text: "2 items" },
      errors: [],
    });
  });
});
