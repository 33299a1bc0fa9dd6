/**
 * Startup, one tab alone: what the shared-fetch page imports (the README's set-up), then its two
 * calls timed one by one: connectTabs on a new doc, and createSharedFetchStore.
 */
// First: the clock starts before any library evaluates.
import { evaluationStart } from "./startup-clock.ts";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createRoot } from "react-dom/client";
import * as Y from "yjs";
import { createSharedFetchStore, SharedFetchProvider, useSharedFetch } from "../../../src/index.ts";
import { connectPeers, connectTabs } from "../../../src/sync/index.ts";
import { report } from "./startup-report.ts";

const modules = performance.now() - evaluationStart;
const name = new URLSearchParams(location.search).get("name") ?? "startup";
let at = performance.now();
const doc = new Y.Doc();
const tabs = connectTabs(doc, { name });
const connect = performance.now() - at;
at = performance.now();
const store = createSharedFetchStore({ doc, awareness: tabs.awareness });
const create = performance.now() - at;
report({ modules, connectTabs: connect, createStore: create }, [
  QueryClient,
  QueryClientProvider,
  createRoot,
  SharedFetchProvider,
  useSharedFetch,
  connectPeers,
  store,
]);
