import http from "node:http";
import type net from "node:net";
import WebSocket, { WebSocketServer } from "ws";

/**
 * A WebSocket relay on 127.0.0.1 in front of a sync server, frame by frame: what a device's socket
 * and the server say to each other passes through `toClient` / `toServer`, which may hold a frame
 * back (return false) — a link that dropped part of a sync — and `inject` sends the device a frame
 * the server never wrote (a faulty or hostile server). Counts every connection attempt it took.
 */
export type FrameRelay = {
  url: string;
  /** Upgrades accepted so far (each a connection attempt of a provider). */
  attempts: number;
  /** Open device sockets. */
  readonly open: number;
  toClient: (frame: Uint8Array, n: number) => boolean;
  toServer: (frame: Uint8Array, n: number) => boolean;
  /** Sends `bytes` to every open device socket, as if the server had written them. */
  inject(bytes: Uint8Array): void;
  /**
   * Closes every device socket now (and its upstream), as a server or a NAT dropping them: with no
   * close frame (1006 at the device), or with `code`'s (a proxy or server saying why: 1012, restart).
   */
  cut(code?: number): void;
  /** Refuses every upgrade with this HTTP status from now on (undefined: relay again). */
  refuse: number | undefined;
  close(): Promise<void>;
};

export async function frameRelay(target: string): Promise<FrameRelay> {
  const pairs = new Set<{ client: WebSocket; upstream: WebSocket }>();
  const server = http.createServer();
  const wss = new WebSocketServer({ noServer: true });
  const relay: FrameRelay = {
    url: "",
    attempts: 0,
    get open() {
      return pairs.size;
    },
    toClient: () => true,
    toServer: () => true,
    inject: (bytes) => pairs.forEach(({ client }) => client.send(bytes)),
    cut: (code) =>
      pairs.forEach(({ client, upstream }) => {
        if (code === undefined) client.terminate();
        else client.close(code);
        upstream.terminate();
      }),
    refuse: undefined,
    close: () =>
      new Promise<void>((done) => {
        relay.cut();
        wss.close();
        server.close(() => done());
      }),
  };
  server.on("upgrade", (request, socket: net.Socket, head) => {
    relay.attempts += 1;
    socket.on("error", () => {});
    if (relay.refuse !== undefined) {
      socket.end(`HTTP/1.1 ${relay.refuse} Refused\r\nConnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (client) => {
      const upstream = new WebSocket(target + (request.url ?? "/"));
      const pair = { client, upstream };
      pairs.add(pair);
      const early: Uint8Array[] = [];
      let fromClient = 0;
      let fromServer = 0;
      const end = () => {
        pairs.delete(pair);
        client.terminate();
        upstream.terminate();
      };
      for (const s of [client, upstream]) {
        s.on("error", () => {});
        s.on("close", end);
      }
      client.on("message", (data: Buffer) => {
        const frame = new Uint8Array(data);
        if (!relay.toServer(frame, ++fromClient)) return;
        if (upstream.readyState === WebSocket.OPEN) upstream.send(frame);
        else early.push(frame);
      });
      upstream.on("open", () => early.splice(0).forEach((frame) => upstream.send(frame)));
      upstream.on("message", (data: Buffer) => {
        const frame = new Uint8Array(data);
        if (relay.toClient(frame, ++fromServer) && client.readyState === WebSocket.OPEN) client.send(frame);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  relay.url = `ws://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return relay;
}
