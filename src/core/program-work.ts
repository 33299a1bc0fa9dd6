import type { DocRecords } from "./doc-records.ts";
import type { Job } from "./job.ts";
import type { Outcome } from "./fetcher.ts";
import { SharedFetchInputError, abortError, describe, shownValue } from "./errors.ts";
import { programKey } from "./key.ts";
import { validateJson } from "./records.ts";
import { isPlainObject, own, parseHttpUrl } from "./request.ts";
import type { ProgramRequest } from "./types.ts";
import { NO_RETRY, withRetries, type RetryPolicy } from "./retry.ts";

/**
 * A program payload read from the doc must look like one before React ever sees it (invariant 14).
 * `compiled` (present for `compile: true` requests) maps file names to JavaScript.
 */
export function validateProgramData(data: unknown): string | null {
  // JSON first, as for fetch results: a peer's bigint or `__proto__` would pass the shape checks.
  const notJson = validateJson(data);
  if (notJson) return notJson;
  if (!isPlainObject(data)) return "is not a program object";
  if (typeof own(data, "main") !== "string") return "main is not a string";
  const files = own(data, "files");
  if (
    !Array.isArray(files) ||
    !files.every((f) => isPlainObject(f) && typeof own(f, "name") === "string" && typeof own(f, "contents") === "string")
  ) {
    return "files is not a list of { name, contents } strings";
  }
  const externals = own(data, "externals");
  if (!Array.isArray(externals) || !externals.every((e) => typeof e === "string")) return "externals is not a list of strings";
  if (Object.hasOwn(data, "compiled")) {
    const compiled = data.compiled;
    if (!isPlainObject(compiled) || !Object.keys(compiled).every((name) => typeof compiled[name] === "string")) {
      return "compiled is not a map of file names to strings";
    }
  }
  return null;
}

/** A program request checked and normalised: the entry URL (no fragment) and the compile flag. */
export type NormalizedProgramRequest = { url: string; compile: boolean };

export function normalizeProgramRequest(req: ProgramRequest): NormalizedProgramRequest {
  if (!isPlainObject(req))
    throw new SharedFetchInputError(`shared-fetch: program request must be { url, compile? }, got ${shownValue(req)}`);
  // `headers`, `method` or a `compiled` typo was dropped unsent and unkeyed, with no word.
  for (const name in req)
    if ((req as Record<string, unknown>)[name] !== undefined && !/^(url|compile)$/.test(name))
      throw new SharedFetchInputError(`shared-fetch: unknown request field ${describe(name)}; expected url or compile`);
  const parsed = parseHttpUrl(own(req, "url"), "program url");
  // The resolver ignores the fragment: keying on it would resolve one program twice.
  parsed.hash = "";
  const compile = own(req, "compile");
  if (compile !== undefined && typeof compile !== "boolean") {
    throw new SharedFetchInputError(`shared-fetch: program compile flag must be a boolean, got ${describe(compile)}`);
  }
  return { url: parsed.href, compile: compile === true };
}

/**
 * Resolved keys remembered (see ProgramWork.resolved), the most recent: a page that resolves ever
 * new entries (a playground, a query string per entry) forgets the oldest rather than grow. One
 * forgotten, evicted and asked again may be served by the HTTP cache once.
 */
export const RESOLVED_KEPT = 4096;

/** Program resolution as a job of the claim engine (same claims, leases and invariants as fetches). */
export class ProgramWork {
  /**
   * Keys this replica saw resolved (recorded, or run here): the next resolution is a re-resolution
   * even at revision 1, as after an eviction (maxPrograms, the devtools' evict) numbers again from 1.
   */
  private readonly resolved = new Set<string>();
  constructor(private readonly opts: { identity: string; fetch: typeof fetch; leaseMs: number; records: DocRecords }) {}

  private seen(key: string): void {
    this.resolved.delete(key);
    this.resolved.add(key);
    if (this.resolved.size > RESOLVED_KEPT) this.resolved.delete(this.resolved.values().next().value!);
  }

  /** Keyed by identity, entry URL and compile flag. Throws SharedFetchInputError on bad input. */
  keyOf(req: ProgramRequest): string {
    const { url, compile } = normalizeProgramRequest(req);
    return programKey(this.opts.identity, url, compile);
  }

  /** `retry` runs inside the claim, as a fetch's does: one sequence of resolutions for every replica. */
  job(req: ProgramRequest, leaseMs = this.opts.leaseMs, retry: RetryPolicy = NO_RETRY): Job {
    const { url, compile } = normalizeProgramRequest(req);
    const u = new URL(url);
    const key = programKey(this.opts.identity, url, compile);
    if (this.opts.records.programs.get(key)) this.seen(key);
    return {
      kind: "program",
      key,
      // Never the query string: it may carry a token (invariant 13).
      label: `PROGRAM ${u.origin}${u.pathname}${u.search ? "?…" : ""}${compile ? " (compiled)" : ""}`,
      leaseMs,
      results: this.opts.records.programs,
      run: ({ signal, rev, failed }) => {
        let tries = 0;
        const again = rev > 1 || this.resolved.has(key);
        this.seen(key);
        return withRetries(
          async (): Promise<Outcome> => {
            // When this attempt was asked (the writer's clock, as for fetches): a poll's window reads it.
            const at = Date.now();
            try {
              // Loaded on first use so that apps that only fetch never bundle the module lexer.
              const { resolveProgram } = await import("./program/index.ts");
              // The engine's signal reaches every request of the walk (invariant 11).
              return {
                ok: true,
                data: await resolveProgram(url, {
                  fetch: this.opts.fetch,
                  signal,
                  compile,
                  // Revalidated with the host after the first resolution (a deploy) and on a retry (a
                  // 404 is cacheable), where fetch knows the option: some server runtimes refuse it.
                  ...((again || tries++ > 0) && typeof Request === "function" && "cache" in Request.prototype
                    ? { cache: "no-cache" as const }
                    : {}),
                }),
                at,
              };
            } catch (error) {
              if (signal.aborted) throw abortError(signal.reason);
              const status = (error as { status?: unknown } | null)?.status;
              const message = programMessage(error);
              return { ok: false, error: typeof status === "number" ? { message, status } : { message }, at };
            }
          },
          retry,
          signal,
          failed,
        );
      },
    };
  }
}

/**
 * The resolver's messages name modules by path (never the entry's query) and classify network
 * failures; anything else thrown here is not known to be free of secrets, so only its kind is said.
 */
function programMessage(error: unknown): string {
  if (error instanceof Error && error.name === "ProgramResolveError") return error.message;
  return `program resolution failed (internal ${error instanceof Error ? error.name : typeof error})`;
}
