/**
 * The counting HTTP host of `npm run bench:cluster`, in a process of its own: 50 peers in the bench
 * process keep its event loop busy, and a host on that loop accepted connections so late that
 * clients gave up (`connect ETIMEDOUT`). Counts every request per path on arrival; answers at once.
 * Talks to its parent over IPC only (started by cluster-host.ts): sends `{ type: "listening", port }`
 * once it accepts connections, answers `{ type: "counts", id, prefix }` with the counts of the paths
 * under `prefix`, and exits when the parent goes away.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type HostRequest = { type: "counts"; id: number; prefix: string };
export type HostReply =
  { type: "listening"; port: number } | { type: "counts"; id: number; counts: Record<string, number> } | { type: "error"; message: string };

const counts = new Map<string, number>();
const send = (reply: HostReply): void => void process.send?.(reply);

// No request or headers timeout: the peers' process can be starved for a minute between opening
// a connection and writing its request (Node's 60 s headers timeout then closed it: EPIPE).
const server = createServer({ requestTimeout: 0, headersTimeout: 0 }, (request, response) => {
  const path = new URL(request.url ?? "/", "http://host").pathname;
  const n = (counts.get(path) ?? 0) + 1;
  counts.set(path, n);
  // No keep-alive: a client reusing a socket the server is closing gets ECONNRESET under load.
  response.writeHead(200, { "content-type": "application/json", connection: "close" });
  response.end(JSON.stringify({ path, n }));
});

if (!process.send) throw new Error("cluster-host-process: must be started with an IPC channel (child_process.fork)");
// A deep accept queue: 50 peers may open a hundred connections in the same millisecond.
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () =>
  send({ type: "listening", port: (server.address() as AddressInfo).port }),
);

process.on("message", (message: unknown) => {
  const m = message as Partial<HostRequest> | null;
  if (m?.type !== "counts" || typeof m.id !== "number" || typeof m.prefix !== "string") {
    send({
      type: "error",
      message: `cluster-host-process: expected { type: "counts", id: number, prefix: string }, got ${JSON.stringify(message)}`,
    });
    return;
  }
  const prefix = m.prefix;
  send({ type: "counts", id: m.id, counts: Object.fromEntries([...counts].filter(([path]) => path.startsWith(prefix))) });
});
// The parent went away (or closed the channel): nothing left to count for.
process.on("disconnect", () => server.close(() => process.exit(0)));
