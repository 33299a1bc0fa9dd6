// @vitest-environment jsdom
/**
 * The devtools panel in a server-rendered app (Next.js, Remix): a layout that renders
 * <SharedFetchDevtools initialIsOpen> or an embedded <SharedFetchDevtoolsPanel> is rendered on the
 * server too, where it can only show the server's store (another replica id, another clock). The
 * page's hydration must match the server's HTML with no recoverable error and no warning (React
 * would throw the page's HTML away and render it again), and the panel then shows this page's store.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act } from "@testing-library/react";
import type { ReactNode } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, SharedFetchProvider, type SharedFetchStore } from "../../src/index.ts";
import { SharedFetchDevtools, SharedFetchDevtoolsPanel } from "../../devtools/production.ts";

const trees: Record<string, (store: SharedFetchStore) => ReactNode> = {
  "<SharedFetchDevtools initialIsOpen>": (store) => <SharedFetchDevtools store={store} initialIsOpen />,
  "<SharedFetchDevtoolsPanel>": (store) => <SharedFetchDevtoolsPanel store={store} />,
  "<SharedFetchDevtools> (closed)": (store) => <SharedFetchDevtools store={store} />,
};

function app(store: SharedFetchStore, panel: ReactNode) {
  return (
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>{panel}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

describe("devtools server-rendered, then hydrated", () => {
  it.each(Object.keys(trees))("%s: hydrates with no mismatch, then shows this page's store", async (name) => {
    const tree = trees[name]!;
    const serverStore = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null });
    const html = renderToString(app(serverStore, tree(serverStore)));
    serverStore.destroy();

    const clientStore = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null });
    const container = document.createElement("div");
    container.innerHTML = html;
    document.body.appendChild(container);
    const problems: unknown[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((...args) => problems.push(args));
    const recoverable: unknown[] = [];
    try {
      await act(async () => {
        hydrateRoot(container, app(clientStore, tree(clientStore)), { onRecoverableError: (e) => recoverable.push(e) });
      });
      await act(() => new Promise((r) => setTimeout(r, 20)));
    } finally {
      spy.mockRestore();
    }
    expect(recoverable).toEqual([]);
    expect(problems).toEqual([]);
    if (!name.includes("closed")) expect(container.textContent).toContain(`inspecting ${clientStore.replicaId.slice(0, 8)}`);
    expect(container.textContent).not.toContain(serverStore.replicaId.slice(0, 8));
    clientStore.destroy();
    container.remove();
  });

  it.each(Object.keys(trees))("%s: builds no model of the server's store while rendering on the server", (name) => {
    const serverStore = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null });
    // A model reads the store at once (its baseline) and listens to it: a server render must do neither.
    const inspect = vi.spyOn(serverStore, "inspect");
    const onEvent = vi.spyOn(serverStore, "onEvent");
    renderToString(app(serverStore, trees[name]!(serverStore)));
    expect(inspect).not.toHaveBeenCalled();
    expect(onEvent).not.toHaveBeenCalled();
    serverStore.destroy();
  });
});
