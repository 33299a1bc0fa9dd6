/**
 * The page's worker as a new deploy serves it: another bundle, at another URL. A browser runs one
 * SharedWorker per script URL and name, so a tab of this "build" starts a second worker of the
 * live generation's name beside the first build's (test/browser/worker-deploy.test.ts).
 */
import { serveBrowserReplica } from "../../../src/worker/index.ts";

serveBrowserReplica();
