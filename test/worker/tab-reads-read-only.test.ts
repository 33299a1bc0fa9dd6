/**
 * Read-only reads in a SharedWorker tab: the tab's claims(), inspect() and malformed() are what the
 * worker last sent, kept for every reader of the tab (its devtools panel among them). A caller that
 * wrote into one changed what every later read showed, where a replica of its own hands out frozen
 * claim records and a new inspection per read (test/inspector.test.ts).
 */
import { expect, it } from "vitest";
import * as Y from "yjs";
import { Host } from "../../sim/host.ts";
import { ROOT } from "../../src/internals.ts";
import { linkDocs } from "../harness/doc-records.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/read-only";

/** Tries to write into whatever a read handed out; a frozen object refuses (strict mode throws). */
function scribble(target: object, fields: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(fields))
    try {
      (target as Record<string, unknown>)[field] = value;
    } catch {
      // refused: what the contract asks
    }
}

it("a caller that writes into a SharedWorker tab's claims(), inspect() or malformed() leaves what the tab shows as the worker sent it", async () => {
  const host = new Host();
  const peer = new Y.Doc();
  const store = browser(host, { connectPeers: (doc) => (linkDocs(doc, peer), undefined) }).tab();
  store.onInspect(() => {});
  const asked = store.ensure({ url: API });
  asked.catch(() => {}); // awaited below; a failed check must not leave it unhandled at the cleanup
  await until(() => host.calls.length === 1);
  // Garbage from a peer, once the worker's doc is linked to it: listed as malformed (invariant 14).
  const bad = new Y.Array<unknown>();
  bad.push([{ t: "results", k: "k1", v: { rev: "one" }, s: 1 }]);
  peer.getArray<unknown>(ROOT).push([bad]);
  await until(() => store.inspect().keys.some((k) => k.claim) && store.malformed().length === 1);
  const shown = () => ({ claims: store.claims(), inspection: store.inspect(), malformed: store.malformed() });
  const before = structuredClone(shown());
  expect(before.claims).toHaveLength(1);

  // An app or a panel that writes into what it read: a forged takeover, a foreign death, another key.
  const forged = { replicaId: "nobody", rev: 99, abandoned: true, leaseMs: 1 };
  scribble(store.claims()[0]![1], forged);
  scribble(store.inspect().keys.find((k) => k.claim)!.claim!, { ...forged, stale: true });
  scribble(store.inspect().keys[0]!, { label: "GET forged" });
  scribble(store.inspect().replicas[0]!, { me: false });
  scribble(store.malformed()[0]!, { key: "k2", reason: "forged" });
  scribble(store.inspect().keys, { length: 0 });
  scribble(store.claims(), { length: 0 });

  expect(shown()).toEqual(before);
  host.calls[0]!.respond(200, { ok: true });
  await expect(asked).resolves.toMatchObject({ status: "success" });
});

it("a caller that sorts what a SharedWorker tab's claims(), inspect() or malformed() handed out is not thrown at, as in a replica of its own, and the next read is as the worker sent it", async () => {
  const host = new Host();
  const peer = new Y.Doc();
  const store = browser(host, { connectPeers: (doc) => (linkDocs(doc, peer), undefined) }).tab();
  store.onInspect(() => {});
  const urls = [`${API}/b`, `${API}/a`];
  const asked = urls.map((url) => store.ensure({ url }));
  for (const a of asked) a.catch(() => {}); // awaited below
  await until(() => host.calls.length === 2);
  for (const k of ["k1", "k2"]) {
    const bad = new Y.Array<unknown>();
    bad.push([{ t: "results", k, v: { rev: "one" }, s: 1 }]);
    peer.getArray<unknown>(ROOT).push([bad]);
  }
  await until(() => store.inspect().keys.filter((k) => k.claim).length === 2 && store.malformed().length === 2);
  const before = structuredClone({ claims: store.claims(), inspection: store.inspect(), malformed: store.malformed() });

  // In place, as `[...]` of a replica of its own allows: each read there is a new array.
  const desc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
  expect(() => store.claims().sort(([a], [b]) => desc(a, b))).not.toThrow();
  expect(() => store.inspect().keys.sort((a, b) => desc(a.key, b.key))).not.toThrow();
  expect(() => store.inspect().replicas.reverse()).not.toThrow();
  expect(() => store.inspect().malformed.sort((a, b) => desc(a.key ?? "", b.key ?? ""))).not.toThrow();
  expect(() => store.malformed().reverse()).not.toThrow();
  expect(() => store.malformed().splice(0)).not.toThrow();

  expect({ claims: store.claims(), inspection: store.inspect(), malformed: store.malformed() }).toEqual(before);
  for (const call of host.calls) call.respond(200, { ok: true });
  await Promise.all(asked);
});
