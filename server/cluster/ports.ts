import { createServer } from "node:net";

/**
 * A port that was free on 127.0.0.1 a moment ago. Redis cannot be told "port 0" (that turns TCP
 * off) and a restarted instance must come back on the port its clients know, so ports are chosen
 * up front instead of by the listener.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error("freePort: no port assigned"))));
    });
  });
}
