import type { DocRecords } from "./doc-records.ts";
import type { ClaimEngine } from "./engine.ts";
import { abortError } from "./errors.ts";
import type { StoreEvent } from "./events.ts";
import { invalidated } from "./freshness.ts";
import type { Job } from "./job.ts";
import { ProgramLru } from "./program-lru.ts";
import { ProgramWork } from "./program-work.ts";
import type { Retention } from "./retention.ts";
import { ensureOptions, guard, retryOptions, type ResolvedStoreOptions } from "./store-options.ts";
import type { Program, ProgramRequest, Snapshot } from "./types.ts";

/**
 * The store's programs: their jobs, the bound on how many the doc keeps (ProgramLru), and the
 * ensure and refetch of one, which touch that bound and re-check it once this replica lets go.
 */
export function programAsks(
  o: ResolvedStoreOptions,
  fetchFn: typeof fetch,
  records: DocRecords,
  engine: ClaimEngine,
  retention: Retention,
  write: (fn: () => void) => void,
  emit: (event: StoreEvent) => void,
) {
  const programs = new ProgramWork({ identity: o.identity, fetch: fetchFn, leaseMs: o.programLeaseMs, records });
  const lru = new ProgramLru({
    records,
    maxPrograms: o.maxPrograms,
    maxBytes: o.maxProgramBytes,
    isBusy: (key) => engine.isBusy(key),
    write,
    onEvicted: (keys) => emit({ type: "swept", keys }),
  });
  /** Resolves a program job; the bound is re-checked once this replica lets go of the key. */
  const runProgram = (
    job: Job,
    signal: AbortSignal | undefined,
    mode: "ensure" | "refetch",
    skipInFlight = false,
    maxAgeMs?: number,
    askedAt?: number,
  ): Promise<Snapshot<Program>> => {
    lru.touch(job.key);
    retention.touch(job.key);
    const running = engine.ensure(job, signal, mode, maxAgeMs, skipInFlight, askedAt) as Promise<Snapshot<Program>>;
    running.then(
      () => lru.schedule(),
      () => lru.schedule(),
    );
    return running;
  };
  const askProgram = (req: ProgramRequest, opts: unknown, mode: "ensure" | "refetch"): Promise<Snapshot<Program>> =>
    guard(() => {
      const { signal, leaseMs, skipInFlight, maxAgeMs, askedAt } = ensureOptions(opts, o.programLeaseMs, `${mode}Program`);
      const job = programs.job(req, leaseMs, retryOptions(opts));
      if (signal?.aborted) return Promise.reject(abortError(signal.reason));
      // Only a poll's maxAgeMs reads a program's `at`; but one the devtools invalidated is stale
      // for everyone: an ensure re-resolves it, as a refetch does (joining one claimed).
      const stale = mode === "ensure" && invalidated(records.programs.get(job.key), records.errors.get(job.key));
      return runProgram(job, signal, stale ? "refetch" : mode, mode === "refetch" && skipInFlight, maxAgeMs, askedAt);
    });
  return { programs, lru, askProgram };
}
