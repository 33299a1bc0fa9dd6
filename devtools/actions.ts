import { OUTCOMES } from "./build.ts";
import { inspectable, type SharedFetchStore } from "./core.ts";

/**
 * What the panel's buttons do, without React. Each acts on the inspected store (or, for
 * evict/release, on the doc it shares), and none throws into the panel: a failure is a message.
 */
export type ActionResult = { ok: true } | { ok: false; message: string };

const ok: ActionResult = { ok: true };
const fail = (message: string): ActionResult => ({ ok: false, message });

/**
 * Why the inspected replica can write nothing more, if it cannot: a crashed replica (simulation)
 * writes nothing, and a destroyed store wrote its last. An action must say so, not report a
 * success the doc never saw.
 */
export function cannotWrite(internals: ReturnType<typeof inspectable>["internals"]): ActionResult | undefined {
  if (internals.dev.crashed) return fail("This replica crashed (simulation): it writes nothing more.");
  if (internals.engine.stage === "destroyed") return fail("This store was destroyed: it writes nothing more.");
  return undefined;
}

/** A store refetch of the key: a new revision is claimed and every replica gets its result (invalidate is invalidate.ts). */
export function refetchKey(store: SharedFetchStore, key: string): ActionResult {
  const { internals } = inspectable(store);
  const refused = cannotWrite(internals);
  if (refused) return refused;
  // Only a replica that asked knows the request behind the hash (headers and body are never stored).
  const st = [...internals.engine.states()].find((s) => s.key === key && s.job);
  if (!st?.job) {
    return fail(
      "This replica holds no request for this key (it never asked for it, or let it go): only a replica that has it in use knows its request (headers and bodies are never stored).",
    );
  }
  internals.engine.ensure(st.job, undefined, "refetch").catch(() => {});
  return ok;
}

/** Deletes this replica's own claim on the key: others may take the work; our request runs on and may still write. */
export function releaseClaim(store: SharedFetchStore, key: string): ActionResult {
  const { store: s, records, internals } = inspectable(store);
  const refused = cannotWrite(internals);
  if (refused) return refused;
  const claim = records.claims.get(key);
  if (!claim || claim.replicaId !== s.replicaId) return fail("No claim of this replica stands on this key.");
  // Let go on purpose: the request runs on, but its claim is not written again to stand (the
  // engine does so once for a claim a partition's takeover dropped, Attempt.reasserted).
  const attempt = internals.engine.keys.peek(key)?.attempt;
  if (attempt) attempt.reasserted = true;
  records.doc.transact(() => records.claims.delete(key));
  return ok;
}

/** Removes the recorded result and error of the key from the doc (every replica forgets them). */
export function evictRecord(store: SharedFetchStore, key: string): ActionResult {
  const { records, internals } = inspectable(store);
  const refused = cannotWrite(internals);
  if (refused) return refused;
  // A buggy peer's malformed record is one too: it is not read, but it stays in the doc until removed.
  if (
    !records.results.get(key) &&
    !records.programs.get(key) &&
    !records.errors.get(key) &&
    !records.malformed().some((m) => m.key === key && OUTCOMES.includes(m.map))
  )
    return fail("Nothing is recorded for this key.");
  records.doc.transact(() => {
    records.results.delete(key);
    records.programs.delete(key);
    records.errors.delete(key);
  });
  return ok;
}

/** The recorded data of a key (fetch or program), read when the preview opens. */
export function recordedData(store: SharedFetchStore, key: string): { found: boolean; data?: unknown } {
  const { records } = inspectable(store);
  const record = records.results.get(key) ?? records.programs.get(key);
  return record ? { found: true, data: record.data } : { found: false };
}

export function copyText(text: string): Promise<ActionResult> {
  const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard;
  if (!clipboard) return Promise.resolve(fail("No clipboard here (a secure context is needed)."));
  return clipboard.writeText(text).then(
    () => ok,
    (error: unknown) => fail(`Copy failed: ${String(error)}`),
  );
}

/** Development only: the inspected replica stops as if its page crashed (see DevSimulations.crash). */
export function simulateCrash(store: SharedFetchStore): void {
  inspectable(store).internals.dev.crash();
}

export function simulatePauseNetwork(store: SharedFetchStore, paused: boolean): void {
  inspectable(store).internals.dev.pauseNetwork(paused);
}

/** At most `max` characters of pretty JSON: a 50 MiB result must not freeze the page it inspects. */
export function jsonPreview(data: unknown, max = 1024 * 1024): { text: string; truncated: boolean } {
  let text: string;
  try {
    text = JSON.stringify(data, null, 2) ?? String(data);
  } catch (error) {
    text = `(not serialisable: ${String(error)})`;
  }
  return text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false };
}
