// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchProvider, useProgram, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, type Cluster } from "../harness/replicas.ts";

const ORIGIN = "https://modules.example.test";
const FILES: Record<string, string> = {
  "/one/main.ts": `import { helper } from "./helper.ts";\nexport const one = helper(1);\n`,
  "/one/helper.ts": `export const helper = (n: number) => n;\n`,
  "/two/main.tsx": `export const two = <b>2</b>;\n`,
};
const ONE = `${ORIGIN}/one/main.ts`;
const TWO = `${ORIGIN}/two/main.tsx`;

/** The harness host answers every call at once from FILES (404 otherwise). */
function serveFiles(c: Cluster, files: Record<string, string> = FILES): void {
  c.host.auto = (call) => {
    const body = files[new URL(call.url).pathname];
    if (body === undefined) call.respondRaw(404, "not found");
    else call.respondRaw(200, body, { "content-type": "text/javascript" });
    return undefined;
  };
}

type Seen = { url: string | null; status: string; files: string; first: string | undefined; claim: string };

function Pane({ url, log, compile }: { url: string | null; log: Seen[]; compile?: boolean }) {
  const { status, data, claim, refetch } = useProgram(url, compile ? { compile } : undefined);
  log.push({
    url,
    status,
    files: data ? data.files.map((f) => f.name).join(",") : "-",
    first: data?.files[0]?.contents,
    claim: claim ? (claim.mine ? "mine" : "foreign") : "-",
  });
  return (
    <div>
      <span data-testid="status">{status}</span>
      <span data-testid="main">{data ? data.main : "none"}</span>
      <span data-testid="compiled">{data?.compiled ? Object.keys(data.compiled).join(",") : "-"}</span>
      <button onClick={() => void refetch()}>refetch</button>
    </div>
  );
}

function app(store: SharedFetchStoreWithExtras, client: QueryClient, pane: React.ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{pane}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

const flush = () => act(async () => {});
const dedupe = (log: Seen[]) => log.filter((s, i) => i === 0 || JSON.stringify(s) !== JSON.stringify(log[i - 1]));
const calls = (c: Cluster) => c.host.calls.map((call) => new URL(call.url).pathname);

afterEach(cleanup);

describe("useProgram in a component", () => {
  it("pending → success, each file requested once; every render in order", async () => {
    const c = cluster(1, { settleMs: 0 });
    serveFiles(c);
    const log: Seen[] = [];
    render(app(c.stores[0]!, new QueryClient(), <Pane url={ONE} log={log} />));
    // The file's first resolution loads the resolver's lazy chunks (lexer, Sucrase): on a busy
    // machine that took longer than waitFor's default second.
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("success"), { timeout: 10_000 });
    expect(screen.getByTestId("main").textContent).toBe("/one/main.ts");
    expect(calls(c)).toEqual(["/one/main.ts", "/one/helper.ts"]);
    // The store's notice may come a microtask before TanStack's result (see two-panes.test.tsx).
    expect(
      dedupe(log)
        .map((s) => `${s.status}:${s.claim}:${s.files}`)
        .filter((s, i, all) => s !== all[i - 1] && (i === 0 || s !== "pending:-:-")),
    ).toEqual(["pending:-:-", "pending:mine:-", "success:-:/one/main.ts,/one/helper.ts"]);
    c.destroy();
  });

  it("switching URL and back shows the stored program at once: no new request, no pending on return", async () => {
    const c = cluster(1, { settleMs: 0 });
    serveFiles(c);
    const store = c.stores[0]!;
    const client = new QueryClient();
    const log: Seen[] = [];
    const view = render(app(store, client, <Pane url={ONE} log={log} />));
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("success"), { timeout: 10_000 });
    view.rerender(app(store, client, <Pane url={TWO} log={log} />));
    await waitFor(() => expect(screen.getByTestId("main").textContent).toBe("/two/main.tsx"), { timeout: 10_000 });
    expect(screen.getByTestId("status").textContent).toBe("success");
    const requests = c.host.calls.length;
    const back = log.length;

    view.rerender(app(store, client, <Pane url={ONE} log={log} />));
    await flush();
    const returned = log.slice(back);
    expect(returned.length).toBeGreaterThan(0);
    // Every render after the switch back, the first one included, shows ONE's program as settled.
    expect(returned.every((s) => s.url === ONE && s.status === "success" && s.files === "/one/main.ts,/one/helper.ts")).toBe(true);
    expect(c.host.calls.length).toBe(requests);

    // A fresh tab-local cache (e.g. the query was garbage collected) still shows it from the doc.
    const fresh: Seen[] = [];
    render(app(store, new QueryClient(), <Pane url={TWO} log={fresh} />));
    await flush();
    expect(fresh.every((s) => s.status === "success" && s.files === "/two/main.tsx")).toBe(true);
    expect(c.host.calls.length).toBe(requests);
    c.destroy();
  });

  it("refetch really re-resolves: new requests, the old program stays visible while it runs", async () => {
    const c = cluster(2, { settleMs: 0 });
    const files = { ...FILES };
    serveFiles(c, files);
    const [a, b] = c.stores;
    const log: Seen[] = [];
    render(app(a!, new QueryClient(), <Pane url={ONE} log={log} />));
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("success"));
    expect(calls(c)).toEqual(["/one/main.ts", "/one/helper.ts"]);

    c.host.auto = undefined; // hold the re-resolution's first request
    await act(async () => screen.getByText("refetch").click());
    await waitFor(() => expect(c.host.calls).toHaveLength(3));
    expect(log.at(-1)).toMatchObject({ status: "success", claim: "mine", files: "/one/main.ts,/one/helper.ts" });
    expect(b!.programSnapshot({ url: ONE })).toMatchObject({ status: "pending", claim: { mine: false } });

    files["/one/main.ts"] = `import { helper } from "./helper.ts";\nexport const one = helper(2);\n`;
    serveFiles(c, files);
    await act(async () => c.host.calls[2]!.respondRaw(200, files["/one/main.ts"]!));
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("success"));
    expect(calls(c)).toEqual(["/one/main.ts", "/one/helper.ts", "/one/main.ts", "/one/helper.ts"]);
    expect(log.at(-1)!.first).toContain("helper(2)");
    expect(b!.programSnapshot({ url: ONE }).data!.files[0]!.contents).toContain("helper(2)");
    // Data shown once never flips back to none.
    const firstData = log.findIndex((s) => s.files !== "-");
    expect(log.slice(firstData).filter((s) => s.files === "-")).toEqual([]);
    c.destroy();
  });

  it("two stores on synced docs side by side: one resolution, each file requested once", async () => {
    const c = cluster(2, { settleMs: 0 });
    serveFiles(c);
    const [a, b] = c.stores;
    const logA: Seen[] = [];
    const logB: Seen[] = [];
    render(
      <>
        {app(a!, new QueryClient(), <Pane url={ONE} log={logA} />)}
        {app(b!, new QueryClient(), <Pane url={ONE} log={logB} />)}
      </>,
    );
    await waitFor(() => expect(screen.getAllByTestId("status").map((e) => e.textContent)).toEqual(["success", "success"]));
    expect(calls(c)).toEqual(["/one/main.ts", "/one/helper.ts"]);
    expect(
      dedupe(logB)
        .map((s) => `${s.status}:${s.claim}`)
        .filter((s, i) => i === 0 || s !== "pending:-"),
    ).toEqual(["pending:-", "pending:foreign", "success:-"]);
    c.destroy();
  });

  it("unmounting the last component aborts every request of the walk and releases the claim", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const view = render(app(a!, new QueryClient(), <Pane url={ONE} log={[]} />));
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    c.host.calls[0]!.respondRaw(200, FILES["/one/main.ts"]!);
    await waitFor(() => expect(c.host.calls).toHaveLength(2)); // helper.ts in flight
    expect(b!.claims()).toHaveLength(1);
    view.unmount();
    await flush();
    expect(c.host.calls[1]!.signal?.aborted).toBe(true);
    expect(b!.claims()).toHaveLength(0);
    expect(b!.programSnapshot({ url: ONE })).toEqual({ status: "idle" });
    c.destroy();
  });

  it("invariant 11: unmounting during a refetch's re-resolution aborts its requests and releases the claim", async () => {
    const c = cluster(2, { settleMs: 0 });
    serveFiles(c);
    const [a, b] = c.stores;
    const view = render(app(a!, new QueryClient(), <Pane url={ONE} log={[]} />));
    await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("success"));
    c.host.auto = undefined; // hold the re-resolution's first request
    await act(async () => screen.getByText("refetch").click());
    await waitFor(() => expect(c.host.calls).toHaveLength(3));
    expect(b!.claims()).toHaveLength(1);
    view.unmount();
    await flush();
    expect(c.host.calls[2]!.signal?.aborted).toBe(true);
    expect(b!.claims()).toHaveLength(0);
    c.destroy();
  });

  it("compile option: the program carries compiled JavaScript (a key of its own); null and bad URLs", async () => {
    const c = cluster(1, { settleMs: 0 });
    serveFiles(c);
    const store = c.stores[0]!;
    render(app(store, new QueryClient(), <Pane url={TWO} log={[]} compile />));
    await waitFor(() => expect(screen.getByTestId("compiled").textContent).toBe("/two/main.tsx"));
    expect(store.programSnapshot({ url: TWO }).status).toBe("idle"); // the plain program is another key
    cleanup();

    const idle: Seen[] = [];
    render(app(store, new QueryClient(), <Pane url={null} log={idle} />));
    await flush();
    expect(idle.at(-1)).toMatchObject({ status: "pending", files: "-" }); // TanStack's disabled state
    cleanup();

    function Bad() {
      const { status, error } = useProgram("ftp://modules.example.test/x.ts");
      return <span data-testid="bad">{`${status}: ${error?.message}`}</span>;
    }
    render(app(store, new QueryClient(), <Bad />));
    await waitFor(() => expect(screen.getByTestId("bad").textContent).toMatch(/^error/));
    expect(screen.getByTestId("bad").textContent).toMatch(
      /^error: shared-fetch: program url "ftp:\/\/modules.example.test\/x.ts" has protocol ftp:/,
    );
    c.destroy();
  });
});
