import { startReplica, type BrowserReplica } from "./browser-replica.ts";
import { checkReplicaOptions, type BrowserReplicaOptions } from "./replica-options.ts";

type ConnectScope = { addEventListener(type: "connect", listener: (event: MessageEvent) => void): void };

/**
 * Call once at the top of your SharedWorker file: every tab that connects (`connectBrowser`) is
 * served by this worker's one replica. Returns the replica (for diagnostics).
 */
export function serveBrowserReplica(options: BrowserReplicaOptions = {}): BrowserReplica {
  const scope = globalThis as unknown as Partial<ConnectScope>;
  if (typeof scope.addEventListener !== "function")
    throw new TypeError("serveBrowserReplica: call it in a SharedWorker (no `connect` event here); see connectBrowser");
  // Retired with no tab left, the worker ends: a tab that comes later starts a fresh one. Whatever
  // the app's onRetire (undefined included): a retired worker refuses every port it is handed.
  const close = (globalThis as { close?: () => void }).close;
  // Checked before it is wrapped: an onRetire that is no function would throw only at the retirement.
  checkReplicaOptions(options, "serveBrowserReplica");
  const replica = startReplica({ ...options, onRetire: () => (options.onRetire?.(), close?.call(globalThis)) });
  scope.addEventListener("connect", (event) => {
    const port = event.ports[0];
    if (port) replica.accept(port);
  });
  return replica;
}
