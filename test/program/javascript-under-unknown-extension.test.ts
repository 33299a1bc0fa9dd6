/**
 * A browser runs a module by its content type, not its name: `import "./vendor.min"` served as
 * JavaScript is a module whose own imports the browser loads too. The program holds them as well;
 * a file served as something else under an unknown extension (an SVG) is carried unscanned.
 */
import { expect, it } from "vitest";
import { resolveProgram } from "../../src/core/program/index.ts";
import { servedPerTest } from "./module-host.ts";

const serve = servedPerTest();
const js = { "content-type": "text/javascript; charset=utf-8" };

it("a module with an unknown extension served as JavaScript is scanned: its imports are in the program", async () => {
  const h = await serve({
    "/app/main.js": `import "./vendor.min";`,
    "/app/vendor.min": { body: `import "./dep.js"; export const v = 1;`, headers: js },
    "/app/dep.js": `export const d = 1;`,
  });
  const program = await resolveProgram(h.url("/app/main.js"), { fetch });
  expect(program.files.map((f) => f.name).sort()).toEqual(["/app/dep.js", "/app/main.js", "/app/vendor.min"]);
});

it("a file under an unknown extension served as something else is carried, not scanned", async () => {
  const h = await serve({
    "/app/main.js": `import "./logo.svgz";`,
    "/app/logo.svgz": { body: `<svg><script>import("./nothing.js")</script></svg>`, headers: { "content-type": "image/svg+xml" } },
  });
  const program = await resolveProgram(h.url("/app/main.js"), { fetch });
  expect(program.files.map((f) => f.name)).toEqual(["/app/main.js", "/app/logo.svgz"]);
  expect(h.requests).not.toContain("/app/nothing.js");
});
