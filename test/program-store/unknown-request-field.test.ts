/**
 * Bad program input names the bad value: a program request holds `url` and `compile` alone. A
 * field it does not know (`headers` for a host that wants a token, `method`, a `compiled: true`
 * typo) was dropped unsent and unkeyed: the modules went without the header and the program came
 * back uncompiled, with no word. It is refused at the call, naming the field, as a fetch request's
 * unknown field is, and nothing is requested or written.
 */
import { expect, it } from "vitest";
import * as Y from "yjs";
import type { ProgramRequest } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";

const URL = "https://modules.example.test/app/main.ts";

it("an unknown request field is refused by name; nothing is requested or written", async () => {
  const c = cluster(1, { settleMs: 0 });
  const [a] = c.stores;
  const before = Y.encodeStateAsUpdate(c.docOf(a!)).byteLength;
  const bad = (extra: object) => ({ url: URL, ...extra }) as unknown as ProgramRequest;
  await expect(a!.ensureProgram(bad({ headers: { authorization: "Bearer t" } }))).rejects.toThrow(
    'shared-fetch: unknown request field "headers"; expected url or compile',
  );
  await expect(a!.refetchProgram!(bad({ compiled: true }))).rejects.toThrow(/unknown request field "compiled"/);
  expect(() => a!.programSnapshot(bad({ method: "POST" }))).toThrow(/unknown request field "method"/);
  expect(() => a!.programKeyOf(bad({ signal: new AbortController().signal }))).toThrow(/unknown request field "signal"/);
  // An undefined field is no field, as for fetch requests (`{ url, compile: flag }` with no flag).
  expect(a!.programKeyOf(bad({ compile: undefined, extra: undefined }))).toBe(a!.programKeyOf({ url: URL }));
  expect(Y.encodeStateAsUpdate(c.docOf(a!)).byteLength).toBe(before);
  expect(c.host.calls).toHaveLength(0);
});
