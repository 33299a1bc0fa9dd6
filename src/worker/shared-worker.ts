/**
 * A ready-made SharedWorker file: `new SharedWorker(new URL("shared-fetch/shared-worker",
 * import.meta.url), { type: "module", name })` in connectBrowser's `worker` option. It connects
 * to the y-websocket server the tabs name (`peers`); write your own file with
 * serveBrowserReplica for Hocuspocus, a custom fetch or other store options.
 */
import { serveBrowserReplica } from "./serve-browser-replica.ts";

serveBrowserReplica();
