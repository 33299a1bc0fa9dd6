/**
 * Invariant 14 on the port: a message that fails validation is dropped, counted, never thrown.
 * It was also silent: a tab of another (or a broken) build whose worker dropped its asks, or whose
 * answers it dropped, showed them pending with nothing said anywhere. Each side now warns on its
 * console, naming the message by its type and never by its fields (an ask carries the request's
 * headers and body). Real ports, docs and stores; FakeLocks.
 */
import { afterEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { parseWorkerMessage } from "../../src/worker/parse-worker-message.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/malformed-warned";
const SECRET = "Bearer s3cret-token";

afterEach(() => void vi.restoreAllMocks());

it("the worker warns of each tab message it drops, naming its type and none of its fields", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const host = new Host();
  host.auto = () => ({ status: 200, body: { fine: 1 } });
  const replica = createBrowserReplica({ locks: new FakeLocks().forTab("w"), lockName: "w", fetch: host.fetch });
  cleanup(() => replica.destroy());
  const channel = new MessageChannel();
  cleanup(() => (channel.port1.close(), channel.port2.close()));
  replica.accept(channel.port2 as unknown as MessagePort);
  // An ask of another build: its id is no integer; its request carries a token.
  channel.port1.postMessage({ t: "ensure", id: "1", kind: "fetch", mode: "ensure", req: { url: API, headers: { authorization: SECRET } } });
  channel.port1.postMessage(42);
  await until(() => replica.malformed === 2);
  expect(warn.mock.calls).toEqual([
    ["shared-fetch worker: a tab message failed validation, t:", "ensure"],
    ["shared-fetch worker: a tab message failed validation, t:", undefined],
  ]);
  expect(JSON.stringify(warn.mock.calls)).not.toContain("s3cret");
});

it("a tab warns of each worker message it drops, naming its type, and keeps what it shows", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { kept: 1 } });
  const b = browser(host);
  const t = b.tab();
  await expect(t.ensure({ url: API })).resolves.toMatchObject({ data: { kept: 1 } });
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const receive = (t as unknown as { receive(d: unknown, p: typeof parseWorkerMessage): void }).receive.bind(t);
  for (const g of [null, { t: "settled", id: "x", snap: { data: SECRET } }, { t: "snap", key: "", snap: {} }])
    receive(g, parseWorkerMessage);
  expect(warn.mock.calls).toEqual([
    ["shared-fetch: a message from the worker failed validation, t:", undefined],
    ["shared-fetch: a message from the worker failed validation, t:", "settled"],
    ["shared-fetch: a message from the worker failed validation, t:", "snap"],
  ]);
  expect(t.snapshot({ url: API })).toMatchObject({ status: "success", data: { kept: 1 } });
});
