/** Where a resolution failed. URLs here never carry the entry's query string (it may hold a token). */
export type ProgramResolveErrorDetails = {
  /** The module URL (no query) whose request or contents failed. */
  url?: string;
  /** URL path of the module whose import led here. */
  importer?: string;
  /** The specifier as written in the importer. */
  specifier?: string;
  /** HTTP status, when an HTTP response caused the failure. */
  status?: number;
  cause?: unknown;
};

/**
 * Every failure of `resolveProgram` except an abort is one of these, so a caller can record
 * `{ message, status }` without inspecting anything else.
 */
export class ProgramResolveError extends Error {
  override readonly name = "ProgramResolveError";
  readonly url?: string;
  readonly importer?: string;
  readonly specifier?: string;
  readonly status?: number;

  constructor(message: string, details: ProgramResolveErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    if (details.url !== undefined) this.url = details.url;
    if (details.importer !== undefined) this.importer = details.importer;
    if (details.specifier !== undefined) this.specifier = details.specifier;
    if (details.status !== undefined) this.status = details.status;
  }
}
