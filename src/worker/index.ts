/**
 * `shared-fetch/worker`: the browser's one replica, for the SharedWorker file an app builds. The
 * tab side is `connectBrowser` in the main entry; `shared-fetch/shared-worker` is a ready-made
 * worker file (y-websocket peers as the tabs name them).
 */
export { createBrowserReplica, serveBrowserReplica, type BrowserReplica, type BrowserReplicaOptions } from "./browser-replica.ts";
export { WORKER_LOCK_PREFIX, PROTOCOL, type BrowserConfig } from "./protocol.ts";
export type { PortLike } from "./port.ts";
