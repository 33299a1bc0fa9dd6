/**
 * Re-resolutions ask each module past the browser's HTTP cache (cache: "no-cache"), so a refetch
 * after a deploy gets the new code. An evicted program's record is gone (maxPrograms, the devtools'
 * evict) and its next resolution numbers again from revision 1: it is still a re-resolution, and
 * still bypasses the cache, or a refetch after the deploy records the old code for every replica.
 */
import { afterEach, expect, it } from "vitest";
import { cluster } from "../harness/replicas.ts";
import { hosts } from "./helpers.ts";

const servers = hosts();
afterEach(() => servers.closeAll());

it("a program evicted by maxPrograms, then refetched, asks its modules past the HTTP cache (no-cache), though its revision started again at 1", async () => {
  const h = await servers.start({ "/app/a.ts": `import "./dep.ts";`, "/app/dep.ts": `export const v = 1;`, "/app/b.ts": `export {};` });
  const modes: (RequestCache | undefined)[] = [];
  const fetchFn: typeof fetch = (input, init) => {
    modes.push(init?.cache);
    return fetch(input, init);
  };
  const c = cluster(1, { fetch: fetchFn, settleMs: 0, maxPrograms: 1 });
  const store = c.stores[0]!;
  const a = { url: h.url("/app/a.ts") };
  await store.ensureProgram(a);
  await store.ensureProgram({ url: h.url("/app/b.ts") });
  // The first program was evicted: its record is gone.
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  expect(store.programSnapshot(a).data).toBeUndefined();
  modes.length = 0;
  h.set("/app/dep.ts", `export const v = 2;`);
  const snap = await store.refetchProgram(a);
  expect(snap.data?.files.find((f) => f.name === "/app/dep.ts")?.contents).toBe(`export const v = 2;`);
  expect(modes).toEqual(["no-cache", "no-cache"]);
  c.destroy();
});
