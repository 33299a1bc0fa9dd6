/** What the test page exposes on `window` (read by the harness through page.evaluate). */
export type HistoryEntry = {
  /** Epoch ms with sub-ms precision (performance.timeOrigin + performance.now()). */
  at: number;
  status: "idle" | "pending" | "success" | "error";
  hasData: boolean;
  /** claim.mine, or null without a claim. */
  mine: boolean | null;
};

export type PageEvent = { at: number; type: string; [field: string]: unknown };

/**
 * One change of the claims map as this tab saw it: holder null = no claim on the key; mine = the
 * holder is this tab; recorded = a result or error for the key was in the doc at that moment.
 */
export type ClaimLogEntry = { at: number; key: string; holder: string | null; mine: boolean; recorded: boolean };

export type PageWindow = {
  /** Doc updates as they arrived: from "tabs" (BroadcastChannel/IndexedDB), "ws", "local" (store). */
  __updates: { at: number; from: string; bytes: number }[];
  /** boot, tabsSynced, peersSynced, store: epoch ms. */
  __marks: Record<string, number>;
  __claimLog: ClaimLogEntry[];
  __history: HistoryEntry[];
  __events: PageEvent[];
  __errors: string[];
  __ready?: boolean;
  /** With start=manual: enables the hook. */
  __start?: () => void;
  __replicaId?: string;
  /** The tab's QueryClient. */
  __client?: unknown;
  /** Invalidates the shared query by its key prefix. */
  __invalidate?: () => Promise<void>;
  /** POSTs through sharedMutationFn, then invalidates. */
  __mutate?: () => Promise<void>;
  __store?: unknown;
};
