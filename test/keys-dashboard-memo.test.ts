/**
 * A dashboard of 2 000 shared queries asks the store about each of its keys several times on each
 * pass (its options, its snapshot, its subscription, an invalidation's refetch): the remembered
 * URLs and key hashes must hold them all. Bounded at 512, a page that walked more than that in
 * turn found none of them remembered, and parsed and hashed every key again on every ask.
 */
import { expect, it, vi } from "vitest";

const hashes = vi.hoisted(() => ({ count: 0 }));
vi.mock("@noble/hashes/sha2.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("@noble/hashes/sha2.js")>();
  const sha256 = (data: Uint8Array) => {
    hashes.count++;
    return real.sha256(data);
  };
  return { ...real, sha256 };
});

it("a page that walks its 2 000 keys again hashes none of them again", async () => {
  // The setup file loaded the store before the mock: a fresh copy hashes with the counted sha256.
  vi.resetModules();
  const { createSharedFetchStore } = await import("../src/index.ts");
  const Y = await import("yjs");
  const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null });
  const requests = Array.from({ length: 2000 }, (_, i) => ({ url: `https://api.example.test/dashboard/${i}` }));
  for (const req of requests) store.snapshot(req);
  expect(hashes.count).toBe(2000);
  hashes.count = 0;
  for (const req of requests) store.snapshot(req);
  expect(hashes.count).toBe(0);
  store.destroy();
});
