// The README's "One replica per browser" set-up as a user copies it: connectBrowser with the
// packaged worker file named by its bare specifier, which Vite bundles as the worker.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createRoot } from "react-dom/client";
import { connectBrowser, SharedFetchProvider, useSharedFetch } from "shared-fetch";

const api = new URL(new URLSearchParams(location.search).get("api") ?? "/api/missing", location.href).href;
const store = connectBrowser({
  name: "consumer-worker",
  worker: (name) => new SharedWorker(new URL("shared-fetch/shared-worker", import.meta.url), { type: "module", name }),
});

function Items() {
  const { data, status } = useSharedFetch<{ n: number }>(api);
  return (
    <output id="state" data-status={status} data-mode={store.mode}>
      {data === undefined ? "" : String(data.n)}
    </output>
  );
}

createRoot(document.getElementById("root")!).render(
  <QueryClientProvider client={new QueryClient()}>
    <SharedFetchProvider store={store}>
      <Items />
    </SharedFetchProvider>
  </QueryClientProvider>,
);
