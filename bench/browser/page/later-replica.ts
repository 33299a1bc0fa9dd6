/**
 * shared-fetch's replica as the README sets it up (a doc, connectTabs, the store), made by a page
 * that loads it on demand: the chunk the "beside" and "after" pages import (see beside.tsx).
 */
import * as Y from "yjs";
import { createSharedFetchStore } from "../../../src/index.ts";
import { connectTabs } from "../../../src/sync/index.ts";
import { mark } from "./probe.ts";

export function startReplica(name: string): void {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name });
  (window as unknown as { __replica: unknown }).__replica = createSharedFetchStore({ doc, awareness: tabs.awareness });
  mark("store");
}
