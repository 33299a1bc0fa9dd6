import { Awareness, removeAwarenessStates } from "y-protocols/awareness";
import * as Y from "yjs";
import { describeEntry, SharedFetchDevtoolsPanel, useDevtoolsModel } from "../../devtools/production.ts";
import { createSharedFetchStore, type SharedFetchStoreWithExtras, type StaleReason } from "../../src/index.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { internalsOf, PRESENCE_FIELD, ROOT, TABLES } from "../../src/internals.ts";
import { seedKeys } from "../../test/devtools/seed.ts";
import { createLinkedDocs } from "./linked-docs.ts";
import { scenarioLocks } from "./page-locks.ts";
import { useDisposable } from "./replicas.ts";
import { createSimulatedHost } from "./simulated-host.ts";

/**
 * The panel in each state it must show well: empty, in flight, a stale claim for each of the
 * store's reasons, an error beside a result, 1 000 keys, a first request held by a sync that never
 * ends. Replica "observer" is inspected; peers' records are written raw into the doc (as a peer on
 * another machine would have written them).
 */
type State =
  "empty" | "in-flight" | `stale-${StaleReason}` | "presence-timed-out" | "error-beside-result" | "thousand-keys" | "waiting-for-sync";

const URL = "https://host.example/api/report";
const LABEL = `GET ${URL}`;

/** One raw record from a peer, in a lane of its own. */
function writeAsPeer(doc: Y.Doc, table: string, key: string, value: unknown): void {
  const lane = new Y.Array<unknown>();
  lane.push([{ t: table, k: key, v: value, s: 1 }]);
  doc.getArray<unknown>(ROOT).push([lane]);
}

function createState(state: State) {
  const linked = createLinkedDocs(2);
  const awareness = new Awareness(linked.docs[1]!);
  // The simulated host never answers in time: claims stay in flight while the story is looked at.
  const host = createSimulatedHost({ delayMs: 600_000 });
  // Every state names its replicas alike: under the page's shared lock names one would wait for another's.
  const locks = scenarioLocks();
  const inPage = locks ? { locks } : {};
  const peer = createSharedFetchStore({ doc: linked.docs[0]!, replicaId: "replica-a", fetch: host.fetch, leaseMs: 1500, ...inPage });
  // A sync server that accepted the socket and never answers (a stand-in connector): the store's
  // first claim waits for its initial sync, up to the 2 s cap.
  if (state === "waiting-for-sync") registerConnector(linked.docs[1]!, { whenSynced: new Promise<void>(() => {}), crossDevice: true });
  const observer = createSharedFetchStore({ doc: linked.docs[1]!, replicaId: "observer", fetch: host.fetch, awareness, ...inPage });
  const doc = linked.docs[1]!;
  const key = observer.keyOf({ url: URL });
  // A replica on another device, not running here (a running store would disown a claim under its id).
  const claim = { replicaId: "replica-r", nonce: "n-1", rev: 1, leaseMs: 1500, label: LABEL, kind: "fetch" };
  switch (state) {
    case "in-flight":
      peer.ensure({ url: URL }).catch(() => {});
      break;
    case "stale-lease-silence": // no heartbeat ever comes: stale 1.5 s after the observer first saw it
      writeAsPeer(doc, TABLES.claims, key, claim);
      break;
    case "stale-abandoned":
      writeAsPeer(doc, TABLES.claims, key, { ...claim, abandoned: true });
      break;
    case "stale-disowned": // a claim under the observer's own id that it never made
      writeAsPeer(doc, TABLES.claims, key, { ...claim, replicaId: "observer", nonce: "forged" });
      break;
    case "stale-presence-left":
    case "presence-timed-out": {
      const other = new Awareness(new Y.Doc());
      other.setLocalStateField(PRESENCE_FIELD, { replicaId: "replica-r" });
      awareness.getStates().set(other.clientID, other.getLocalState()!);
      awareness.emit("change", [{ added: [other.clientID], updated: [], removed: [] }, "story"]);
      writeAsPeer(doc, TABLES.claims, key, { ...claim, leaseMs: 600_000 });
      // "server": the sync server said R left. "timeout": y-protocols' own check found R silent for
      // 30 s (a crashed device, a frozen laptop), made here at once, with the origin it gives.
      const origin = state === "presence-timed-out" ? "timeout" : "server";
      setTimeout(() => removeAwarenessStates(awareness, [other.clientID], origin), 300);
      break;
    }
    case "stale-lock-released": {
      // Both stores hold real Web Locks of this browser; the claimant "crashes" half a second after
      // its claim is in the doc. Timed from creation instead, a busy page crashed it before it had
      // claimed: the panel showed "No keys in the doc yet" for good.
      peer.ensure({ url: URL }).catch(() => {});
      const off = peer.onEvent((e) => {
        if (e.type !== "claimed") return;
        off();
        setTimeout(() => internalsOf(peer).dev.crash(), 500);
      });
      break;
    }
    case "error-beside-result":
      seedKeys(doc, 1, { errorEvery: 1, origin: "https://host.example" });
      break;
    case "thousand-keys":
      seedKeys(doc, 1000, { errorEvery: 10, claimEvery: 50 });
      break;
    case "waiting-for-sync":
      observer.ensure({ url: URL }).catch(() => {});
      break;
  }
  return {
    observer,
    awareness,
    destroy() {
      peer.destroy();
      observer.destroy();
      linked.destroy();
    },
  };
}

/** The timeline as sentences, as a scenario narrates it (describeEntry is public for this). */
function Narration({ store }: { store: SharedFetchStoreWithExtras }) {
  const { timeline } = useDevtoolsModel(store);
  const name = (id: string) => (id === "observer" ? "Observer" : id === "replica-a" ? "A" : id === "replica-r" ? "R" : id);
  return (
    <ol data-testid="narration" style={{ fontFamily: "system-ui, sans-serif", fontSize: 13 }}>
      {[...timeline].reverse().map((e) => (
        <li key={e.seq}>{describeEntry(e, name)}</li>
      ))}
    </ol>
  );
}

// No doc comment: Storybook would show it as the component's description on the docs page.
export function DevtoolsState({ state }: { state: State }) {
  const world = useDisposable(() => createState(state));
  return (
    <div>
      <SharedFetchDevtoolsPanel store={world.observer} awareness={world.awareness} initialTab="keys" />
      <Narration store={world.observer} />
    </div>
  );
}
