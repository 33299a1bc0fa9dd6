/**
 * A refetch re-resolves a program because its modules may have changed (a deploy). In a browser,
 * fetch's default cache mode may answer a module from the HTTP cache (heuristic freshness from
 * Last-Modified, or a max-age) without asking the host: the "new" program would be the old code,
 * recorded for every replica. Re-resolutions revalidate each module with the host
 * (`cache: "no-cache"`: a 304 is cheap); a first resolution uses the cache as the page does.
 */
import { afterEach, expect, it } from "vitest";
import { cluster } from "../harness/replicas.ts";
import { hosts } from "./helpers.ts";

const servers = hosts();
afterEach(() => servers.closeAll());

it("refetchProgram asks the host again for every module: its requests bypass the HTTP cache (cache: no-cache)", async () => {
  const h = await servers.start({ "/app/main.ts": `import "./dep.ts";`, "/app/dep.ts": `export const v = 1;` });
  const modes: (RequestCache | undefined)[] = [];
  const fetchFn: typeof fetch = (input, init) => {
    modes.push(init?.cache);
    return fetch(input, init);
  };
  const c = cluster(1, { fetch: fetchFn, settleMs: 0 });
  const store = c.stores[0]!;
  const req = { url: h.url("/app/main.ts") };
  await store.ensureProgram(req);
  modes.length = 0;
  h.set("/app/dep.ts", `export const v = 2;`);
  const snap = await store.refetchProgram(req);
  expect(snap.data?.files.find((f) => f.name === "/app/dep.ts")?.contents).toBe(`export const v = 2;`);
  expect(modes).toEqual(["no-cache", "no-cache"]);
  c.destroy();
});
