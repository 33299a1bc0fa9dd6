import type { WorkKind } from "./key.ts";

/** What a store did and saw, for the devtools panel and for logging. One typed union. */
export type StoreEvent =
  | { type: "claimed"; kind: WorkKind; key: string; label: string; rev: number; takeoverOf?: string }
  | { type: "yielded"; kind: WorkKind; key: string; rev: number; to: string }
  | { type: "dispatched"; kind: WorkKind; key: string; label: string; rev: number }
  | { type: "settled"; kind: WorkKind; key: string; rev: number; outcome: "result" | "error"; written: boolean }
  | { type: "aborted"; kind: WorkKind; key: string; rev: number; reason: "superseded" | "no-waiters" | "destroyed" | "hidden" }
  | { type: "released"; kind: WorkKind; key: string; rev: number }
  | { type: "swept"; keys: string[] };

export type StoreEventListener = (event: StoreEvent) => void;
