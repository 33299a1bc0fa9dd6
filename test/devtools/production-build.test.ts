import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { build, type Rolldown } from "vite";
import { afterAll, describe, expect, it } from "vitest";

const devtools = (file: string) => fileURLToPath(new URL(`../../devtools/${file}`, import.meta.url));
/** Strings only the panel's components hold (its region label, its resize handle, a timeline sentence). */
const MARKERS = ["shared-fetch devtools views", "Resize shared-fetch devtools", "took over"];
const CACHE = fileURLToPath(new URL("../../node_modules/.cache/shared-fetch-test/", import.meta.url));
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** A tiny app that renders `<SharedFetchDevtools />` from `entry`, built as an app's Vite production build. */
async function bundle(entry: string): Promise<string> {
  // Inside the repository (an ignored cache folder) so the app resolves react and yjs as an app would.
  await mkdir(CACHE, { recursive: true });
  const root = await mkdtemp(join(CACHE, "devtools-app-"));
  dirs.push(root);
  await writeFile(join(root, "index.html"), '<!doctype html><div id="root"></div><script type="module" src="./main.tsx"></script>');
  await writeFile(
    join(root, "main.tsx"),
    `import { createRoot } from "react-dom/client";
import { SharedFetchDevtools } from "${entry}";
declare const store: never;
createRoot(document.getElementById("root")!).render(<SharedFetchDevtools store={store} initialIsOpen />);`,
  );
  const out = await build({
    configFile: false,
    root,
    logLevel: "silent",
    mode: "production",
    plugins: [react()],
    // The package's own subpaths, resolved to its sources as the published exports map resolves them to dist.
    resolve: {
      alias: [
        { find: /^shared-fetch\/devtools\/production$/, replacement: devtools("production.ts") },
        { find: /^shared-fetch\/devtools$/, replacement: devtools("index.ts") },
      ],
    },
    build: { write: false, minify: false, reportCompressedSize: false },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as Rolldown.RolldownOutput[];
  return outputs
    .flatMap((o) => o.output)
    .map((chunk) => (chunk.type === "chunk" ? chunk.code : typeof chunk.source === "string" ? chunk.source : ""))
    .join("\n");
}

describe("production builds (TanStack's convention: process.env.NODE_ENV gates the panel)", () => {
  it("an app rendering <SharedFetchDevtools /> from shared-fetch/devtools ships none of the panel's code; from /production it does", async () => {
    const gated = await bundle("shared-fetch/devtools");
    const shipped = await bundle("shared-fetch/devtools/production");
    // The check can fail: the same markers are found in the production entry's bundle.
    for (const marker of MARKERS) expect(shipped, marker).toContain(marker);
    for (const marker of MARKERS) expect(gated, marker).not.toContain(marker);
    expect(gated.length).toBeLessThan(shipped.length);
  }, 120_000);
});
