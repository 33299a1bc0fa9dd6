/**
 * Crash of the tab that fetches (CDP Page.crash) while the host holds its request: how long until
 * the host sees the 2nd request, and until every survivor shows data (the 2nd answer takes
 * hostMs). On a warm profile (the origin visited before: IndexedDB and the browser id exist) and
 * on a fresh one (a new context whose tabs all open at once on their first visit).
 */
import { performance } from "node:perf_hooks";
import type { Browser, BrowserContext } from "playwright-core";
import { uniqueName, waitUntil, type Tab } from "../../test/browser/harness.ts";
import type { CountingHost } from "../../test/browser/host.ts";
import { allShowData, benchUrl, CONTENDERS, marksOf, openBenchTabs, settings, signalled, sleep, type Lib } from "./setup.ts";
import { countRow, type Figures, type Row } from "./stats.ts";

/**
 * TanStack Query alone and its broadcast plugin are left out by design: every tab sends its own
 * request, so no tab's crash leaves another waiting (the summary says so in an n/a line).
 */
export const CRASH_LIBS: Lib[] = ["leader", "shared"];
export type Profile = "warm" | "fresh";

/** One earlier visit of the origin with the same app name, closed again: what a returning user has. */
async function visit(context: BrowserContext, host: CountingHost, lib: Lib, name: string): Promise<void> {
  const api = `/api/${uniqueName("visit")}`;
  const [tab] = await openBenchTabs(context, benchUrl(host, lib, { api, name }), 1);
  await signalled(tab!, "data");
  await tab!.page.close();
}

type CrashSample =
  | {
      toSecond: number;
      toData: number;
      requests: number;
      toTakeover: number | undefined;
      toDispatch: number | undefined;
      /** shared-fetch: the dead tab's replica lock and its key's lock granted to a survivor (the first each). */
      toReplicaLock: number | undefined;
      toKeyLock: number | undefined;
    }
  | { duplicateBeforeCrash: number };

/** Epoch of the first event of `type` after `after` in a tab (shared-fetch's store events). */
async function eventAfter(tab: Tab, type: string, after: number, offset: number): Promise<number | undefined> {
  const events = await tab.events();
  const hit = events.find((e) => e.type === type && e.at - offset > after);
  return hit ? hit.at - offset : undefined;
}

export async function crashSample(browser: Browser, host: CountingHost, lib: Lib, profile: Profile): Promise<CrashSample> {
  const context = await browser.newContext();
  try {
    const name = uniqueName("app");
    if (profile === "warm") await visit(context, host, lib, name);
    const api = `/api/${uniqueName(`crash-${lib}`)}`;
    host.plan(api, ["hang", { delayMs: settings.hostMs }]);
    const tabs = await openBenchTabs(context, benchUrl(host, lib, { api, name }), settings.crashTabs);
    await host.waitForCall(api, 1);
    const claimant = await waitUntil("the tab that fetched", async () => {
      const marks = await Promise.all(tabs.map(marksOf));
      return tabs.find((_, i) => marks[i]!.fetches.length > 0);
    });
    const survivors = tabs.filter((t) => t !== claimant);
    await Promise.all(survivors.map((t) => t.waitForStatus("pending")));
    // Settled: any duplicate of the boot has had time to arrive (then this sample measures nothing).
    await sleep(200);
    if (host.count(api) !== 1) return { duplicateBeforeCrash: host.count(api) };
    // Page epochs → this process's clock, measured before the crash (the CPU is busiest after it).
    const offsets = new Map<Tab, number>();
    for (const t of survivors) offsets.set(t, (await t.clockOffset()).offset);
    const crashedAt = performance.timeOrigin + (await claimant.crash());
    const second = await host.waitForCall(api, 2, 30_000);
    await allShowData(survivors);
    await sleep(100);
    const marks = await Promise.all(survivors.map(marksOf));
    const dataAt = marks.map((m, i) => m.marks.data! - offsets.get(survivors[i]!)!);
    // Where the survivors' time went: the takeover claim (shared-fetch) or the lock grant (leader), then the request.
    const earliest = (xs: (number | undefined)[]) => {
      const known = xs.filter((x): x is number => x !== undefined);
      return known.length ? Math.min(...known) - crashedAt : undefined;
    };
    const takeover =
      lib === "leader"
        ? marks.map((m, i) => (m.marks.leader === undefined ? undefined : m.marks.leader - offsets.get(survivors[i]!)!))
        : await Promise.all(survivors.map((t) => eventAfter(t, "claimed", crashedAt, offsets.get(t)!)));
    // The dead tab's locks as the browser releases them: granted to a survivor after the crash.
    const granted = (kind: string) =>
      earliest(
        marks.map((m, i) => {
          const offset = offsets.get(survivors[i]!)!;
          const grant = m.lockGrants.find((g) => g.kind === kind && g.at - offset > crashedAt);
          return grant && grant.at - offset;
        }),
      );
    const dispatch = marks.map((m, i) => {
      const at = m.fetches[0];
      return at === undefined ? undefined : at - offsets.get(survivors[i]!)!;
    });
    return {
      toTakeover: earliest(takeover),
      toDispatch: earliest(dispatch),
      toReplicaLock: lib === "shared" ? granted("replicaLock") : undefined,
      toKeyLock: lib === "shared" ? granted("keyLock") : undefined,
      toSecond: performance.timeOrigin + second.at - crashedAt,
      toData: Math.max(...dataAt) - crashedAt,
      requests: host.count(api),
    };
  } finally {
    await context.close();
    host.dropOpen();
  }
}

/**
 * Requests the host saw before each crash (1, or 2+ where the sample measured nothing), per
 * contender and profile: a count row of their own, and counted by the requests-per-key verdict.
 */
const beforeCrash = new Map<string, { lib: Lib; profile: Profile; requests: number[] }>();

export function crashDuplicateRows(): Row[] {
  return [...beforeCrash.values()].map(({ lib, profile, requests }) =>
    countRow(
      "crash samples with 2+ requests before the crash",
      CONTENDERS[lib],
      { tabs: settings.crashTabs, hostMs: settings.hostMs, profile },
      requests.filter((n) => n > 1).length,
      requests.length,
      requests,
    ),
  );
}

export async function crashes(browser: Browser, host: CountingHost, figures: Figures, rep: number): Promise<void> {
  for (const profile of ["warm", "fresh"] as const) {
    console.error(`crash: repetition ${rep + 1}/${settings.reps}, ${profile} profile`);
    const params = { tabs: settings.crashTabs, hostMs: settings.hostMs, profile };
    for (let s = 0; s < settings.samples; s++) {
      const order = s % 2 ? [...CRASH_LIBS].reverse() : CRASH_LIBS;
      for (const lib of order) {
        const who = CONTENDERS[lib];
        const r = await crashSample(browser, host, lib, profile);
        const id = `${lib} ${profile}`;
        if (!beforeCrash.has(id)) beforeCrash.set(id, { lib, profile, requests: [] });
        beforeCrash.get(id)!.requests.push("duplicateBeforeCrash" in r ? r.duplicateBeforeCrash : 1);
        if ("duplicateBeforeCrash" in r) {
          if (lib === "leader") throw new Error(`weblock-leader: ${r.duplicateBeforeCrash} requests before the crash (expected 1)`);
          continue;
        }
        if (lib === "leader" && r.requests !== 2) throw new Error(`weblock-leader: ${r.requests} requests after the crash (expected 2)`);
        figures.add("crash to 2nd request", who, params, "ms", rep, r.toSecond);
        figures.add("crash to data in survivors", who, params, "ms", rep, r.toData);
        figures.add("requests per key with a crash", who, params, "requests", rep, r.requests);
        if (r.toTakeover !== undefined) figures.add("crash to takeover (claim or lock grant)", who, params, "ms", rep, r.toTakeover);
        if (r.toDispatch !== undefined) figures.add("crash to survivor's fetch() call", who, params, "ms", rep, r.toDispatch);
        if (r.toReplicaLock !== undefined)
          figures.add("crash to the dead tab's replica lock granted", who, params, "ms", rep, r.toReplicaLock);
        if (r.toKeyLock !== undefined) figures.add("crash to the dead tab's key lock granted", who, params, "ms", rep, r.toKeyLock);
        // Per sample: how far apart the browser grants the two, and what our code takes after the later one.
        if (r.toKeyLock !== undefined && r.toReplicaLock !== undefined)
          figures.add("after a crash: the key lock granted after the replica lock", who, params, "ms", rep, r.toKeyLock - r.toReplicaLock);
        if (r.toKeyLock !== undefined && r.toDispatch !== undefined)
          figures.add("after a crash: the survivor's fetch() call after the key lock", who, params, "ms", rep, r.toDispatch - r.toKeyLock);
      }
    }
  }
}
