import type { Host } from "../../sim/host.ts";

/** A program of two modules, the entry importing `helper.ts`. */
export const MAIN = "https://modules.example.test/app/main.ts";
export const HELPER = "https://modules.example.test/app/helper.ts";
const FILES: Record<string, string> = {
  "/app/main.ts": `import { h } from "./helper.ts";\nexport const main = h;\n`,
  "/app/helper.ts": `export const h = 1;\n`,
};

/** `host` answers MAIN's modules at once, failing helper.ts with 503 the first `failures` times. Returns helper.ts's calls so far. */
export function serveFlakyProgram(host: Host, failures: number): () => number {
  let failed = 0;
  host.auto = (call) => {
    const path = new URL(call.url).pathname;
    if (path === "/app/helper.ts" && failed < failures) {
      failed++;
      call.respondRaw(503, "busy");
    } else call.respondRaw(200, FILES[path]!, { "content-type": "text/javascript" });
    return undefined;
  };
  return () => host.calls.filter((call) => call.url === HELPER).length;
}
