/**
 * Setup file of the `unit` project and the other React projects (vitest.config.ts, reactProject).
 * connectBrowser loads the tab's own replica with a dynamic import (a chunk of its own in an app's
 * build, so a tab the SharedWorker serves never loads Yjs or the engine). In a browser the chunk
 * arrives over the network whatever the page's timers do; under vitest a first dynamic import waits
 * on the module runner's real I/O, which a test on fake timers never lets through. Loaded here
 * first, it resolves as a cached module does.
 */
import "../../src/worker/tab-replica.ts";
