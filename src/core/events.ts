import type { WorkKind } from "./key.ts";
import type { SettleWhy } from "./settle-window.ts";

/** What a store did and saw, for the devtools panel and for logging. One typed union. */
export type StoreEvent =
  /**
   * `settleMs`: the window the claim waits before its request leaves (0: it left at once), and
   * `settleWhy` why (see SettleWhy); a claim with a fence also waits for the server's order.
   */
  | {
      type: "claimed";
      kind: WorkKind;
      key: string;
      label: string;
      rev: number;
      takeoverOf?: string;
      settleMs: number;
      settleWhy: SettleWhy;
    }
  /**
   * Where the sync server's order placed a claim with a fence (see Settle.fence): `first`, it runs;
   * `behind` another replica's, it yields; `unknown`, the fence gave up (not in sync, no echo, or an
   * update the server refused), and the claim waits its whole window from then.
   */
  | { type: "ordered"; kind: WorkKind; key: string; rev: number; order: "first" | "behind" | "unknown" }
  | { type: "yielded"; kind: WorkKind; key: string; rev: number; to: string }
  /**
   * An ask of this store waits on the live claim of replica `to` at `rev` instead of claiming: it
   * sends nothing, that request answers it. Once per key and revision (while the store holds the
   * key); never after a claim of ours yielded at it (`yielded` told that).
   */
  | { type: "joined"; kind: WorkKind; key: string; rev: number; to: string }
  | { type: "dispatched"; kind: WorkKind; key: string; label: string; rev: number }
  | { type: "settled"; kind: WorkKind; key: string; rev: number; outcome: "result" | "error"; written: boolean }
  | {
      type: "aborted";
      kind: WorkKind;
      key: string;
      rev: number;
      reason: "superseded" | "no-waiters" | "refetched" | "destroyed" | "hidden";
    }
  | { type: "released"; kind: WorkKind; key: string; rev: number }
  | { type: "swept"; keys: string[] };

export type StoreEventListener = (event: StoreEvent) => void;
