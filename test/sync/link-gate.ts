import net from "node:net";

export type LinkGate = {
  url: string;
  /** Every socket closed, new ones refused (a device offline). */
  down(): void;
  up(): void;
  /** New sockets are accepted and never answered (a connect that hangs); those open stay. */
  hang(): void;
  close(): void;
};

/** A link to a sync server on 127.0.0.1 that can go down and up again. */
export async function linkGate(target: string): Promise<LinkGate> {
  const { port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let mode: "up" | "down" | "hang" = "up";
  const proxy = net.createServer((client) => {
    if (mode === "down") return void client.destroy();
    if (mode === "hang") return void (sockets.add(client), client.on("error", () => {}));
    const upstream = net.connect(Number(port), "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => (sockets.delete(s), client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `ws://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    down: () => ((mode = "down"), sockets.forEach((s) => s.destroy())),
    up: () => void (mode = "up"),
    hang: () => void (mode = "hang"),
    close: () => (proxy.close(), sockets.forEach((s) => s.destroy())),
  };
}
