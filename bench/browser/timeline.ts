import type { Tab } from "../../test/browser/harness.ts";
import { marksOf } from "./setup.ts";

/** Each tab's store events and boot marks, ms after the earliest navigation start: why a run sent two requests. */
export async function timeline(tabs: Tab[]): Promise<string> {
  const all = await Promise.all(tabs.map(async (t) => ({ marks: await marksOf(t), events: await t.events() })));
  const zero = Math.min(...all.map((a) => a.marks.t0));
  const ms = (at: number) => (at - zero).toFixed(0);
  return all
    .map(({ marks, events }, i) => {
      const m = ["store", "tabsSynced", "firstChannelMessage"]
        .filter((k) => marks.marks[k] !== undefined)
        .map((k) => `${k} ${ms(marks.marks[k]!)}`);
      const e = events.map((x) => `${x.type} ${ms(x.at)}`);
      return `tab${i}: ${[...m, ...e, ...marks.fetches.map((f) => `fetch ${ms(f)}`)].join(", ")}`;
    })
    .join("; ");
}
