import type { Meta, StoryObj } from "@storybook/react-vite";
import { QueryClientProvider } from "@tanstack/react-query";
import { useId, useRef, useState, useSyncExternalStore } from "react";
import { expect, waitFor, within } from "storybook/test";
import { SharedFetchProvider, useProgram } from "../src/index.ts";
import { Host } from "../sim/host.ts";
import { expectNarrated, verdict, WAIT } from "./support/play.ts";
import { stateText } from "./support/query-state.tsx";
import { createReplicas, useDisposable, type Replica, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { delayArg } from "./support/worlds.ts";

type Args = { delayMs: number; depth: number };

const ORIGIN = "https://modules.example";
const entry = (version: string) => `${ORIGIN}/app/${version}/main.ts`;

/**
 * Two versions of one program, each a chain of `depth` modules. v2's last module imports a
 * dependency from /deps/, whose host never answers.
 */
function moduleFiles(depth: number): Map<string, string> {
  const files = new Map<string, string>();
  for (const version of ["v1", "v2"]) {
    files.set(`/app/${version}/main.ts`, `import { m1 } from "./m1.ts";\nexport const app = m1 + "${version}";\n`);
    for (let i = 1; i <= depth; i++) {
      const next =
        i < depth ? `import { m${i + 1} } from "./m${i + 1}.ts";\n` : version === "v2" ? `import { pad } from "/deps/left-pad.ts";\n` : "";
      files.set(`/app/${version}/m${i}.ts`, `${next}export const m${i} = ${i < depth ? `m${i + 1} + ` : ""}"${i}";\n`);
    }
  }
  return files;
}

function moduleHost(delayMs: number, depth: number): Host {
  const files = moduleFiles(depth);
  const host = new Host();
  host.auto = (call) => {
    const path = new URL(call.url).pathname;
    if (path.startsWith("/deps/")) return undefined; // the hung dependency host
    const text = files.get(path);
    return text === undefined ? { status: 404, text: "not found", delayMs } : { status: 200, text, delayMs };
  };
  return host;
}

type Choice = "v1" | "v2" | null;

function ProgramPane({ replica, url }: { replica: Replica; url: string | null }) {
  return (
    <QueryClientProvider client={replica.queryClient}>
      <SharedFetchProvider store={replica.store}>
        <ProgramBody name={replica.name} url={url} />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

function ProgramBody({ name, url }: { name: string; url: string | null }) {
  const result = useProgram(url);
  const lied = useRef(false);
  if (url !== null && result.status !== "pending" && result.data === undefined && result.error === undefined) lied.current = true; // eslint-disable-line react-hooks/refs
  return (
    <section
      aria-label={name}
      data-status={result.status}
      data-lied={String(lied.current)} // eslint-disable-line react-hooks/refs
      style={{ border: "1px solid #c8cdd3", borderRadius: 8, padding: "0.75rem 1rem", fontFamily: "system-ui, sans-serif", fontSize: 14 }}
    >
      <h2 style={{ margin: "0 0 0.5rem", fontSize: 16 }}>{name}</h2>
      <p style={{ margin: 0 }}>
        entry: <span data-testid="entry">{url ?? "none (cancelled)"}</span>
      </p>
      <p style={{ margin: 0 }}>
        status: <span data-testid="status">{stateText(result)}</span>
        {result.claim ? ` · claim ${result.claim.mine ? "mine" : result.claim.replicaId}` : ""}
      </p>
      <p style={{ margin: 0 }}>
        files:{" "}
        <span data-testid="files">{result.data ? result.data.files.map((f) => new URL(f.name, ORIGIN).pathname).join(", ") : "—"}</span>
      </p>
    </section>
  );
}

function ProgramScenario({ delayMs, depth }: Args) {
  const world: Replicas = useDisposable(() => createReplicas({ names: ["Replica A"], host: moduleHost(delayMs, depth) }));
  const [choice, setChoice] = useState<Choice>("v1");
  const [path, setPath] = useState<Choice[]>(["v1"]);
  const choose = (next: Choice) => {
    setChoice(next);
    setPath((p) => [...p, next]);
    world.narration.add({
      text: next === null ? "A cancelled: the program is no longer shown" : `A shows ${new URL(entry(next)).pathname}`,
    });
  };
  const url = choice === null ? null : entry(choice);
  const store = world.replicas[0]!.store;
  const whyId = useId();
  const status = useSyncExternalStore(
    (listener) => (url === null ? () => {} : store.subscribeProgram({ url }, listener)),
    () => (url === null ? null : store.programSnapshot({ url }).status),
  );
  // Cancel aborts a resolution in flight: with nothing running it would only hide a loaded program.
  const cancelWhy =
    choice === null ? "cancelled: no program is shown" : status === "pending" ? undefined : `nothing to cancel: ${choice} is not resolving`;
  const done = ({ world: w, host }: VerdictContext) => {
    if (path.map(String).join(" ") !== "v1 v2 null v1") return undefined;
    const snap = w.replicas[0]!.store.programSnapshot({ url: entry("v1") });
    return snap.status === "success" && host.inFlight === 0
      ? `Cancelling aborted v2's hung dependency request at the host (${host.aborted} aborted); back on v1 its stored program showed at once, with no new request.`
      : undefined;
  };
  return (
    <ScenarioFrame
      world={world}
      request={null}
      verdict={done}
      panes={<ProgramPane replica={world.replicas[0]!} url={url} />}
      controls={
        <>
          <button type="button" onClick={() => choose("v1")} disabled={choice === "v1"}>
            Show v1
          </button>
          <button type="button" onClick={() => choose("v2")} disabled={choice === "v2"}>
            Show v2 (hung dependency)
          </button>
          <button
            type="button"
            onClick={() => choose(null)}
            disabled={!!cancelWhy}
            title={cancelWhy}
            aria-describedby={cancelWhy ? whyId : undefined}
          >
            Cancel
          </button>
          {cancelWhy ? (
            <span id={whyId} data-testid="cancel-why" style={{ fontFamily: "system-ui, sans-serif", fontSize: 13, color: "#555" }}>
              {cancelWhy}
            </span>
          ) : null}
        </>
      }
    />
  );
}

const meta = {
  title: "Scenarios/Programs",
  component: ProgramScenario,
  args: { delayMs: 60, depth: 6 },
  argTypes: {
    delayMs: delayArg,
    depth: { description: "How many modules deep each version's import chain goes.", control: { type: "number", min: 1, max: 20 } },
  },
  render: (args) => <ProgramScenario key={JSON.stringify(args)} {...args} />,
} satisfies Meta<typeof ProgramScenario>;
export default meta;
type Story = StoryObj<typeof meta>;

export const HungDependencyCancelled: Story = {
  name: "Program: hung dependency, cancelled, back to an earlier URL",
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 8 and 11 for useProgram. v1, a deep chain of modules, resolves. v2's deepest module imports from a dependency host that never answers: v2 stays pending (truthfully), not 'done, nothing here'. Cancel (offered only while a program resolves; greyed otherwise, saying why) aborts the hung request at the host — cancellation reaches every request of a resolution, which the seed's resolver never did — and returning to v1 shows its stored program without fetching again.",
      },
    },
  },
  play: async ({ canvasElement, args, userEvent }) => {
    const canvas = within(canvasElement);
    const pane = await canvas.findByRole("region", { name: "Replica A" }, WAIT);
    const modules = args.depth + 1;
    await waitFor(() => expect(pane).toHaveAttribute("data-status", "success"), WAIT);
    await expect(within(pane).getByTestId("files").textContent?.split(", ")).toHaveLength(modules);
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(`host requests: ${modules}`);
    // Cancel aborts a resolution in flight; v1 resolved, there is nothing to cancel, and the button says so.
    const cancel = canvas.getByRole("button", { name: "Cancel" });
    await expect(cancel).toBeDisabled();
    await expect(cancel).toHaveAccessibleDescription("nothing to cancel: v1 is not resolving");
    await userEvent.click(canvas.getByRole("button", { name: "Show v2 (hung dependency)" }));
    // v2 walks its chain down to the hung dependency: every module of v2, then /deps/left-pad.ts.
    await waitFor(() => expect(canvas.getByTestId("host-requests")).toHaveTextContent(`host requests: ${2 * modules + 1}`), WAIT);
    await waitFor(() => expect(canvas.getByTestId("host-in-flight")).toHaveTextContent("in flight: 1"), WAIT);
    await expect(pane).toHaveAttribute("data-status", "pending");
    // In TanStack's words: pending, its resolution fetching (the hung dependency).
    await expect(within(pane).getByTestId("status")).toHaveTextContent(/^pending · fetching$/);
    await expect(cancel).toBeEnabled();
    await userEvent.click(cancel);
    await expect(cancel).toHaveAccessibleDescription("cancelled: no program is shown");
    await waitFor(() => expect(canvas.getByTestId("host-aborted")).toHaveTextContent("aborted: 1"), WAIT);
    await userEvent.click(canvas.getByRole("button", { name: "Show v1" }));
    await expect(await verdict(canvasElement)).toMatch(/no new request/);
    await expect(pane).toHaveAttribute("data-status", "success");
    await expect(within(pane).getByTestId("status")).toHaveTextContent(/^success · idle$/);
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(`host requests: ${2 * modules + 1}`);
    await expectNarrated(canvasElement, /^A's request was aborted at the host$/);
    await expect(cancel).toBeDisabled();
    await expect(pane).toHaveAttribute("data-lied", "false");
  },
};
