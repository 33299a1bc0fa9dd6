// @vitest-environment jsdom
/**
 * Two resumed calls of one mutation (two callIds, or two bodies) POST to one URL: two keys with
 * one label, "POST …/items". The Keys tab and the Timeline name each by its key's short hash
 * beside that label, so a user can tell them apart; the label itself never shows the body.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SharedFetchDevtools } from "../../devtools/production.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

const SECRET = "token-7f3e-secret";

/** Two stores on linked docs; A resumes two paused calls of one POST, B one plain GET. */
async function twoCallsOfOnePost() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, body: { ok: true } });
  const [a, b] = c.stores as [(typeof c.stores)[0], (typeof c.stores)[0]];
  const post = (callId: string) => a.ensure({ url: URL_A, method: "POST", body: JSON.stringify({ name: SECRET }), callId });
  await Promise.all([post("m1@1700000000000#0"), post("m1@1700000000000#1"), b.ensure({ url: `${URL_A}/1` })]);
  const keys = a
    .inspect()
    .keys.filter((k) => k.label?.startsWith("POST"))
    .map((k) => k.key);
  expect(keys).toHaveLength(2);
  return { a, keys };
}

describe("devtools: calls of one label (resumed mutations) are told apart by their key", () => {
  it("the Keys tab shows each POST's short key hash beside its label, and never the body", async () => {
    const { a, keys } = await twoCallsOfOnePost();
    render(<SharedFetchDevtools store={a} initialIsOpen />);
    await waitFor(() => expect(screen.getAllByTestId("key-row")).toHaveLength(3));
    for (const key of keys) {
      const header = within(screen.getAllByTestId("key-row").find((r) => r.dataset.key === key)!).getByRole("rowheader");
      expect(header.textContent).toBe(`POST ${URL_A} · ${key.slice(0, 8)}`);
    }
    // A label no other key carries stays as it was.
    const get = screen.getAllByTestId("key-row").find((r) => !keys.includes(r.dataset.key!))!;
    expect(within(get).getByRole("rowheader").textContent).toBe(`GET ${URL_A}/1`);
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it("the Timeline names each POST's claim and result by its short key hash", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: { ok: true } });
    const a = c.stores[0]!;
    render(<SharedFetchDevtools store={a} initialIsOpen />);
    await act(async () => {});
    const post = (callId: string) => a.ensure({ url: URL_A, method: "POST", body: JSON.stringify({ name: SECRET }), callId });
    await act(() => Promise.all([post("m1@1700000000000#0"), post("m1@1700000000000#1")]));
    const keys = a.inspect().keys.map((k) => k.key);
    fireEvent.click(screen.getByRole("tab", { name: /^Timeline/ }));
    await vi.waitFor(() => {
      const texts = screen.getAllByTestId("timeline-entry").map((e) => e.textContent!);
      for (const key of keys) {
        expect(texts.some((t) => t.includes(`claimed POST ${URL_A} · ${key.slice(0, 8)} (rev 1)`))).toBe(true);
        expect(texts.some((t) => t.includes(`wrote the result of POST ${URL_A} · ${key.slice(0, 8)} (rev 1`))).toBe(true);
      }
      expect(texts.join("\n")).not.toContain(SECRET);
    });
  });

  it("labels longer than the Keys tab shows (200 characters) are told apart too: the key's hash survives the cut, in the row and in its buttons' names", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: { ok: true } });
    const a = c.stores[0]!;
    const long = `${URL_A}/${"segment/".repeat(30)}`;
    const post = (callId: string) => a.ensure({ url: long, method: "POST", body: "{}", callId });
    // Two calls of one POST (one label), and two GETs whose labels differ only past the cut.
    await Promise.all([
      post("m1@1700000000000#0"),
      post("m1@1700000000000#1"),
      a.ensure({ url: `${long}a` }),
      a.ensure({ url: `${long}b` }),
    ]);
    render(<SharedFetchDevtools store={a} initialIsOpen />);
    await waitFor(() => expect(screen.getAllByTestId("key-row")).toHaveLength(4));
    const rows = screen.getAllByTestId("key-row");
    const headers = rows.map((r) => within(r).getByRole("rowheader").textContent!);
    expect(new Set(headers).size).toBe(4);
    for (const [i, row] of rows.entries()) expect(headers[i]).toContain(row.dataset.key!.slice(0, 8));
    const details = screen.getAllByRole("button", { name: /^Details of / }).map((b) => b.getAttribute("aria-label"));
    expect(new Set(details).size).toBe(4);
  });
});
