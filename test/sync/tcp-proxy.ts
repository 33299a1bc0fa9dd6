import net from "node:net";

/**
 * A TCP proxy on 127.0.0.1 in front of a sync server: `delayMs` holds every chunk that long in each
 * direction (a slow link), `blackhole()` stops forwarding both ways without closing anything (a
 * dropped Wi-Fi, a NAT that forgot the flow: no FIN, no RST), `heal()` delivers what was held.
 */
export type TcpProxy = {
  url: string;
  delayMs: number;
  blackhole(): void;
  heal(): void;
  close(): Promise<void>;
};

export function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let holding = false;
  const held: (() => void)[] = [];
  const proxy: Partial<TcpProxy> & { delayMs: number } = { delayMs: 0 };
  const pipe = (from: net.Socket, to: net.Socket) =>
    from.on("data", (chunk) => {
      const send = () => to.destroyed || to.write(chunk);
      const later = () => (proxy.delayMs > 0 ? setTimeout(send, proxy.delayMs) : send());
      if (holding) held.push(later);
      else later();
    });
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port: own } = server.address() as net.AddressInfo;
      resolve(
        Object.assign(proxy, {
          url: `ws://127.0.0.1:${own}`,
          blackhole: () => (holding = true),
          heal: () => {
            holding = false;
            for (const f of held.splice(0)) f();
          },
          close: () =>
            new Promise<void>((done) => {
              for (const s of sockets) s.destroy();
              server.close(() => done());
            }),
        }) as TcpProxy,
      );
    });
  });
}
