/**
 * The entry may be extensionless (`/app/main` served as JavaScript). A module that imports it back
 * as `./main` names that very file, which the resolution already holds: it is the entry, found
 * with no request, not a name to probe (where main.ts … would be missing, or another file).
 */
import { expect, it } from "vitest";
import { resolveProgram } from "../../src/core/program/index.ts";
import { servedPerTest } from "./module-host.ts";

const serve = servedPerTest();

it("an import of an extensionless entry by its own name is the entry: no probe, no request", async () => {
  const h = await serve({ "/app/main": `import "./dep.js";`, "/app/dep.js": `import "./main";` });
  const program = await resolveProgram(h.url("/app/main?v=1"), { fetch });
  expect(program.files.map((f) => f.name)).toEqual(["/app/main", "/app/dep.js"]);
  expect(h.requests).toEqual(["/app/main?v=1", "/app/dep.js"]);
});
