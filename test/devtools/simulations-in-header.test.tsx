// @vitest-environment jsdom
/**
 * README, Devtools ("Development simulations"): they sit "in the panel's header, after
 * 'inspecting ‹replica›', before the close button" — next to the replica they act on, and never
 * where a click meant for ✕ would crash it. test/devtools/simulations.test.tsx pins when they are
 * shown; here, where.
 */
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchDevtools } from "../../devtools/production.ts";
import { cluster } from "../harness/replicas.ts";

afterEach(cleanup);

const before = (a: Node, b: Node): boolean => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;

describe("README, Devtools · Development simulations: in the header, after 'inspecting ‹replica›', before the close button", () => {
  it("the floating panel's header reads: the inspected replica, then the Simulations group, then ✕", () => {
    const store = cluster(1).stores[0]!;
    render(<SharedFetchDevtools store={store} initialIsOpen simulations />);
    const panel = screen.getByRole("region", { name: "shared-fetch devtools" });
    const inspecting = within(panel).getByText(/^inspecting /);
    expect(inspecting.getAttribute("title")).toBe(store.replicaId);
    const group = within(panel).getByRole("group", { name: /^Simulations/ });
    const close = within(panel).getByRole("button", { name: "Close shared-fetch devtools" });
    // One header holds all three.
    expect(inspecting.parentElement).toBe(group.parentElement);
    expect(close.parentElement).toBe(group.parentElement);
    expect(before(inspecting, group)).toBe(true);
    expect(before(group, close)).toBe(true);
    expect(within(group).getByRole("button", { name: "crash this replica" })).toBeTruthy();
  });
});
