// An app as a user writes it, against the published package only: the root entry and the
// devtools subpath. `?api=` names the request; every tab of the browser shares it.
import { QueryClient, QueryClientProvider, useQueries, useQuery } from "@tanstack/react-query";
import { createRoot } from "react-dom/client";
import * as Y from "yjs";
import {
  connectTabs,
  createSharedFetchStore,
  SharedFetchProvider,
  sharedProgramOptions,
  sharedQueryOptions,
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

// The queryOptions idiom fits TanStack's own hooks and client methods, typed through the key's
// tag, under exactOptionalPropertyTypes too (never rendered).
export function WithTanStackHooks({ client }: { client: QueryClient }) {
  const one = useQuery(sharedQueryOptions<Item>(store, api));
  const n: number | undefined = one.data?.n;
  const program = useQuery(sharedProgramOptions(store, "/app/main.ts"));
  const many = useQueries({ queries: [sharedQueryOptions<Item>(store, api)] });
  void client.prefetchQuery(sharedQueryOptions<Item>(store, api));
  const cached: Item | undefined = client.getQueryData(sharedQueryOptions<Item>(store, api).queryKey);
  return <output>{String(n ?? cached?.n ?? many.length + (program.data ? 1 : 0))}</output>;
}

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
