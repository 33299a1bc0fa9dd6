/**
 * The loopback HTTP host of bench/scale.ts: JSON naming the path asked for. Run as a child process
 * (forked), it sends its base URL to the parent once listening; `serve` runs it in the caller's.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export async function serve(): Promise<{ base: string; close: () => Promise<void> }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path: req.url, n }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

if (process.send && import.meta.url === `file://${process.argv[1]}`) {
  const { base } = await serve();
  process.send(base);
  // Gone with its parent.
  process.on("disconnect", () => process.exit(0));
}
