// The package's public API (the contract in DESIGN.md). The storage layout is not part of it: the
// devtools and tests reach it through `shared-fetch/internals`.
export { createSharedFetchStore, DEFAULT_LEASE_MS, DEFAULT_PROGRAM_LEASE_MS, DEFAULT_SETTLE_MS } from "./core/store.ts";
export type { CreateStoreOptions, SharedFetchStoreExtras, SharedFetchStoreWithExtras } from "./core/store.ts";
export { SharedFetchInputError } from "./core/errors.ts";
export type { Outcome, OutcomeError } from "./core/fetcher.ts";
export { DEFAULT_MAX_RESULT_BYTES } from "./core/fetcher.ts";
export type { StoreEvent, StoreEventListener } from "./core/events.ts";
export type { Inspection, InspectedClaim, InspectedKey, InspectedReplica, InspectedSettle, Holder } from "./core/inspector.ts";
export type { SettleWhy } from "./core/settle-window.ts";
export type { StaleReason } from "./core/liveness.ts";
export type { MalformedRecord } from "./core/lanes.ts";
export type { ClaimFailures, ClaimRecord } from "./core/records.ts";
export type { LockManagerLike } from "./core/locks.ts";
export type { WorkKind } from "./core/key.ts";
export type {
  SharedRequest,
  Snapshot,
  SnapshotStatus,
  SnapshotError,
  ClaimView,
  Program,
  ProgramFile,
  ProgramRequest,
  EnsureOptions,
  ProgramOptions,
  SharedFetchStore,
  SharedFetchStoreOptions,
} from "./core/types.ts";
export { SharedFetchProvider, useSharedFetchStore } from "./react/provider.tsx";
export { useSharedFetch, type UseSharedFetchOptions, type SharedFetchResult } from "./react/use-shared-fetch.ts";
export { useProgram } from "./react/use-program.ts";
export { sharedProgramOptions, type UseProgramOptions, type ProgramData } from "./react/shared-program-options.ts";
export {
  sharedQueryOptions,
  sharedQueryKey,
  type SharedQueryOptionsInput,
  type SharedQueryOptions,
  type SharedNotifyOnChangeProps,
} from "./react/shared-query-options.ts";
export { sharedMutationFn } from "./react/shared-mutation.ts";
export { SharedFetchError } from "./react/shared-error.ts";
export type { SharedView } from "./react/use-shared-view.ts";
export type { RetryData, RetryDelayOption, RetryOption, RetryPolicy } from "./core/retry.ts";
export { connectTabs, clearTabsStorage, connectPeers, getBrowserId, connectionLostOrigin } from "./sync/index.ts";
export type { Connection, TabsOptions, PeersOptions, PeerConnection, WebSocketConstructor } from "./sync/index.ts";
export { useSharedFetchSuspense, type UseSharedFetchSuspenseOptions } from "./react/use-shared-fetch-suspense.ts";
export { connectBrowser, type ConnectBrowserOptions, type BrowserStore, type ReplicaMode } from "./worker/connect-browser.ts";
export type { PeersServer } from "./sync/peers-options.ts";
export type { PortLike } from "./worker/port.ts";
export type { SharedWorkerLike } from "./worker/worker-link.ts";
export {
  sharedInfiniteQueryOptions,
  type SharedInfiniteQueryOptionsInput,
  type SharedInfiniteQueryOptions,
} from "./react/shared-infinite-query-options.ts";
