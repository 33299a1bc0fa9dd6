// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { StrictMode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchDevtools } from "../../devtools/production.ts";
import { cluster } from "../harness/replicas.ts";

const toggle = () => screen.getByRole("button", { name: "shared-fetch" });
const selectedTab = () => screen.getByRole("tab", { selected: true });

afterEach(cleanup);

describe("<SharedFetchDevtools> keyboard focus (WAI-ARIA: focus follows a disclosure that opens and closes)", () => {
  it("opening moves focus to the panel's selected tab; Escape and the close button put it back on the toggle", async () => {
    const [a] = cluster(1, { settleMs: 0 }).stores;
    render(
      <StrictMode>
        <SharedFetchDevtools store={a!} initialTab="replicas" />
      </StrictMode>,
    );
    // A page that mounts the panel closed keeps its focus where it was.
    expect(document.activeElement).toBe(document.body);
    toggle().focus();
    fireEvent.click(toggle());
    expect(document.activeElement).toBe(selectedTab());
    expect(selectedTab().textContent).toMatch(/^Replicas/);

    // Escape where the focus is in the panel (it bubbles to the dock).
    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    expect(screen.queryByRole("tablist")).toBeNull();
    expect(document.activeElement).toBe(toggle());

    fireEvent.click(toggle());
    expect(document.activeElement).toBe(selectedTab());
    fireEvent.click(screen.getByRole("button", { name: "Close shared-fetch devtools" }));
    expect(document.activeElement).toBe(toggle());
    await act(async () => {});
  }, 30_000);

  it("a panel open at mount (initialIsOpen) takes no focus from the page", () => {
    const [a] = cluster(1, { settleMs: 0 }).stores;
    render(
      <>
        <input aria-label="app field" autoFocus />
        <SharedFetchDevtools store={a!} initialIsOpen />
      </>,
    );
    expect(document.activeElement).toBe(screen.getByRole("textbox", { name: "app field" }));
    expect(screen.getByRole("tablist")).toBeTruthy();
  });
});
