// @vitest-environment jsdom
/**
 * README, "Only a poll judges a program by age": a mount is met by any recorded resolution, unless
 * that resolution is older than data the app set or hydrated. A cache restored at a reload
 * (persistQueryClient, or hydrate() of a dehydrated client) holds the very resolution the doc
 * holds, dated when its answer came, a moment after the request the record is dated by: it is not
 * newer than that record, and the reload must not re-resolve the program (many requests) for it.
 */
import { dehydrate, hydrate, QueryClient } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { useProgram } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";
import { app } from "../harness/render-app.tsx";

const MAIN = "https://modules.example.test/app/restored.js";
const eventually = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });

afterEach(cleanup);

describe("useProgram with a restored query cache (persistQueryClient, hydrate)", () => {
  it("a reload whose restored cache holds the recorded resolution shows it with no new resolution", async () => {
    const c = cluster(1, { settleMs: 0 });
    let version = 0;
    c.host.auto = (call) => {
      // The answer comes a moment after the request (what TanStack dates the data by).
      setTimeout(() => call.respondRaw(200, `export const version = ${++version};\n`, { "content-type": "text/javascript" }), 20);
      return undefined;
    };
    let contents: string | undefined;
    function Pane() {
      contents = useProgram(MAIN).data?.files[0]?.contents;
      return null;
    }
    const before = new QueryClient();
    const first = render(app(c.stores[0]!, <Pane />, before));
    await eventually(() => expect(contents).toBe("export const version = 1;\n"));
    const persisted = dehydrate(before);
    first.unmount();

    // The reload: a new client restored from what was persisted, over the doc that holds the record.
    const after = new QueryClient();
    hydrate(after, persisted);
    render(app(c.stores[0]!, <Pane />, after));
    await act(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(contents).toBe("export const version = 1;\n");
    expect(c.host.calls).toHaveLength(1);
  });
});
