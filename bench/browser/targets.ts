/**
 * The issue's targets, as ratios to the Web Locks leader measured in the same run: each printed
 * as a JSON line with `target` and `met`, and as a readable verdict.
 */
import { CONTENDERS } from "./setup.ts";
import { find, fmt, sameParams, type Params, type Row } from "./stats.ts";

const SHARED = CONTENDERS.shared;
const LEADER = CONTENDERS.leader;

/** Per-repetition ratios a/b (the same repetition of each), summarised like any figure. */
function ratioRow(figure: string, a: Row, b: Row, target: string, met: (value: number, row: Row) => boolean | undefined): Row {
  const ra = a.perRep as number[];
  const rb = b.perRep as number[];
  const perRep = ra.map((x, i) => (rb[i] ? x / rb[i]! : NaN)).filter(Number.isFinite);
  const sorted = [...perRep].sort((x, y) => x - y);
  const value = a.value / b.value;
  const row: Row = {
    figure: `${figure} ÷ ${b.contender}`,
    contender: a.contender,
    params: a.params,
    value: Math.round(value * 100) / 100,
    unit: "ratio",
    runs: perRep.length,
    min: Math.round((sorted[0] ?? value) * 100) / 100,
    max: Math.round((sorted.at(-1) ?? value) * 100) / 100,
    target,
  };
  const verdict = met(value, a);
  if (verdict !== undefined) row.met = verdict;
  return row;
}

export type Verdict = { what: string; figure: string; met: boolean };

export function targets(rows: Row[]): { ratios: Row[]; verdicts: Verdict[] } {
  const ratios: Row[] = [];
  const verdicts: Verdict[] = [];
  const pairs = (figure: string) => rows.filter((r) => r.figure === figure && r.contender === LEADER);
  const slowest: { r: Row; other: Row; leader: Row }[] = [];

  for (const leader of pairs("slowest tab time to data")) {
    for (const who of Object.values(CONTENDERS).filter((c) => c !== LEADER)) {
      const other = find(rows, leader.figure, who, leader.params);
      if (!other) continue;
      const shared = who === SHARED;
      const r = ratioRow(leader.figure, other, leader, shared ? "≤ 1.1" : "", (v) => (shared ? v <= 1.1 : undefined));
      ratios.push(r);
      if (shared) slowest.push({ r, other, leader });
    }
  }
  for (const { r, other, leader } of slowest) {
    // The floor beside it: the same page as the leader's, with shared-fetch's code loaded, unrun.
    const floor = ratios.find((x) => x.figure === r.figure && x.contender === CONTENDERS.payload && sameParams(x, r));
    verdicts.push({
      what: `slowest tab ≤ 1.1× lock leader, ${describe(leader.params)}`,
      figure: `${r.value}× (${fmt(other)} vs ${fmt(leader)} ms)${floor ? `; the code alone, loaded unrun: ${floor.value}×` : ""}`,
      met: r.met === true,
    });
  }
  for (const leader of rows.filter((r) => r.figure === "median tab time to data" && r.contender === LEADER)) {
    for (const who of [SHARED, CONTENDERS.worker, CONTENDERS.payload]) {
      const other = find(rows, leader.figure, who, leader.params);
      if (other) ratios.push(ratioRow(leader.figure, other, leader, "", () => undefined));
    }
  }
  for (const leader of pairs("crash to 2nd request")) {
    const other = find(rows, leader.figure, SHARED, leader.params);
    if (!other) continue;
    const r = ratioRow(leader.figure, other, leader, "≤ 1.5 and ≤ 60 ms", (v, a) => v <= 1.5 && a.value <= 60);
    ratios.push(r);
    verdicts.push({
      what: `crash → 2nd request ≤ 1.5× lock leader and ≤ 60 ms, ${leader.params.profile} profile`,
      figure: `${r.value}× (${fmt(other)} vs ${fmt(leader)} ms)`,
      met: r.met === true,
    });
  }
  for (const leader of pairs("crash to data in survivors")) {
    const other = find(rows, leader.figure, SHARED, leader.params);
    if (other) ratios.push(ratioRow(leader.figure, other, leader, "", () => undefined));
  }
  const perKey = rows.filter((r) => r.figure === "requests per key" && r.contender === SHARED);
  if (perKey.length) {
    const worst = Math.max(...perKey.map((r) => r.sampleMax as number));
    const samples = perKey.reduce((n, r) => n + (r.samples as number), 0);
    verdicts.push({
      what: "1.00 requests per key inside a browser, every sample (K tabs, at once and staggered)",
      figure: `max ${worst} over ${samples} samples`,
      met: worst === 1,
    });
  }
  const boot = find(rows, "runs with 2+ requests at boot in one browser", SHARED);
  if (boot)
    verdicts.push({
      what: "no duplicate at boot inside a browser (host answering at once)",
      figure: `${boot.value} of ${boot.runs} runs`,
      met: boot.value === 0,
    });
  const devices = find(rows, "boots with 2+ requests across two devices", SHARED);
  if (devices) {
    const met = devices.value * 20 <= devices.runs;
    verdicts.push({
      what: "≤ 1 in 20 boots with a duplicate across two devices (README setup)",
      figure: `${devices.value} of ${devices.runs} boots`,
      met,
    });
  }
  return { ratios, verdicts };
}

function describe(params: Params): string {
  return Object.entries(params)
    .filter(([k]) => k !== "hostMs")
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}
