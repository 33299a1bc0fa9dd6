import type { WorkKind } from "./protocol.ts";

/** The checks of a port message's fields that both directions share (a string is bounded too). */
export const str = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 10_000;
export const int = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
export const optNum = (v: unknown): boolean => v === undefined || (typeof v === "number" && Number.isFinite(v));
export const kind = (v: unknown): v is WorkKind => v === "fetch" || v === "program";
