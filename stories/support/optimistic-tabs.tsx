/**
 * TanStack's optimistic update recipe in two tabs (test/react/optimistic-list-side-by-side.test.tsx
 * is its unit twin): onMutate cancels the list query and sets the list with the new item, onError
 * rolls back to the list it replaced, onSettled invalidates the list.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { sharedMutationFn, sharedQueryKey } from "../../src/index.ts";
import type { HostCall } from "../../sim/host.ts";
import { ListTab, type ItemList } from "./list-pane.tsx";
import { PaneRow, useHostState } from "./panes.tsx";
import { createReplicas, shortOf, useDisposable, type Replica, type Replicas } from "./replicas.ts";
import { ScenarioFrame, StepButtons, type VerdictContext } from "./scenario.tsx";
import { createSimulatedHost, type HostBehavior } from "./simulated-host.ts";

export type OptimisticArgs = { delayMs: number; url: string };

/**
 * The list's host: a POST adds the name in its body once answered, a GET answers the list. Its
 * `failNext()` fails the next POST, `holdB()` holds B's POSTs until `answerHeld()`.
 */
function createListHost(delayMs: number) {
  const items = ["item 1"];
  const add = (call: HostCall) => {
    items.push((JSON.parse(call.body ?? "{}") as { name: string }).name);
    return { added: items.at(-1) };
  };
  const plan = { failNext: false, holdB: false };
  const host = createSimulatedHost({
    delayMs,
    respond: (call) => (call.method === "POST" ? add(call) : ({ items: [...items], request: call.n } satisfies ItemList)),
    behaviorFor: (call): HostBehavior | undefined => {
      if (call.method !== "POST") return undefined;
      if (plan.failNext) return ((plan.failNext = false), "fail");
      return plan.holdB && call.from === "B" ? "hang" : undefined;
    },
  });
  const answerHeld = () => host.calls.filter((c) => c.method === "POST" && !c.settled).forEach((c) => c.respond(200, add(c)));
  const failNext = () => void (plan.failNext = true);
  const holdB = () => void (plan.holdB = true);
  return { host, failNext, holdB, answerHeld };
}

type AdderProps = { world: Replicas; replica: Replica; url: string; adds: Map<string, (name: string) => void> };

/**
 * A tab's add: `useMutation` with `sharedMutationFn` and the optimistic recipe. The step buttons sit
 * outside the tab's QueryClient, so the tab hands them its `mutate` through `adds`, by its name.
 */
function Adder({ world, replica, url, adds }: AdderProps) {
  const client = useQueryClient();
  const who = shortOf(replica.name);
  const queryKey = sharedQueryKey(replica.store, url);
  const say = (text: string) => world.narration.add({ text, replica: who });
  const add = useMutation({
    mutationFn: sharedMutationFn(replica.store, (name: string) => ({ url, method: "POST", body: JSON.stringify({ name }) })),
    onMutate: async (name: string) => {
      await client.cancelQueries({ queryKey });
      const previous = client.getQueryData<ItemList>(queryKey);
      client.setQueryData<ItemList>(queryKey, (old) => old && { ...old, items: [...old.items, name], optimistic: true });
      return { previous };
    },
    onError: (_error, name, context) => {
      say(`${who}'s add of ${name} failed: onError rolls its list back`);
      client.setQueryData(queryKey, context?.previous);
    },
    onSettled: () => client.invalidateQueries({ queryKey }),
  });
  const { mutate } = add;
  useEffect(() => {
    adds.set(who, (name) => {
      say(`${who} adds ${name} (useMutation: onMutate shows it at once)`);
      mutate(name);
    });
  });
  return null;
}

/** The pane showed `item`, and every list it showed from then on held it. */
const kept = (lists: string[], item: string) => {
  const from = lists.findIndex((l) => l.includes(item));
  return from >= 0 && lists.slice(from).every((l) => l.includes(item));
};
/** The host answers a pane showed (#n) never go down: it never showed an older list after a newer one. */
const rising = (lists: string[]) =>
  lists
    .map((l) => Number(/\(#(\d+)\)$/.exec(l)?.[1] ?? NaN))
    .filter((n) => !Number.isNaN(n))
    .every((n, i, all) => i === 0 || n >= all[i - 1]!);

export function OptimisticScenario({ delayMs, url }: OptimisticArgs) {
  const [{ host, failNext, holdB, answerHeld }] = useState(() => createListHost(delayMs));
  const world = useDisposable(() => createReplicas({ names: ["Replica A", "Replica B"], host }));
  const [shown] = useState(() => ({ A: [] as string[], B: [] as string[] }));
  const [adds] = useState(() => new Map<string, (name: string) => void>());
  const [step, setStep] = useState<"start" | "added" | "armed" | "failed" | "both" | "done">("start");
  const { log } = useHostState(host);
  const count = (method: string) => log.filter((c) => c.method === method).length;
  const heldB = log.some((c) => c.from === "B" && c.method === "POST" && c.state === "in-flight");
  const go = (next: typeof step, act: () => void) => () => {
    act();
    setStep(next);
  };
  const done = ({ host: h, summary }: VerdictContext) => {
    const gets = host.calls.filter((c) => c.method === "GET");
    const full = `item 1, apples, cheese, dates (#${gets.at(-1)?.n})`;
    if (step !== "done" || h.inFlight > 0 || shown.A.at(-1) !== full || shown.B.at(-1) !== full) return undefined;
    const b = shown.B;
    const posts = host.calls.filter((c) => c.method === "POST");
    return `${posts.length} POSTs (${posts.filter((c) => c.status !== 200).length} failed), ${gets.length - 1} refetches after them for both tabs; B ${rising(b) ? "never showed an older list after a newer one" : "showed an older list after a newer one"}, ${b.some((l) => l.includes("bread")) ? "showed" : "never showed"} A's rolled-back bread, and ${kept(b, "dates") ? "kept" : "lost"} its pending dates until its own add settled; ${summary}.`;
  };
  const [a, b] = world.replicas;
  return (
    <ScenarioFrame
      world={world}
      request={null}
      verdict={done}
      controls={
        <>
          <StepButtons
            step={step === "both" && heldB ? "held" : step}
            buttons={[
              ["start", "A adds apples", go("added", () => adds.get("A")?.("apples"))],
              ["added", "Fail the next POST", go("armed", failNext)],
              ["armed", "A adds bread", go("failed", () => adds.get("A")?.("bread"))],
              [
                "failed",
                "A adds cheese, B adds dates (B's POST held)",
                go("both", () => {
                  holdB();
                  adds.get("A")?.("cheese");
                  adds.get("B")?.("dates");
                }),
              ],
              ["held", "Answer B's POST", go("done", answerHeld)],
            ]}
          />
          <span data-testid="host-methods">
            POSTs: {count("POST")} · GETs: {count("GET")}
          </span>
        </>
      }
      panes={
        <PaneRow>
          {[a!, b!].map((r) => (
            <ListTab key={r.replicaId} world={world} replica={r} url={url} shown={shown[shortOf(r.name) as "A" | "B"]}>
              <Adder world={world} replica={r} url={url} adds={adds} />
            </ListTab>
          ))}
        </PaneRow>
      }
    />
  );
}
