/**
 * The targets, as ratios to the Web Locks leader measured in the same run: each printed
 * as a JSON line with `target` and `met`, and as a readable verdict.
 */
import { CONTENDERS } from "./setup.ts";
import { find, fmt, median, sameParams, type Params, type Row } from "./stats.ts";

const SHARED = CONTENDERS.shared;
const LEADER = CONTENDERS.leader;

/**
 * Per-repetition ratios a/b, each repetition paired with the same repetition of the other (those
 * only one side has are left out), summarised like any figure: value the median of the ratios.
 * `met` is decided on the value as printed (rounded), so a printed 1.1 against "≤ 1.1" is met.
 */
function ratioRow(figure: string, a: Row, b: Row, target: string, met: (value: number, row: Row) => boolean | undefined): Row | undefined {
  const ra = a.perRep as Record<string, number>;
  const rb = b.perRep as Record<string, number>;
  const perRep = Object.keys(ra)
    .filter((rep) => rb[rep])
    .map((rep) => ra[rep]! / rb[rep]!);
  if (!perRep.length) return undefined;
  const round = (n: number) => Math.round(n * 100) / 100;
  const value = round(median(perRep));
  const row: Row = {
    figure: `${figure} ÷ ${b.contender}`,
    contender: a.contender,
    params: a.params,
    value,
    unit: "ratio",
    runs: perRep.length,
    min: round(Math.min(...perRep)),
    max: round(Math.max(...perRep)),
    target,
  };
  const verdict = met(value, a);
  if (verdict !== undefined) row.met = verdict;
  return row;
}

export type Verdict = { what: string; figure: string; met: boolean };

/**
 * The count targets, judged where their rows are made (bench/browser/duplicates.ts), so that the
 * figure's one JSON line carries `target` and `met`.
 */
export function judgeBoot(row: Row): Row {
  return { ...row, target: "0 runs", met: row.value === 0 };
}
export function judgeDevices(row: Row): Row {
  return { ...row, target: "≤ 1 in 20 boots", met: row.value * 20 <= row.runs };
}

/** Ratios to the leader and the requests-per-key check (JSON rows), and the readable verdicts. */
export function targets(rows: Row[]): { ratios: Row[]; checks: Row[]; verdicts: Verdict[] } {
  const ratios: Row[] = [];
  const checks: Row[] = [];
  const verdicts: Verdict[] = [];
  const pairs = (figure: string) => rows.filter((r) => r.figure === figure && r.contender === LEADER);
  const slowest: { r: Row; other: Row; leader: Row }[] = [];

  for (const leader of pairs("slowest tab time to data")) {
    for (const who of Object.values(CONTENDERS).filter((c) => c !== LEADER)) {
      const other = find(rows, leader.figure, who, leader.params);
      if (!other) continue;
      const shared = who === SHARED;
      const r = ratioRow(leader.figure, other, leader, shared ? "≤ 1.1" : "", (v) => (shared ? v <= 1.1 : undefined));
      if (!r) continue;
      ratios.push(r);
      if (shared) slowest.push({ r, other, leader });
    }
  }
  for (const { r, other, leader } of slowest) {
    // The floor beside it: the same page as the leader's, with shared-fetch's code loaded, unrun.
    // And the floors of a lazy boot: the leader page loading the replica beside its request, or after its data.
    const floorOf = (who: string, what: string) => {
      const x = ratios.find((y) => y.figure === r.figure && y.contender === who && sameParams(y, r));
      return x ? `; ${what}: ${x.value}×` : "";
    };
    const floors =
      floorOf(CONTENDERS.payload, "the code alone, loaded unrun") +
      floorOf(CONTENDERS.beside, "the replica loaded beside the request") +
      floorOf(CONTENDERS.after, "the replica loaded after data");
    verdicts.push({
      what: `slowest tab ≤ 1.1× lock leader, ${describe(leader.params)}`,
      figure: `${r.value}× (${fmt(other)} vs ${fmt(leader)} ms)${floors}`,
      met: r.met === true,
    });
  }
  for (const leader of rows.filter((r) => r.figure === "median tab time to data" && r.contender === LEADER)) {
    for (const who of [SHARED, CONTENDERS.worker, CONTENDERS.payload, CONTENDERS.beside, CONTENDERS.after]) {
      const other = find(rows, leader.figure, who, leader.params);
      const r = other && ratioRow(leader.figure, other, leader, "", () => undefined);
      if (r) ratios.push(r);
    }
  }
  for (const leader of pairs("crash to 2nd request")) {
    const other = find(rows, leader.figure, SHARED, leader.params);
    if (!other) continue;
    const r = ratioRow(leader.figure, other, leader, "≤ 1.5 and ≤ 60 ms", (v, a) => v <= 1.5 && a.value <= 60);
    if (!r) continue;
    ratios.push(r);
    verdicts.push({
      what: `crash → 2nd request ≤ 1.5× lock leader and ≤ 60 ms, ${leader.params.profile} profile`,
      figure: `${r.value}× (${fmt(other)} vs ${fmt(leader)} ms)`,
      met: r.met === true,
    });
  }
  for (const leader of pairs("crash to data in survivors")) {
    const other = find(rows, leader.figure, SHARED, leader.params);
    const r = other && ratioRow(leader.figure, other, leader, "", () => undefined);
    if (r) ratios.push(r);
  }
  // Every sample of K tabs (at once and staggered), and every crash sample up to its crash: a
  // sample with 2 requests for one key before the crash is not 1.00 either.
  const perKey = rows.filter((r) => r.figure === "requests per key" && r.contender === SHARED);
  const beforeCrash = rows.filter((r) => r.figure === "crash samples with 2+ requests before the crash" && r.contender === SHARED);
  if (perKey.length || beforeCrash.length) {
    const counts = beforeCrash.flatMap((r) => r.perRun as number[]);
    const worst = Math.max(...perKey.map((r) => r.sampleMax as number), ...counts);
    const best = Math.min(...perKey.map((r) => r.sampleMin as number), ...counts);
    const samples = perKey.reduce((n, r) => n + (r.samples as number), 0) + counts.length;
    const row: Row = {
      figure: "requests per key inside a browser, worst sample",
      contender: SHARED,
      params: { tabs: [...new Set(perKey.map((r) => r.params.tabs))].join(","), crashSamples: counts.length },
      value: worst,
      unit: "requests",
      runs: samples,
      min: best,
      max: worst,
      target: "1 in every sample",
      met: worst === 1,
    };
    checks.push(row);
    verdicts.push({
      what: "1.00 requests per key inside a browser, every sample (K tabs, at once and staggered; crash samples before the crash)",
      figure: `max ${worst} over ${samples} samples (${counts.filter((n) => n > 1).length} of ${counts.length} crash samples with 2+)`,
      met: row.met === true,
    });
  }
  const boot = find(rows, "runs with 2+ requests at boot in one browser", SHARED);
  if (boot)
    verdicts.push({
      what: "no duplicate at boot inside a browser (host answering at once)",
      figure: `${boot.value} of ${boot.runs} runs`,
      met: boot.met === true,
    });
  const devices = find(rows, "boots with 2+ requests across two devices", SHARED);
  if (devices)
    verdicts.push({
      what: "≤ 1 in 20 boots with a duplicate across two devices (README setup)",
      figure: `${devices.value} of ${devices.runs} boots`,
      met: devices.met === true,
    });
  return { ratios, checks, verdicts };
}

function describe(params: Params): string {
  return Object.entries(params)
    .filter(([k]) => k !== "hostMs")
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}
