import { inSeconds } from "./format.ts";

/**
 * "3.0 s", never split across lines: the panel's ages, silences and countdowns, in one unit (a
 * silence read "silent 3016 ms" beside "claimed 3.0 s ago", its unit wrapped alone onto the next line).
 */
export const seconds = (ms: number) => <span style={{ whiteSpace: "nowrap" }}>{inSeconds(ms)}</span>;
