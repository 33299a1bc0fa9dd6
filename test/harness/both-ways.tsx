/**
 * One pane both ways in tab a of two tabs of one browser: `which` 0 renders the shared query's
 * options, 1 the plain query function's (test/harness/side-by-side.tsx), in one QueryClient. Each
 * pane logs its states; repeated states are logged once, paths unprefixed so both sides compare.
 */
import { QueryClient } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { expect } from "vitest";
import { app } from "./render-app.tsx";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { sideBySide, twoTabs, unprefixed, type Options, type SideBySideServer } from "./side-by-side.tsx";

export type PaneProps = { which: 0 | 1; log: (s: string) => void; sides: [Options, Options]; store: SharedFetchStoreWithExtras };

export function bothWays(server: SideBySideServer, Pane: (props: PaneProps) => ReactNode, path: string, options: object = {}) {
  const [a, b] = twoTabs();
  const sides = sideBySide(server, a, path, options);
  const logs: string[][] = [[], []];
  const log = (which: 0 | 1) => (s: string) => void (logs[which]!.at(-1) !== unprefixed(s) && logs[which]!.push(unprefixed(s)));
  const client = new QueryClient();
  render(
    app(
      a,
      <>
        <Pane which={0} log={log(0)} sides={sides} store={a} />
        <Pane which={1} log={log(1)} sides={sides} store={a} />
      </>,
      client,
    ),
  );
  /** Clicks the button labelled `${label} 0`, then `${label} 1`, in one act. */
  const click = (label: string) => act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`${label} ${w}`))));
  const bothAt = (state: string) => waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual([state, state]));
  /** Requests the server saw: [shared side's, plain side's]. */
  const sent = () => ["/s", "/p"].map((side) => server.seen.filter((p) => p.startsWith(side)).length);
  return { logs, click, bothAt, sent, client, sides, tabs: [a, b] as const };
}
