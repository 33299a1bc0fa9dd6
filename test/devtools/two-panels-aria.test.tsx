// @vitest-environment jsdom
/**
 * ARIA with two panels on one page (the floating one and the TanStack Devtools plugin, or one per
 * store): a key's details row was named after the key alone, so both panels' rows of one key had
 * the same id and each "details" button's aria-controls could name the other panel's row.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

describe("devtools ARIA: two panels on one page", () => {
  it("each panel's details button controls its own details row (ids unique in the page)", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: 1 });
    await a!.ensure({ url: URL_A });
    render(
      <>
        <SharedFetchDevtoolsPanel store={a!} />
        <SharedFetchDevtoolsPanel store={b!} />
      </>,
    );
    await waitFor(() => expect(screen.getAllByTestId("key-row")).toHaveLength(2), { timeout: 5000 });
    const buttons = screen.getAllByRole("button", { name: `Details of GET ${URL_A}` });
    for (const button of buttons) fireEvent.click(button);
    const controlled = buttons.map((button) => button.getAttribute("aria-controls")!);
    expect(new Set(controlled).size).toBe(2);
    for (const [i, id] of controlled.entries()) {
      const rows = document.querySelectorAll(`[id="${id}"]`);
      expect(rows).toHaveLength(1);
      // The row it names is in the same panel as the button.
      const panel = buttons[i]!.closest("section")!;
      expect(panel.contains(rows[0]!)).toBe(true);
      expect(within(rows[0] as HTMLElement).getByTestId("key-details")).toBeTruthy();
    }
  }, 30_000);
});
