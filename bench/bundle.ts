/**
 * Bundle size, min+gzip, with react, @tanstack/react-query and yjs external (as ANCHORS.md measures
 * the peers). Each row is an app that imports only what its line names: tree-shaking does the rest.
 * Eager rows count what such an app loads at once; the chunks it loads on demand (`import()`) are
 * rows of their own, as .size-limit.js counts them.
 */
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build, type Plugin } from "esbuild";
import { once, print } from "./scale.ts";

const EXTERNAL = ["react", "react-dom", "react/jsx-runtime", "@tanstack/react-query", "yjs"];
const ENTRY = new URL("../src/index.ts", import.meta.url).pathname;
const HOCUSPOCUS_ENTRY = new URL("../src/hocuspocus/index.ts", import.meta.url).pathname;
const SRC = new URL("../src/", import.meta.url).pathname;
/** What each lazy chunk holds, by the module its `import()` names. */
const LAZY: Record<string, string> = {
  "core/program/index.ts": "program resolver (module lexer, Sucrase), on first program",
  "worker/tab-replica.ts": "connectBrowser's own replica, when no SharedWorker serves the tab",
};

/**
 * `import()` of the chunks named in LAZY left as it is (its path made absolute, to name the chunk),
 * as .size-limit.js's `lazyStaysLazy` does: with esbuild's splitting alone, a chunk the lazy module
 * shares with the entry is imported by the entry whole, whatever the row names (src/index.ts
 * re-exports connectBrowser, whose fallback imports the store and connectTabs). Other `import()`s
 * (the resolver's lexer, Sucrase) come with the chunk that makes them.
 */
export const lazyStaysLazy = (all: boolean): Plugin => ({
  name: "lazy-stays-lazy",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      const path = join(args.resolveDir, args.path);
      return all || LAZY[path.slice(SRC.length)] ? { path, external: true } : undefined;
    });
  },
});

/** Every file the build emits, and the lazy chunks it leaves to `import()`. */
async function bundle(input: { contents: string } | { entry: string }) {
  const eager = "contents" in input;
  const result = await build({
    outdir: "/virtual",
    ...(eager ? { stdin: { contents: input.contents, resolveDir: process.cwd(), loader: "ts" as const } } : { entryPoints: [input.entry] }),
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    external: EXTERNAL,
    write: false,
    splitting: true,
    plugins: [lazyStaysLazy(eager)],
    logLevel: "silent",
  });
  const min = result.outputFiles.reduce((n, f) => n + f.contents.byteLength, 0);
  const gz = result.outputFiles.reduce((n, f) => n + gzipSync(f.contents, { level: 9 }).byteLength, 0);
  const lazy = result.outputFiles.flatMap((f) => [...f.text.matchAll(/import\("(\/[^"]+)"\)/g)].map((m) => m[1]!));
  return { min, gz, lazy };
}

function row(label: string, params: Record<string, string>, min: number, gz: number): void {
  console.log(`  ${label.padEnd(37)} ${(min / 1024).toFixed(1).padStart(6)} KiB min  ${(gz / 1024).toFixed(1).padStart(5)} KiB min+gz`);
  const kib = (n: number) => Math.round(n / 102.4) / 10;
  print("bundle min+gz", "shared-fetch", { bundle: label.trim(), ...params }, once(kib(gz)), "KiB");
  print("bundle min", "shared-fetch", { bundle: label.trim(), ...params }, once(kib(min)), "KiB");
}

export async function bundleSizes(): Promise<void> {
  const rows: [string, string[], string[]?][] = [
    ["store + useSharedFetch", ["createSharedFetchStore", "SharedFetchProvider", "useSharedFetch"]],
    ["  + connectTabs", ["createSharedFetchStore", "SharedFetchProvider", "useSharedFetch", "connectTabs"]],
    ["  + connectTabs + connectPeers", ["createSharedFetchStore", "SharedFetchProvider", "useSharedFetch", "connectTabs", "connectPeers"]],
    // shared-fetch/hocuspocus instead of connectPeers (the app's bundle then has no y-websocket).
    [
      "  + connectTabs + connectHocuspocus",
      ["createSharedFetchStore", "SharedFetchProvider", "useSharedFetch", "connectTabs"],
      ["connectHocuspocus"],
    ],
    ["connectBrowser + useSharedFetch", ["SharedFetchProvider", "useSharedFetch", "connectBrowser"]],
  ];
  console.log("bundle size (esbuild, minified, gzip -9; react, @tanstack/react-query, yjs external), loaded at once:");
  const lazy = new Set<string>();
  for (const [label, names, fromHocuspocus = []] of rows) {
    const contents =
      `export { ${names.join(", ")} } from ${JSON.stringify(ENTRY)};` +
      (fromHocuspocus.length ? `export { ${fromHocuspocus.join(", ")} } from ${JSON.stringify(HOCUSPOCUS_ENTRY)};` : "");
    const { min, gz, lazy: chunks } = await bundle({ contents });
    chunks.forEach((c) => lazy.add(c));
    row(label, { loaded: "at once" }, min, gz);
  }
  console.log("  loaded on demand (each built alone with all it imports but the other chunk; part of it is the eager rows' code too):");
  for (const spec of lazy) {
    const what = LAZY[spec.slice(SRC.length)];
    if (!what) throw new Error(`bench/bundle.ts: a lazy chunk ${spec} this bench does not know; name it in LAZY`);
    const { min, gz, lazy: more } = await bundle({ entry: spec });
    more.forEach((c) => lazy.add(c));
    row(`  ${what}`, { loaded: "on demand" }, min, gz);
  }
}
