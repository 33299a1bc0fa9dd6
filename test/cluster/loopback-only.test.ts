/**
 * README, Scaling out ("Run it"): `npm run server:cluster` starts its instances "on 127.0.0.1",
 * and each one says it listens on ws://127.0.0.1:PORT. Its rooms are guarded by tokens of a demo
 * secret anyone can read in this repository (invariant 13: one doc per trust boundary, guarded by
 * the server's auth), so an instance reachable from the network would open every room to it.
 * Pinned here: the instances accept no connection on any other address of this machine.
 */
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { useCluster } from "./harness.ts";

const env = useCluster({ instances: 1 });

/** "connected" or the error code of a TCP connection to host:port. */
const tryConnect = (host: string, port: number): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => (socket.destroy(), resolve("connected")));
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

describe("a cluster instance listens on 127.0.0.1 only", () => {
  it("reachable on 127.0.0.1, refused on every other address of this machine (IPv6 loopback included)", async () => {
    const port = Number(new URL(env.cluster().urls[0]!).port);
    expect(await tryConnect("127.0.0.1", port)).toBe("connected");
    // Link-local addresses need a scope to connect to: left out.
    const others = Object.values(networkInterfaces())
      .flatMap((infos) => infos ?? [])
      .map((info) => info.address)
      .filter((address) => address !== "127.0.0.1" && !address.startsWith("fe80:"));
    expect(others.length).toBeGreaterThan(0);
    for (const address of others) expect([address, await tryConnect(address, port)]).toEqual([address, "ECONNREFUSED"]);
  });
});
