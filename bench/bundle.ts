/**
 * Bundle size, min+gzip, with react, @tanstack/react-query and yjs external (as ANCHORS.md measures
 * the peers). Each row is an app that imports only what its line names: tree-shaking does the rest.
 */
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const EXTERNAL = ["react", "react-dom", "react/jsx-runtime", "@tanstack/react-query", "yjs"];
const ENTRY = new URL("../src/index.ts", import.meta.url).pathname;
const HOCUSPOCUS_ENTRY = new URL("../src/hocuspocus/index.ts", import.meta.url).pathname;

async function size(names: string[], fromHocuspocus: string[] = []): Promise<{ min: number; gz: number; lazy: number }> {
  const contents =
    `export { ${names.join(", ")} } from ${JSON.stringify(ENTRY)};` +
    (fromHocuspocus.length ? `export { ${fromHocuspocus.join(", ")} } from ${JSON.stringify(HOCUSPOCUS_ENTRY)};` : "");
  const result = await build({
    outdir: "/virtual",
    stdin: { contents, resolveDir: process.cwd(), loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    external: EXTERNAL,
    write: false,
    // As an app's bundler does: the program resolver (and its lexer and compiler) become lazy
    // chunks, loaded only when a program is first resolved.
    splitting: true,
    logLevel: "silent",
  });
  const [entry, ...chunks] = result.outputFiles;
  const isEntry = (f: { path: string }) => f.path.endsWith("/stdin.js");
  const main = result.outputFiles.find(isEntry) ?? entry!;
  const shared = chunks.filter(
    (f) =>
      !isEntry(f) && main.text.includes(`./${f.path.split("/").pop()}"`) && !main.text.includes(`import("./${f.path.split("/").pop()}")`),
  );
  const eager = [main, ...shared];
  const bytes = eager.reduce((n, f) => n + f.contents.byteLength, 0);
  const gz = eager.reduce((n, f) => n + gzipSync(f.contents, { level: 9 }).byteLength, 0);
  const lazy = result.outputFiles.filter((f) => !eager.includes(f)).reduce((n, f) => n + gzipSync(f.contents, { level: 9 }).byteLength, 0);
  return { min: bytes, gz, lazy };
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
  ];
  console.log("bundle size (esbuild, minified, gzip -9; react, @tanstack/react-query, yjs external):");
  for (const [label, names, fromHocuspocus] of rows) {
    const { min, gz, lazy } = await size(names, fromHocuspocus);
    console.log(
      `  ${label.padEnd(37)} ${(min / 1024).toFixed(1).padStart(6)} KiB min  ${(gz / 1024).toFixed(1).padStart(5)} KiB min+gz` +
        `   (lazy program-resolver chunks: ${(lazy / 1024).toFixed(1)} KiB min+gz)`,
    );
  }
}
