/**
 * The host of a list, for one test file: a real HTTP server on 127.0.0.1 keeping one list per
 * path prefix (`/s/…` asked through the store, `/p/…` by plain TanStack). A GET answers the list
 * as it is when asked; a POST adds its body's `item` and answers the new list (500 while `failing`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll } from "vitest";

export type Side = "s" | "p";

export type ListHost = {
  base: string;
  /** Every request, in order. */
  seen: { method: string; path: string }[];
  /** Each side's list; every test starts with ["a"]. */
  lists: Record<Side, string[]>;
  failing: boolean;
  /** While an array, GET (or POST) answers wait in it until the test calls them. */
  heldGets: (() => void)[] | null;
  heldPosts: (() => void)[] | null;
};

const fresh = () => ({ seen: [], lists: { s: ["a"], p: ["a"] }, failing: false, heldGets: null, heldPosts: null });

/** Listening before the file's first test, closed after its last; each test starts anew. */
export function listHostForFile(): ListHost {
  const host: ListHost = { base: "", ...fresh() };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const list = host.lists[req.url!.slice(1, 2) as Side];
      host.seen.push({ method: req.method!, path: req.url! });
      const json = (status: number, value: unknown) => () =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      if (req.method === "GET") {
        const answer = json(200, { items: [...list] });
        return void (host.heldGets ? host.heldGets.push(answer) : answer());
      }
      const answer = () => {
        if (host.failing) return json(500, { error: "down" })();
        list.push((JSON.parse(body) as { item: string }).item);
        json(201, { items: [...list] })();
      };
      if (host.heldPosts) host.heldPosts.push(answer);
      else answer();
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    host.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => void Object.assign(host, fresh()));
  return host;
}
