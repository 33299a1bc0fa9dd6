import net from "node:net";

export type LinkGate = {
  url: string;
  /** Every socket closed, new ones refused (a device offline). */
  down(): void;
  up(): void;
  /** New sockets are accepted and never answered (a connect that hangs); those open stay. */
  hang(): void;
  /**
   * The sockets open now lose their server end, and their device is never told (a laptop that
   * slept past the server's ping: the server closed the connection, the device's socket stays
   * half-open and silent). New sockets go through.
   */
  halfOpen(): void;
  close(): void;
};

/** A link to a sync server on 127.0.0.1 that can go down and up again. */
export async function linkGate(target: string): Promise<LinkGate> {
  const { port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let mode: "up" | "down" | "hang" = "up";
  const proxy = net.createServer((client) => {
    if (mode === "down") return void client.destroy();
    if (mode === "hang") return void (sockets.add(client), client.on("error", () => {}));
    const upstream = net.connect(Number(port), "127.0.0.1");
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    for (const s of pair) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => (sockets.delete(s), pairs.has(pair) && (pairs.delete(pair), client.destroy(), upstream.destroy())));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `ws://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    down: () => ((mode = "down"), sockets.forEach((s) => s.destroy())),
    up: () => void (mode = "up"),
    hang: () => void (mode = "hang"),
    halfOpen: () =>
      pairs.forEach((pair) => {
        const [client, upstream] = pair;
        pairs.delete(pair);
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.on("data", () => {}); // read and dropped: nothing answers
        upstream.destroy();
      }),
    close: () => (proxy.close(), sockets.forEach((s) => s.destroy())),
  };
}
