import { SharedFetchInputError } from "../core/errors.ts";
import type { SnapshotError } from "../core/types.ts";

/**
 * What a shared query function throws when the latest recorded outcome is an error (an HTTP or
 * network failure after every retry), or when its input is bad: TanStack's `error`, passed to
 * `retry`, `throwOnError`, … Data recorded earlier stays in the cache beside it (invariant 7).
 */
export class SharedFetchError extends Error {
  override readonly name = "SharedFetchError";
  /** HTTP status, when the host answered. */
  readonly status: number | undefined;
  /** `cause`: the SharedFetchInputError the store throws for bad input (nothing was asked of any host). */
  constructor(error: SnapshotError, options?: { cause?: unknown }) {
    super(error.message, options);
    this.status = error.status;
  }
}

/**
 * `given` (what the retry functions were given for this failure) when its message is `error`'s (an
 * HTTP failure's message names its status): TanStack shows that object. Else a new one.
 */
export function errorOf(error: SnapshotError, given?: SharedFetchError): SharedFetchError {
  return given?.message === error.message ? given : new SharedFetchError(error);
}

/**
 * The query's error for something thrown before any host was asked: bad input (the store's
 * SharedFetchInputError, which names the value and what was expected) becomes a SharedFetchError
 * with the same message and the input error as its `cause`, so `error` is always the type the
 * result says. Anything else (an AbortError) passes through.
 */
export function asQueryError(error: unknown): unknown {
  if (error instanceof SharedFetchError || !(error instanceof SharedFetchInputError)) return error;
  return new SharedFetchError({ message: error.message }, { cause: error });
}
