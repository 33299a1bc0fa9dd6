/**
 * Figures of the browser bench: samples grouped by repetition, each figure the median (min–max)
 * over repetitions of the per-repetition median, printed as JSON lines (../shared/BENCH.md).
 */

export type Params = Record<string, string | number | boolean>;

export type Row = {
  figure: string;
  contender: string;
  params: Params;
  value: number;
  unit: string;
  runs: number;
  min: number;
  max: number;
  [extra: string]: unknown;
};

export function median(xs: number[]): number {
  if (xs.length === 0) throw new Error("median of no samples");
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const round = (n: number) => Math.round(n * 100) / 100;

type Series = { figure: string; contender: string; params: Params; unit: string; reps: Map<number, number[]> };

/** Collects samples per (figure, contender, params) and repetition. */
export class Figures {
  private readonly series = new Map<string, Series>();

  add(figure: string, contender: string, params: Params, unit: string, rep: number, sample: number): void {
    if (!Number.isFinite(sample)) throw new Error(`${figure} (${contender}): sample ${sample} is not a finite number`);
    const id = JSON.stringify([figure, contender, params, unit]);
    let s = this.series.get(id);
    if (!s) this.series.set(id, (s = { figure, contender, params, unit, reps: new Map() }));
    const list = s.reps.get(rep) ?? [];
    list.push(sample);
    s.reps.set(rep, list);
  }

  /**
   * One row per series: value = median over repetitions of each repetition's median. `perRep` is
   * keyed by repetition index, so that a ratio pairs the same repetition of two contenders even
   * where one of them lost a repetition (skipped samples).
   */
  rows(): Row[] {
    return [...this.series.values()].map((s) => {
      const reps = [...s.reps.entries()].sort(([a], [b]) => a - b);
      const perRep = reps.map(([, xs]) => median(xs));
      const samples = reps.flatMap(([, xs]) => xs);
      return {
        figure: s.figure,
        contender: s.contender,
        params: s.params,
        value: round(median(perRep)),
        unit: s.unit,
        runs: perRep.length,
        min: round(Math.min(...perRep)),
        max: round(Math.max(...perRep)),
        perRep: Object.fromEntries(reps.map(([rep], i) => [rep, round(perRep[i]!)])),
        samples: samples.length,
        sampleMin: round(Math.min(...samples)),
        sampleMax: round(Math.max(...samples)),
      };
    });
  }
}

/** A figure that is one count over `runs` runs (e.g. runs with a duplicate), not a median. */
export function countRow(figure: string, contender: string, params: Params, count: number, runs: number, perRun: number[]): Row {
  return { figure, contender, params, value: count, unit: `runs of ${runs}`, runs, min: count, max: count, perRun };
}

export function printJson(rows: Row[]): void {
  for (const row of rows) console.log(JSON.stringify(row));
}

/** "703 (669–721)": median (min–max) over repetitions. */
export function fmt(row: Row | undefined): string {
  if (!row) return "—";
  const n = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(row.unit === "ms" ? 1 : 2));
  return row.min === row.max ? n(row.value) : `${n(row.value)} (${n(row.min)}–${n(row.max)})`;
}

/** A plain table: first column labels, then one column per header. */
export function printTable(headers: string[], lines: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ");
  console.log(line(headers));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const l of lines) console.log(line(l));
}

export function find(rows: Row[], figure: string, contender: string, params: Params = {}): Row | undefined {
  return rows.find((r) => r.figure === figure && r.contender === contender && Object.entries(params).every(([k, v]) => r.params[k] === v));
}

/** Whether two rows were measured with the same parameters. */
export function sameParams(a: Row, b: Row): boolean {
  return JSON.stringify(a.params) === JSON.stringify(b.params);
}
