import type { DocRecords } from "./doc-records.ts";
import { performFetch } from "./fetcher.ts";
import type { Job } from "./job.ts";
import { fetchKey } from "./key.ts";
import { requestLabel, type NormalizedRequest } from "./request.ts";
import { NO_RETRY, withRetries, type RetryPolicy } from "./retry.ts";

export type FetchJobDeps = { identity: string; fetch: typeof fetch; maxResultBytes: number; records: DocRecords };

/** A request as a job of the claim engine: keyed by identity and inputs, retried inside its claim. */
export function fetchJob(deps: FetchJobDeps, req: NormalizedRequest, leaseMs: number, retry: RetryPolicy = NO_RETRY): Job {
  return {
    kind: "fetch",
    key: fetchKey(deps.identity, req),
    label: requestLabel(req),
    leaseMs,
    results: deps.records.results,
    run: async ({ signal, idempotencyKey, failed }) => {
      // When the attempt whose outcome is recorded was sent: the data was read from the host no
      // earlier (freshness.ts). Not when the job was made: a job a replica keeps for a key may run
      // long after, to take over a claim its claimant abandoned.
      let at = Date.now();
      const once = () => {
        at = Date.now();
        return performFetch(deps.fetch, req, { signal, idempotencyKey, maxResultBytes: deps.maxResultBytes });
      };
      return { ...(await withRetries(once, retry, signal, failed)), at };
    },
  };
}
