import type { Meta, StoryObj } from "@storybook/react-vite";
import { QueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { expect, waitFor, within } from "storybook/test";
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from "y-protocols/awareness";
import { SharedFetchDevtools, useDevtoolsModel } from "../devtools/production.ts";
import { createSharedFetchStore, type SharedFetchStore, type SharedRequest } from "../src/index.ts";
import { TABLES } from "../src/internals.ts";
import { DocContents } from "./support/doc-contents.tsx";
import { joinHostilePeer } from "./support/hostile-peer.ts";
import { createLinkedDocs } from "./support/linked-docs.ts";
import { scenarioLocks } from "./support/page-locks.ts";
import { HostCounter, ReplicaPanes, useHostState } from "./support/panes.tsx";
import { expectNoLies, findPanes } from "./support/play.ts";
import { useDisposable, type Replica } from "./support/replicas.ts";
import { createSimulatedHost, type SimulatedHost } from "./support/simulated-host.ts";
import { delayArg, urlArg } from "./support/worlds.ts";

type ScenarioProps = {
  /** How long the simulated host takes to answer, in ms. */
  delayMs: number;
  /** What both panes ask for (the simulated host answers any URL). */
  url: string;
};

const LINK = "story-link";

/** What the request carries and no replica may write into the doc (invariant 13). */
const QUERY_TOKEN = "q-demo-7d1f";
const HEADER_TOKEN = "hdr-demo-5e0a";

/** `url` with `?token=…` and an Authorization header: secrets the host needs, the doc must not hold. */
function withSecrets(url: string): SharedRequest {
  let href = url;
  try {
    const u = new URL(url);
    u.searchParams.set("token", QUERY_TOKEN);
    href = u.href;
  } catch {
    // Not a URL (the control was edited): the store refuses it, and the pane says so.
  }
  return { url: href, headers: { authorization: `Bearer ${HEADER_TOKEN}` } };
}

/**
 * Like createReplicas, plus presence: each store gets an awareness, and the awarenesses are wired
 * to each other as a provider would. Without it a replica that holds no claim is invisible to the
 * others' panels (it writes nothing to the doc).
 */
function createWorld(host: SimulatedHost) {
  const linked = createLinkedDocs(2);
  // Joins now, writes only when the story's button says so (invariant 14).
  const peer = joinHostilePeer(linked.net);
  const awareness = linked.docs.map((doc) => new Awareness(doc));
  const locks = scenarioLocks();
  for (const from of awareness) {
    from.on("update", (changes: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      if (origin === LINK) return;
      const update = encodeAwarenessUpdate(from, [...changes.added, ...changes.updated, ...changes.removed]);
      for (const to of awareness) if (to !== from) applyAwarenessUpdate(to, update, LINK);
    });
  }
  const replicas = ["Replica A", "Replica B"].map((name, i): Replica => {
    const replicaId = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    const doc = linked.docs[i]!;
    const store = createSharedFetchStore({ doc, replicaId, fetch: host.fetch, awareness: awareness[i], ...(locks ? { locks } : {}) });
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
    return { name, replicaId, doc, store, queryClient };
  });
  return {
    replicas,
    awareness,
    peer,
    destroy() {
      for (const r of replicas) {
        r.store.destroy();
        r.queryClient.clear();
      }
      peer.destroy();
      linked.destroy(); // destroys the docs, and with them their awarenesses
    },
  };
}

/**
 * Every holder the panel's model showed for the first key, in order: the play function checks this
 * history after the fact instead of racing to catch the claim on a busy machine.
 */
function HolderHistory({ store, awareness }: { store: SharedFetchStore; awareness: Awareness }) {
  const snapshot = useDevtoolsModel(store, awareness);
  const seen = useRef<string[]>([]);
  const row = snapshot.keys[0];
  const holder = row ? (row.claim?.replicaId ?? "none") : "no key";
  if (seen.current.at(-1) !== holder) seen.current.push(holder); // eslint-disable-line react-hooks/refs
  const history = seen.current.join(" > "); // eslint-disable-line react-hooks/refs
  const words = seen.current.map((h) => (h === "no key" ? "no key yet" : h === "none" ? "nobody" : h)).join(" → "); // eslint-disable-line react-hooks/refs
  return (
    <p style={{ fontFamily: "system-ui, sans-serif", fontSize: 13 }} data-testid="holders-seen" data-value={history}>
      {/* In words and with arrows: "no key > none > replica-a > none" read as comparisons of unnamed values. */}
      Holders of the key seen by Replica A&apos;s panel, in order: {words}
    </p>
  );
}

/** What the host received first: the request with its query string and its Authorization header. */
function HostReceived({ host }: { host: SimulatedHost }) {
  const call = useHostState(host).log[0];
  return (
    <p style={{ fontFamily: "system-ui, sans-serif", fontSize: 13 }} data-testid="host-received">
      The host received: {call ? `${call.method} ${call.url} · authorization: ${call.headers.authorization ?? "none"}` : "nothing yet"}
    </p>
  );
}

/** A button that lets the peer write a result for the panes' key with no data (rev 2: newer than theirs). */
function BrokenWrite({ world, request }: { world: ReturnType<typeof createWorld>; request: SharedRequest }) {
  const [outcome, setOutcome] = useState<string>();
  const write = () => {
    const key = world.replicas[0]!.store.keyOf(request);
    const thrown = world.peer.write(TABLES.results, key, { rev: 2 });
    setOutcome(thrown === undefined ? "written; no exception reached the peer" : `the write threw: ${thrown}`);
  };
  return (
    <p style={{ fontFamily: "system-ui, sans-serif", fontSize: 13 }}>
      <button type="button" onClick={write} disabled={outcome !== undefined}>
        A buggy peer writes a broken result
      </button>{" "}
      <span data-testid="broken-write">{outcome ?? "not yet"}</span>
    </p>
  );
}

/**
 * Two replicas share one request; Replica A's devtools panel shows the claim, then the result, a
 * key without the request's secrets, and the malformed record a buggy peer writes.
 */
function DevtoolsScenario({ delayMs, url }: ScenarioProps) {
  // The answer does not echo the URL back: the doc holds the response, never the request's inputs.
  const [host] = useState(() => createSimulatedHost({ delayMs, respond: (call) => ({ message: "hello from the host", request: call.n }) }));
  const [request] = useState(() => withSecrets(url));
  const world = useDisposable(() => createWorld(host));
  const [first] = world.replicas;
  return (
    // Room below the page for the docked panel (320 px by default), as an app leaves it: without it the
    // panes' last lines and the doc's contents sat under the panel, out of reach of any scroll.
    <div style={{ paddingBottom: 340 }}>
      <HostCounter host={host} />
      <HostReceived host={host} />
      <BrokenWrite world={world} request={request} />
      <ReplicaPanes replicas={world.replicas} request={request} />
      <HolderHistory store={first!.store} awareness={world.awareness[0]!} />
      <DocContents doc={first!.doc} summary="What the shared doc holds (every replica's copy): search it for the token" />
      <SharedFetchDevtools store={first!.store} awareness={world.awareness[0]} initialIsOpen />
    </div>
  );
}

const meta = {
  title: "Devtools/Panel",
  component: DevtoolsScenario,
  args: { delayMs: 1500, url: "https://host.example/api/greeting" },
  argTypes: {
    delayMs: delayArg,
    url: {
      ...urlArg,
      description:
        "What both panes ask for; the story adds a `?token=` query string and an Authorization header (the simulated host answers any URL).",
    },
  },
  // A fresh world (docs, stores, host) whenever an arg changes.
  render: (args) => <DevtoolsScenario key={`${args.delayMs} ${args.url}`} {...args} />,
} satisfies Meta<typeof DevtoolsScenario>;

export default meta;
type Story = StoryObj<typeof meta>;

/**
 * The key's holder goes from the fetching replica to none, its result rev becomes 1, and both
 * replicas are listed; the key and the doc hold no query string or header value of the request
 * (13); a peer's malformed result is ignored by both replicas and listed in the Malformed tab (14).
 */
export const ClaimThenResult: Story = {
  name: "Devtools: one key, claimed then recorded; a peer's malformed record listed",
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 13 and 14. Both panes ask for the URL with a `?token=` query string and an Authorization header; one replica fetches, and the panel's Keys tab shows the request as method, origin and path (`?…` where the query was) — the doc (open \"What the shared doc holds\") holds the key's hash, the claim while it stands and the response, never the token or the header value the host received. Then a buggy peer writes, for the same key, a result of a newer revision with no data: had a replica trusted it, its pane would show 'done, nothing here'. Both replicas ignore it, the panes keep their data, nothing is thrown at the peer or into React, and the Malformed tab lists the record with its table, key and reason. The Replicas tab also says how long a claim made now would wait before its request leaves, and why: here the default window, since these docs are linked by hand and no connector measures a round trip.",
      },
    },
  },
  play: async ({ canvasElement, args, userEvent }) => {
    const canvas = within(canvasElement);
    // Generous waits: a cold or busy test browser can take seconds to render the first frame.
    const keysTab = await canvas.findByRole("tab", { name: /^Keys/ }, { timeout: 15_000 });
    await expect(keysTab).toHaveAttribute("aria-selected", "true");
    await waitFor(
      () => {
        const rows = canvas.getAllByTestId("key-row");
        expect(rows).toHaveLength(1);
        expect(rows[0]).toHaveAttribute("data-holder", "none");
        expect(rows[0]).toHaveAttribute("data-result-rev", "1");
      },
      { timeout: args.delayMs + 15_000 },
    );
    const keyRow = canvas.getByTestId("key-row");
    await expect(within(keyRow).getByTestId("holder")).toHaveTextContent(/^none$/);
    // While the host worked, exactly one replica held the claim, and then nobody did.
    const history = (canvas.getByTestId("holders-seen").dataset.value ?? "").split(" > ");
    const holders = history.filter((h) => h !== "no key" && h !== "none");
    expect([["replica-a"], ["replica-b"]]).toContainEqual(holders);
    await expect(history.at(-1)).toBe("none");
    await expect(canvas.getByTestId("holders-seen")).toHaveTextContent(
      /^Holders of the key seen by Replica A's panel, in order: (no key yet → )?(nobody → )?replica-[ab] → nobody$/,
    );
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 1$/);
    const { paneA, paneB } = await findPanes(canvasElement);
    const shown = within(paneA).getByTestId("data").textContent;
    await expect(shown).toContain('"request": 1');
    await expect(within(paneB).getByTestId("data").textContent).toBe(shown);

    // Invariant 13: the host got the query string and the header value; the key and the doc did not.
    const received = canvas.getByTestId("host-received").textContent ?? "";
    await expect(received).toContain(`?token=${QUERY_TOKEN}`);
    await expect(received).toContain(`Bearer ${HEADER_TOKEN}`);
    const requestCell = within(keyRow).getByRole("rowheader");
    await expect(requestCell).toHaveTextContent(/^GET https:\/\/host\.example\/api\/greeting/);
    const doc = canvas.getByTestId("doc-contents").textContent ?? "";
    await expect(doc).toContain("hello from the host"); // the response is shared: that is the point
    await expect(doc).toContain(keyRow.dataset.key!);
    for (const text of [keyRow.textContent ?? "", keyRow.dataset.key!, doc]) {
      for (const secret of [QUERY_TOKEN, HEADER_TOKEN, "token="]) await expect(text).not.toContain(secret);
    }

    await userEvent.click(canvas.getByRole("tab", { name: /^Replicas/ }));
    await expect(canvas.getByRole("tab", { name: /^Replicas/ })).toHaveAttribute("aria-selected", "true");
    await waitFor(
      () => {
        const rows = canvas.getAllByTestId("replica-row");
        expect(rows.map((r) => [r.dataset.replicaId, r.dataset.present])).toEqual([
          ["replica-a", "true"],
          ["replica-b", "true"],
        ]);
      },
      { timeout: 15_000 },
    );
    // Issue 10: how long a claim made now would wait before its request leaves, and why. These docs
    // are linked by hand (no connector measures a round trip): the default window.
    const settle = canvas.getByTestId("settle-window");
    await expect(settle).toHaveAttribute("data-why", "default");
    await expect(settle).toHaveTextContent(/: window 100 ms: the default, no round trip measured yet$/);

    // Invariant 14: a peer writes a result for the panes' key with no data; every reader ignores it.
    await expect(canvas.getByRole("tab", { name: /^Malformed/ })).toHaveTextContent(/^Malformed \(0\)$/);
    await userEvent.click(canvas.getByRole("button", { name: "A buggy peer writes a broken result" }));
    await expect(canvas.getByTestId("broken-write")).toHaveTextContent(/^written; no exception reached the peer$/);
    const malformedTab = canvas.getByRole("tab", { name: /^Malformed/ });
    await waitFor(() => expect(malformedTab).toHaveTextContent(/^Malformed \(1\)$/), { timeout: 15_000 });
    await userEvent.click(malformedTab);
    await expect(malformedTab).toHaveAttribute("aria-selected", "true");
    const bad = await canvas.findByTestId("malformed-row", {}, { timeout: 15_000 });
    await expect(bad).toHaveAttribute("data-map", "results");
    await expect(bad).toHaveTextContent(/result has no data/);
    await expect(bad.querySelector(`[title="${keyRow.dataset.key}"]`)).not.toBeNull();
    // The record is in the doc, yet both panes still show answer 1 and no error; the key's result is still rev 1.
    await waitFor(() => expect(canvas.getByTestId("doc-contents")).toHaveTextContent(/"rev": 2/), { timeout: 15_000 });
    for (const pane of [paneA, paneB]) {
      await expect(pane).toHaveAttribute("data-status", "success");
      await expect(within(pane).getByTestId("data").textContent).toBe(shown);
      await expect(within(pane).getByTestId("error")).toHaveTextContent(/^—$/);
      await expect(pane).toHaveAttribute("data-answers-seen", "1");
    }
    await userEvent.click(canvas.getByRole("tab", { name: /^Keys/ }));
    await waitFor(() => expect(canvas.getByTestId("key-row")).toHaveAttribute("data-result-rev", "1"), { timeout: 15_000 });
    await expectNoLies([paneA, paneB]);

    // Scrolled to its end, the page shows its last line above the docked panel, not under it.
    const page = canvasElement.ownerDocument.documentElement;
    page.scrollTop = page.scrollHeight;
    const last = canvas.getByTestId("doc-contents").closest("details")!.getBoundingClientRect().bottom;
    await expect(last).toBeLessThanOrEqual(canvas.getByRole("separator", { name: /^Resize/ }).getBoundingClientRect().top);
  },
};
