// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import type { ReactElement } from "react";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import * as shipped from "../../devtools/production.ts";
import * as gated from "../../devtools/index.ts";
import { cluster } from "../harness/replicas.ts";

// The gated entry decides when it is first evaluated: development must be set before the imports.
const env = vi.hoisted(() => {
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = "development";
  return { before };
});
afterAll(() => {
  process.env.NODE_ENV = env.before;
});
afterEach(cleanup);

/** The simulation buttons in the header's "Simulations" group; null when there is no group. */
const simulations = () => {
  const group = screen.queryByRole("group", { name: /^Simulations/ });
  return group && [...group.querySelectorAll("button")].map((b) => b.textContent);
};
const SHOWN = ["crash this replica", "pause network"];

describe("development simulations in the panel's header: on in development, off in a panel shipped on purpose", () => {
  it("shared-fetch/devtools/production: no simulation controls by default (panel, floating panel, plugin); shown when asked", () => {
    const store = cluster(1).stores[0]!;
    const shown: ReactElement[] = [
      <shipped.SharedFetchDevtoolsPanel store={store} simulations />,
      <shipped.SharedFetchDevtools store={store} initialIsOpen simulations />,
      shipped.sharedFetchDevtoolsPlugin({ store, simulations: true }).render,
    ];
    for (const element of [
      <shipped.SharedFetchDevtoolsPanel store={store} />,
      <shipped.SharedFetchDevtools store={store} initialIsOpen />,
      shipped.sharedFetchDevtoolsPlugin({ store }).render,
    ]) {
      render(element);
      expect(screen.getByRole("region", { name: "shared-fetch devtools" })).toBeTruthy();
      expect(simulations()).toBeNull();
      expect(screen.queryByRole("button", { name: /crash|pause network/ })).toBeNull();
      cleanup();
    }
    for (const element of shown) {
      render(element);
      expect(simulations()).toEqual(SHOWN);
      cleanup();
    }
  });

  it("shared-fetch/devtools in development: shown by default (panel, floating panel, plugin); hidden when simulations={false}", () => {
    expect(process.env.NODE_ENV).toBe("development");
    const store = cluster(1).stores[0]!;
    for (const element of [
      <gated.SharedFetchDevtoolsPanel store={store} />,
      <gated.SharedFetchDevtools store={store} initialIsOpen />,
      gated.sharedFetchDevtoolsPlugin({ store }).render,
    ]) {
      render(element);
      expect(simulations()).toEqual(SHOWN);
      cleanup();
    }
    render(<gated.SharedFetchDevtoolsPanel store={store} simulations={false} />);
    expect(screen.getByRole("region", { name: "shared-fetch devtools" })).toBeTruthy();
    expect(simulations()).toBeNull();
  });
});
