/** The readable part of the browser bench's output: tables of the main figures and the targets' verdicts. */
import { CONTENDERS, settings } from "./setup.ts";
import { find, fmt, printTable, sameParams, type Row } from "./stats.ts";
import type { Verdict } from "./targets.ts";

const ALL_TTD = [
  CONTENDERS.tanstack,
  CONTENDERS.broadcast,
  CONTENDERS.leader,
  CONTENDERS.payload,
  CONTENDERS.beside,
  CONTENDERS.after,
  CONTENDERS.shared,
  CONTENDERS.worker,
];
/** The ratio columns: contender → heading. */
const RATIOS = {
  [CONTENDERS.payload]: "code ÷ leader",
  [CONTENDERS.beside]: "replica beside ÷ leader",
  [CONTENDERS.after]: "replica after ÷ leader",
  [CONTENDERS.shared]: "shared ÷ leader",
  [CONTENDERS.worker]: "worker ÷ leader",
};
/** Floors shown only in the runs that name them (LIBS). */
const ON_REQUEST: string[] = [CONTENDERS.payload, CONTENDERS.beside, CONTENDERS.after];

/** The contenders that share nothing across tabs: figures about sharing are trivial for them by design. */
const ALONE = [CONTENDERS.tanstack, CONTENDERS.broadcast];

/** A figure not measured for some contenders, and why (no JSON line: only measured values are). */
function notApplicable(who: string[], why: string): void {
  console.log(`n/a  ${who.join(", ")}: ${why}`);
}

export function printSummary(rows: Row[], ratios: Row[], verdicts: Verdict[]): void {
  // The floors (the leader page carrying shared-fetch's code) have columns only in the runs that name them.
  const shown = (c: string) => !ON_REQUEST.includes(c) || rows.some((r) => r.contender === c);
  const TTD = ALL_TTD.filter(shown);
  const ratioColumns = Object.keys(RATIOS).filter(shown);
  const ttd = rows.filter((r) => r.figure === "slowest tab time to data" && r.contender === CONTENDERS.leader);
  if (ttd.length) {
    console.log(`time to data, ms from each tab's navigation start to data in its DOM: median (min–max) over ${settings.reps} repetitions`);
    const lines: string[][] = [];
    for (const leader of ttd) {
      for (const figure of [
        "slowest tab time to data",
        "median tab time to data",
        "main-thread CPU per tab until every tab shows data (median tab)",
        "requests per key",
      ]) {
        const label = `${figure.replace(" time to data", "").replace(" until every tab shows data (median tab)", "")}, ${leader.params.tabs} tabs ${leader.params.opened}`;
        const ratio = (who: string) => {
          const r = ratios.find((x) => x.figure === `${figure} ÷ ${CONTENDERS.leader}` && x.contender === who && sameParams(x, leader));
          return r ? `${fmt(r)}×` : "";
        };
        const found = TTD.map((c) => find(rows, figure, c, leader.params));
        // Main-thread CPU is sampled with the tabs opened at once only.
        if (found.every((r) => r === undefined)) continue;
        lines.push([label, ...found.map(fmt), ...ratioColumns.map(ratio)]);
      }
    }
    printTable(["", ...TTD, ...ratioColumns.map((c) => RATIOS[c as keyof typeof RATIOS])], lines);
    console.log("");
  }
  const perTabCounts = ["doc updates from other tabs", "channel messages received", "renders of the view"];
  for (const r of rows.filter((x) => perTabCounts.some((c) => x.figure.startsWith(c))))
    console.log(`${r.figure}, ${r.params.tabs} tabs ${r.params.opened} (${r.contender}): ${fmt(r)}`);
  // One line per figure either contender has (the lock rows are shared-fetch's alone).
  const crash = rows
    .filter((r) => /^(crash to|after a crash:) /.test(r.figure) && (r.contender === CONTENDERS.leader || r.contender === CONTENDERS.shared))
    .filter((r, i, all) => all.findIndex((x) => x.figure === r.figure && sameParams(x, r)) === i);
  if (crash.length) {
    const lines = crash.map((row) => {
      const ratio = ratios.find((r) => r.figure === `${row.figure} ÷ ${CONTENDERS.leader}` && sameParams(r, row));
      const label = `${row.figure}, ${row.params.profile} profile (${row.params.tabs} tabs)`;
      const cell = (c: string) => fmt(find(rows, row.figure, c, row.params));
      return [label, cell(CONTENDERS.leader), cell(CONTENDERS.shared), ratio ? `${fmt(ratio)}×` : ""];
    });
    printTable(["crash of the fetching tab, ms", CONTENDERS.leader, CONTENDERS.shared, "shared ÷ leader"], lines);
    notApplicable(ALONE, `every tab sends its own request (${settings.crashTabs} per key); no claimant to crash`);
    console.log("");
  }
  const phases = rows.filter((r) => r.figure.startsWith("first-fetching tab") && r.params.opened === "at once" && r.params.tabs === 4);
  if (phases.length) {
    console.log("where the time goes, 4 tabs at once: ms from navigation start of the first tab that fetched");
    const names = [...new Set(phases.map((r) => r.figure))];
    printTable(
      ["milestone", ...TTD],
      names.map((f) => [f.replace("first-fetching tab: navigation start → ", ""), ...TTD.map((c) => fmt(find(phases, f, c)))]),
    );
    console.log("");
  }
  const counts = rows.filter((r) => r.unit.startsWith("runs of"));
  for (const r of counts) {
    const profile = r.params.profile && r.figure.startsWith("crash") ? `, ${r.params.profile} profile` : "";
    console.log(`${r.figure}${profile} (${r.contender}): ${r.value} of ${r.runs} (per run: ${(r.perRun as number[]).join(" ")})`);
  }
  if (counts.some((r) => r.figure === "runs with 2+ requests at boot in one browser"))
    notApplicable(ALONE, `boot in one browser: every tab sends its own request (${settings.bootTabs} per key)`);
  if (counts.some((r) => r.figure === "boots with 2+ requests across two devices"))
    notApplicable(
      [...ALONE, CONTENDERS.leader],
      "two devices booting: each device sends its own request (2 per key); BroadcastChannel and Web Locks do not span devices",
    );
  const kept = rows.filter((r) => r.figure.startsWith("takeover across devices") || r.figure.endsWith("shows data (answer sent → DOM)"));
  for (const r of kept) console.log(`${r.figure}: ${fmt(r)} ms over ${r.samples} runs`);
  const interval = rows.filter((r) => r.figure === "requests per refetch interval");
  for (const r of interval)
    console.log(`requests per refetch interval (${r.params.intervalMs} ms), ${r.params.tabs} tabs (${r.contender}): ${r.value} requests`);
  if (verdicts.length) {
    console.log("\ntargets (ratios to the lock leader in this run):");
    for (const v of verdicts) console.log(`  ${v.met ? "target met    " : "target NOT met"}  ${v.what}: ${v.figure}`);
  }
}
