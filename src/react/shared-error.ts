import type { SnapshotError } from "../core/types.ts";

/**
 * What a shared query function throws when the latest recorded outcome is an error (an HTTP or
 * network failure after every retry): TanStack's `error`, passed to `retry`, `throwOnError`, …
 * Data recorded earlier stays in the cache beside it (invariant 7).
 */
export class SharedFetchError extends Error {
  override readonly name = "SharedFetchError";
  /** HTTP status, when the host answered. */
  readonly status: number | undefined;
  constructor(error: SnapshotError) {
    super(error.message);
    this.status = error.status;
  }
}
