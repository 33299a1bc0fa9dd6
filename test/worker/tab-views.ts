import type { TabMessage } from "../../src/worker/protocol.ts";
import { RemoteViews } from "../../src/worker/remote-views.ts";

/** A SharedWorker tab's views on their own: what they send the worker lands in `sent`. */
export function tabViews() {
  const sent: TabMessage[] = [];
  return {
    sent,
    views: new RemoteViews(
      (m) => sent.push(m),
      () => undefined,
    ),
  };
}
