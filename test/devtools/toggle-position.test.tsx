// @vitest-environment jsdom
/**
 * README, Devtools: `<SharedFetchDevtools />` is "a floating "shared-fetch" toggle (bottom right)
 * opening a docked, resizable panel, like ReactQueryDevtools". Pinned here: the toggle floats in the
 * page's bottom-right corner (bottom-left when asked, beside ReactQueryDevtools' own toggle), and
 * opens a dock fixed along the page's bottom edge, 320 px high until resized by its top edge
 * (the resizing itself: test/devtools/panel.test.tsx).
 */
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchDevtools } from "../../devtools/production.ts";
import { cluster } from "../harness/replicas.ts";

afterEach(cleanup);

const toggle = () => screen.getByRole("button", { name: "shared-fetch" });
const placed = (el: HTMLElement) => {
  const { position, top, bottom, left, right } = el.style;
  return { position, top, bottom, left, right };
};

describe("<SharedFetchDevtools>: where the toggle floats and the panel docks", () => {
  it("the toggle floats in the bottom-right corner by default, bottom-left when asked", () => {
    const store = cluster(1).stores[0]!;
    render(<SharedFetchDevtools store={store} />);
    expect(placed(toggle())).toEqual({ position: "fixed", top: "", bottom: "12px", left: "", right: "12px" });
    cleanup();
    render(<SharedFetchDevtools store={store} buttonPosition="bottom-left" />);
    expect(placed(toggle())).toEqual({ position: "fixed", top: "", bottom: "12px", left: "12px", right: "" });
  });

  it("opened, the panel is docked along the page's bottom edge, 320 px high, its top edge the resize handle", () => {
    const store = cluster(1).stores[0]!;
    render(<SharedFetchDevtools store={store} />);
    fireEvent.click(toggle());
    const handle = screen.getByRole("separator", { name: "Resize shared-fetch devtools" });
    const dock = handle.parentElement!;
    expect(dock.firstElementChild).toBe(handle);
    expect(dock.contains(screen.getByRole("region", { name: "shared-fetch devtools" }))).toBe(true);
    expect(placed(dock)).toEqual({ position: "fixed", top: "", bottom: "0px", left: "0px", right: "0px" });
    expect(dock.style.height).toBe("320px");
  });
});
