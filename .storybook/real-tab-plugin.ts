import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";

/**
 * Serves the "Real tabs" story's tab page at /real-tab/ (index.html + tab.js): a page of its own,
 * so each iframe of it is a real browsing context. The page is bundled with esbuild, so it works
 * the same under `storybook dev`, `storybook build` (emitted as assets) and the vitest story tests
 * (whose server runs the plugins of this config).
 */
const ENTRY = fileURLToPath(new URL("../stories/real-tabs/tab-page.tsx", import.meta.url));
const BASE = "/real-tab/";
const HTML = `<!doctype html><html><head><meta charset="utf-8"><title>shared-fetch tab</title></head><body style="margin:0"><div id="root"></div><script type="module" src="./tab.js"></script></body></html>`;

async function bundle(): Promise<string> {
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    minify: true,
    write: false,
    logLevel: "silent",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  return out.outputFiles[0]!.text;
}

export function realTabPlugin(): Plugin {
  return {
    name: "shared-fetch:real-tab",
    configureServer(server) {
      server.middlewares.use(BASE, (req, res, next) => {
        const path = (req.url ?? "/").split("?")[0];
        if (path === "/" || path === "/index.html") {
          res.setHeader("content-type", "text/html");
          res.end(HTML);
          return;
        }
        if (path !== "/tab.js") return next();
        // Bundled per request: the page's sources may change while `storybook dev` runs.
        bundle().then(
          (code) => {
            res.setHeader("content-type", "text/javascript");
            res.end(code);
          },
          (error: unknown) => next(error),
        );
      });
    },
    async generateBundle() {
      this.emitFile({ type: "asset", fileName: "real-tab/index.html", source: HTML });
      this.emitFile({ type: "asset", fileName: "real-tab/tab.js", source: await bundle() });
    },
  };
}
