/**
 * `npm run bench:devtools`: the panel with 1 000 keys, and what it adds to bundles. One JSON line
 * per figure (shared/BENCH.md), a readable line before each. Asserts nothing. `npm run bench`
 * runs the panel's figures too (devtoolsFigures, without the bundles: bench/bundle.ts has those).
 * - update: a doc change to the next snapshot of the model (inspect, timeline diff, rebuild)
 * - renders per second: listener calls while the doc changes every 5 ms (renders are batched)
 * - panel render: the open panel (Keys view: the rows of one viewport, virtualised) rendered to a string
 * - bundles (esbuild, minified, gzip -9, react/yjs external, NODE_ENV=production), loaded at once:
 *   lazy chunks (`import()`) left out, as bench/bundle.ts counts them
 */
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import * as Y from "yjs";
import { createDevtoolsModel, SharedFetchDevtoolsPanel } from "../devtools/production.ts";
import { createSharedFetchStore } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { seedKeys } from "../test/devtools/seed.ts";
import { median } from "./browser/stats.ts";
import { lazyStaysLazy } from "./bundle.ts";

const KEYS = 1000;
const RUNS = Number(process.env.RUNS ?? 20);

function figure(name: string, params: Record<string, unknown>, samples: number[], unit: string): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const value = median(sorted);
  const round = (n: number) => Math.round(n * 100) / 100;
  console.log(`${name}: ${round(value)} ${unit} (min ${round(sorted[0]!)}, max ${round(sorted.at(-1)!)}, ${samples.length} runs)`);
  console.log(
    JSON.stringify({
      figure: name,
      contender: "shared-fetch",
      params,
      value: round(value),
      unit,
      runs: samples.length,
      min: round(sorted[0]!),
      max: round(sorted.at(-1)!),
    }),
  );
}

function world() {
  const doc = new Y.Doc();
  const store = createSharedFetchStore({ doc, fetch: (async () => new Response("1")) as typeof fetch });
  const keys = seedKeys(doc, KEYS, { errorEvery: 10, claimEvery: 50 });
  const { records } = internalsOf(store);
  let n = 0;
  // One peer writing a new result revision for one key: the change a panel sees most often.
  const change = () => {
    n += 1;
    records.doc.transact(() =>
      records.results.set(keys[n % KEYS]!, {
        rev: 10 + n,
        data: { n },
        label: `GET https://api.example.test/items/${n % KEYS}`,
        by: "peer-writer",
      }),
    );
  };
  return { store, change };
}

async function update(): Promise<void> {
  const { store, change } = world();
  const model = createDevtoolsModel(store);
  model.getSnapshot();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    change();
    const before = model.getSnapshot();
    if (before === model.getSnapshot() && i < 0) throw new Error("unreachable");
    samples.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 5));
  }
  figure("devtools update to snapshot", { keys: KEYS }, samples, "ms");
  model.destroy();
  store.destroy();
}

async function rendersPerSecond(): Promise<void> {
  const samples: number[] = [];
  for (let run = 0; run < 3; run++) {
    const { store, change } = world();
    const model = createDevtoolsModel(store);
    let renders = 0;
    model.getSnapshot();
    model.subscribe(() => {
      renders += 1;
      model.getSnapshot();
    });
    const seconds = 2;
    const timer = setInterval(change, 5);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    clearInterval(timer);
    samples.push(renders / seconds);
    model.destroy();
    store.destroy();
  }
  figure("devtools renders per second", { keys: KEYS, docChangesPerSecond: 200 }, samples, "renders/s");
}

function panelRender(): void {
  const { store } = world();
  const samples: number[] = [];
  for (let i = 0; i < Math.min(RUNS, 10); i++) {
    const started = performance.now();
    renderToString(createElement(SharedFetchDevtoolsPanel, { store }));
    samples.push(performance.now() - started);
  }
  figure("devtools panel render (Keys, the rows in view of 1000)", { keys: KEYS }, samples, "ms");
  store.destroy();
}

async function gz(contents: string): Promise<{ gz: number; text: string }> {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: "tsx" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    external: ["react", "react-dom", "react/jsx-runtime", "@tanstack/react-query", "yjs"],
    define: { "process.env.NODE_ENV": '"production"' },
    // What an app loads at once, as bench/bundle.ts counts it: `import()`s (the program resolver,
    // connectBrowser's own replica) stay lazy chunks, out of the figure.
    plugins: [lazyStaysLazy(true)],
    write: false,
    logLevel: "silent",
  });
  const out = result.outputFiles[0]!;
  return { gz: gzipSync(out.contents, { level: 9 }).byteLength, text: out.text };
}

async function bundles(): Promise<void> {
  const rows: [string, string][] = [
    ["main entry (everything it exports, loaded at once)", `export * from "./src/index.ts";`],
    [
      "app rendering <SharedFetchDevtools /> from shared-fetch/devtools",
      `import { SharedFetchDevtools } from "./devtools/index.ts"; export const x = SharedFetchDevtools;`,
    ],
    [
      "app rendering it from shared-fetch/devtools/production",
      `import { SharedFetchDevtools } from "./devtools/production.ts"; export const x = SharedFetchDevtools;`,
    ],
  ];
  for (const [name, contents] of rows) {
    const { gz: size, text } = await gz(contents);
    const panelCode = text.includes("shared-fetch devtools views");
    console.log(`bundle ${name}: ${(size / 1024).toFixed(1)} KiB min+gz, panel code ${panelCode ? "included" : "absent"}`);
    console.log(
      JSON.stringify({
        figure: "bundle min+gz",
        contender: "shared-fetch",
        params: { bundle: name, panelCode },
        value: Math.round(size / 102.4) / 10,
        unit: "KiB",
        runs: 1,
        min: Math.round(size / 102.4) / 10,
        max: Math.round(size / 102.4) / 10,
      }),
    );
  }
}

/** The panel's figures with 1 000 keys: one update's time, renders per second, one render of the open panel. */
export async function devtoolsFigures(): Promise<void> {
  await update();
  await rendersPerSecond();
  panelRender();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(`shared-fetch devtools bench — node ${process.version}, ${KEYS} keys`);
  await devtoolsFigures();
  await bundles();
}
