/**
 * shared-fetch with the browser's one replica in a SharedWorker, as the README's SharedWorker
 * section shows it: connectBrowser with the package's worker file, nothing awaited, and
 * useSharedFetch with the same query options as every contender. The request leaves from the
 * worker, so this page's probe sees no fetch of its own (the host counts it).
 */
import { appName, mark } from "./probe.ts";
import { connectBrowser } from "../../../src/index.ts";
import { mountSharedFetch } from "./shared-app.tsx";

// Every import evaluated: from here on, the page's own code runs.
mark("imported");

mountSharedFetch(
  connectBrowser({
    name: appName,
    worker: (name) => new SharedWorker(new URL("../../../src/worker/shared-worker.ts", import.meta.url), { type: "module", name }),
  }),
);
