// An app as a user writes it, against the published package only: the root entry and the
// devtools subpath. `?api=` names the request; every tab of the browser shares it.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createRoot } from "react-dom/client";
import * as Y from "yjs";
import {
  connectTabs,
  createSharedFetchStore,
  SharedFetchProvider,
  useSharedFetch,
  type CreateStoreOptions,
  type ProgramData,
} from "shared-fetch";
// A production build: the gated `shared-fetch/devtools` would render nothing, so ship the panel on purpose.
import { SharedFetchDevtools } from "shared-fetch/devtools/production";

type Item = { path: string; n: number };

const api = new URL(new URLSearchParams(location.search).get("api") ?? "/api/missing", location.href).href;
const doc = new Y.Doc();
const tabs = connectTabs(doc, { name: "consumer" });
const options: CreateStoreOptions = { doc, awareness: tabs.awareness };
const store = createSharedFetchStore(options);

// The types are real, not `any`: a wrong option must not compile (never called: it would throw).
export function wrongOptionsDoNotCompile(other: Y.Doc) {
  // @ts-expect-error leaseMs is a number
  return createSharedFetchStore({ doc: other, leaseMs: "5000" });
}
export const noProgram: ProgramData | undefined = undefined;

function Items() {
  const { data, status, claim } = useSharedFetch<Item>(api);
  const n: number | undefined = data?.n;
  return (
    <output id="state" data-status={status} data-mine={String(claim?.mine ?? "")}>
      {n === undefined ? "" : String(n)}
    </output>
  );
}

createRoot(document.getElementById("root")!).render(
  <QueryClientProvider client={new QueryClient()}>
    <SharedFetchProvider store={store}>
      <Items />
      <SharedFetchDevtools store={store} awareness={tabs.awareness} />
    </SharedFetchProvider>
  </QueryClientProvider>,
);
