/**
 * `shared-fetch/worker`: the browser's one replica, for the SharedWorker file an app builds. The
 * tab side is `connectBrowser` in the main entry; `shared-fetch/shared-worker` is a ready-made
 * worker file (y-websocket peers as the tabs name them).
 */
export { createBrowserReplica, type BrowserReplica } from "./browser-replica.ts";
export type { BrowserReplicaOptions } from "./replica-options.ts";
export { serveBrowserReplica } from "./serve-browser-replica.ts";
export { WORKER_LOCK_PREFIX, PROTOCOL, type BrowserConfig } from "./protocol.ts";
export type { PortLike } from "./port.ts";
