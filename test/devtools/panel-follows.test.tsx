// @vitest-environment jsdom
/**
 * The panel keeps up with what happened: a replica whose work is done stays a Timeline filter for
 * what it did, an open JSON preview follows the key's new result, "copy JSON" copies the whole
 * JSON, and "invalidate" reaches the app's queries of the key whatever the URL's length and says
 * what it marked.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { background, cluster, URL_A } from "../harness/replicas.ts";

const req = { url: URL_A };
const eventually = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });
const flush = () => act(async () => {});
afterEach(cleanup);

function details(label = /^Details of GET/) {
  fireEvent.click(screen.getAllByRole("button", { name: label })[0]!);
  return screen.getAllByTestId("key-details")[0]!;
}

describe("the panel follows the key and the timeline", () => {
  it("Timeline: a replica named in the timeline can be chosen in its Replica filter after its claim is done", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    render(<SharedFetchDevtoolsPanel store={a!} initialTab="timeline" />);
    const p = background(b!.ensure(req));
    await eventually(() => expect(screen.getAllByTestId("timeline-entry").length).toBeGreaterThan(0));
    const select = screen.getByRole("combobox", { name: /Replica/ }) as HTMLSelectElement;
    // While B holds its claim, it is offered: pick it.
    fireEvent.change(select, { target: { value: b!.replicaId } });
    expect(select.value).toBe(b!.replicaId);
    await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
    await act(() => p);
    await eventually(() => expect(screen.getAllByTestId("timeline-entry").map((e) => e.dataset.type)).toEqual(["result", "claimed"]));
    // B holds no claim now: still an option, still the filter.
    const options = [...select.options].map((o) => o.value);
    expect(options).toContain(b!.replicaId);
    expect(select.value).toBe(b!.replicaId);
  }, 30_000);

  it("details: the open JSON preview follows a new result of the key (not the data of when it was opened)", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const off = a!.subscribe(req, () => {}); // as a mounted hook: A knows the request
    await act(() => a!.ensure(req));
    render(<SharedFetchDevtoolsPanel store={a!} />);
    await eventually(() => expect(screen.getAllByTestId("key-row")).toHaveLength(1));
    const d = details();
    fireEvent.click(within(d).getByRole("button", { name: /^show JSON/ }));
    expect(JSON.parse(screen.getByTestId("json-preview").textContent!)).toEqual({ n: 1 });
    fireEvent.click(within(d).getByRole("button", { name: "refetch" }));
    await flush();
    await eventually(() => expect(screen.getAllByTestId("key-row")[0]!.dataset.resultRev).toBe("2"));
    expect(a!.snapshot(req).data).toEqual({ n: 2 });
    expect(JSON.parse(screen.getByTestId("json-preview").textContent!)).toEqual({ n: 2 });
    off();
  }, 30_000);

  it("details: copy JSON of a result whose pretty JSON is over 1 MiB (the preview's cut) copies the whole JSON", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const big = { rows: Array.from({ length: 18_000 }, (_, i) => ({ i, text: "x".repeat(30) })) };
    c.host.auto = () => ({ status: 200, body: big });
    await act(() => a!.ensure(req));
    const copied: string[] = [];
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: (t: string) => (copied.push(t), Promise.resolve()) },
      configurable: true,
    });
    render(<SharedFetchDevtoolsPanel store={a!} />);
    await eventually(() => expect(screen.getAllByTestId("key-row")).toHaveLength(1));
    const d = details();
    fireEvent.click(within(d).getByRole("button", { name: "copy JSON" }));
    await flush();
    expect(within(d).getByRole("status").textContent).toBe("JSON copied.");
    expect(JSON.stringify(big, null, 2).length).toBeGreaterThan(1024 * 1024);
    expect(copied).toHaveLength(1);
    expect(JSON.parse(copied[0]!)).toEqual(big);
  }, 30_000);
});

function Pane({ name, url }: { name: string; url: string }) {
  const { data } = useSharedFetch<{ n: number }>(url, { staleTime: 60_000 });
  return <span data-testid={`${name}-data`}>{data ? data.n : "none"}</span>;
}
function tab(store: SharedFetchStoreWithExtras, name: string, client: QueryClient, url: string, panel = false) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>
        <Pane name={name} url={url} />
      </SharedFetchProvider>
      {panel && <SharedFetchDevtoolsPanel store={store} />}
    </QueryClientProvider>
  );
}

describe("invalidate with the app's QueryClient", () => {
  it("a long URL (label over 200 characters): the app's active query of the key is still invalidated and refetches", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const url = `${URL_A}/${"segment/".repeat(30)}end`;
    const client = new QueryClient();
    render(tab(a!, "a", client, url, true));
    await eventually(() => expect(screen.getByTestId("a-data").textContent).toBe("1"));
    await eventually(() => expect(screen.getAllByTestId("key-row")).toHaveLength(1));
    const d = details();
    await eventually(() => expect(within(d).getByRole("button", { name: "invalidate" })).toHaveProperty("disabled", false));
    fireEvent.click(within(d).getByRole("button", { name: "invalidate" }));
    await flush();
    expect(within(d).getByRole("status").textContent).toBe("Marked stale for every replica; this tab's queries invalidated.");
    await eventually(() => expect(screen.getByTestId("a-data").textContent).toBe("2"));
  }, 30_000);

  it("with a client but nothing recorded in the doc, the message does not claim every replica was marked", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const client = new QueryClient();
    render(
      <QueryClientProvider client={client}>
        <SharedFetchDevtoolsPanel store={a!} />
      </QueryClientProvider>,
    );
    background(b!.ensure(req)); // B's claim, nothing recorded
    await eventually(() => expect(screen.getAllByTestId("key-row")).toHaveLength(1));
    const d = details();
    fireEvent.click(within(d).getByRole("button", { name: "invalidate" }));
    await flush();
    expect(within(d).getByRole("status").textContent).toBe("Nothing recorded to mark stale; this tab's queries invalidated.");
  }, 30_000);
});
