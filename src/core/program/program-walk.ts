import { ProgramResolveError } from "./errors.ts";
import { findImports } from "./find-imports.ts";
import { createLimiter, type Limiter } from "./limiter.ts";
import { ModuleFetcher, type FetchOutcome } from "./module-fetcher.ts";
import {
  extensionOf,
  isData,
  isScript,
  pathOf,
  probeCandidates,
  resolveSpecifier,
  typescriptSources,
  type ImportTarget,
  type ProgramEntry,
} from "./specifiers.ts";

export type WalkOptions = {
  fetch: typeof fetch;
  signal: AbortSignal | undefined;
  concurrency: number;
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
  cache?: RequestCache;
};

export type WalkResult = {
  /** Module URL (no query) → contents. */
  modules: Map<string, string>;
  externals: Set<string>;
};

type ModuleTarget = Extract<ImportTarget, { kind: "module" }>;

/** Walks the import graph from the entry; rejects with the first failure or the caller's abort reason. */
export function walkProgram(entry: ProgramEntry, options: WalkOptions): Promise<WalkResult> {
  return new ProgramWalk(entry, options).run();
}

class ProgramWalk {
  private readonly modules = new Map<string, string>();
  private readonly externals = new Set<string>();
  /** URL → its one request: cycles, diamonds and overlapping probes share it. */
  private readonly outcomes = new Map<string, Promise<FetchOutcome>>();
  /**
   * Candidate lists already being located (the first follower reports its failure). Keyed by the
   * list, not the target: a TypeScript importer's `./y.js` may be y.ts, a JavaScript one's never.
   */
  private readonly located = new Set<string>();
  /** Chained to the caller's signal; also aborted by our own first failure to stop the rest. */
  private readonly controller = new AbortController();
  private readonly fetcher: ModuleFetcher;
  private readonly limit: Limiter;
  private pending = 0;
  private finished = false;
  private resolve: (result: WalkResult) => void = () => {};
  private reject: (reason: unknown) => void = () => {};

  constructor(
    private readonly entry: ProgramEntry,
    private readonly options: WalkOptions,
  ) {
    this.limit = createLimiter(options.concurrency);
    this.fetcher = new ModuleFetcher({
      fetch: options.fetch,
      signal: this.controller.signal,
      maxFileBytes: options.maxFileBytes,
      maxTotalBytes: options.maxTotalBytes,
      ...(options.cache ? { cache: options.cache } : {}),
    });
  }

  run(): Promise<WalkResult> {
    const outer = this.options.signal;
    const onAbort = () => this.fail(outer?.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    return new Promise<WalkResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.spawn(() => this.inSlot(() => this.loadEntry()));
    }).finally(() => outer?.removeEventListener("abort", onAbort));
  }

  /** Every task's rejection lands in `fail`, so nothing is left unhandled. */
  private spawn(task: () => Promise<void>): void {
    this.pending++;
    task().then(
      () => {
        if (--this.pending === 0 && !this.finished) {
          this.finished = true;
          this.resolve({ modules: this.modules, externals: this.externals });
        }
      },
      (err: unknown) => this.fail(err),
    );
  }

  /**
   * A slot covers a request *and* the decision on its response (status, size, imports), and a
   * failure aborts the walk inside it: the request queued next then sees the abort and never starts.
   */
  private inSlot<T>(work: () => Promise<T>): Promise<T> {
    return this.limit(async () => {
      this.controller.signal.throwIfAborted();
      try {
        return await work();
      } catch (err) {
        this.fail(err);
        throw err;
      }
    });
  }

  private fail(err: unknown): void {
    if (this.finished) return; // later errors are mostly echoes of our own abort
    this.finished = true;
    const outer = this.options.signal;
    const reason = outer?.aborted ? outer.reason : asResolveError(err);
    this.controller.abort(reason);
    this.reject(reason);
  }

  private fetchOnce(url: string): Promise<FetchOutcome> {
    let outcome = this.outcomes.get(url);
    if (!outcome) {
      outcome = this.fetcher.get(url);
      this.outcomes.set(url, outcome);
    }
    return outcome;
  }

  private async loadEntry(): Promise<void> {
    const { requestUrl, moduleUrl, name } = this.entry;
    const outcome = this.fetchOnce(requestUrl);
    // An import of the entry (a cycle back to it) is the same file, whatever the entry's query.
    this.outcomes.set(moduleUrl, outcome);
    const result = await outcome;
    if (!result.ok) {
      const what = result.html
        ? "is an HTML page (text/html), not a module"
        : result.status === 404
          ? "not found (HTTP 404)"
          : `failed: HTTP ${result.status}`;
      throw new ProgramResolveError(`entry module ${name} ${what}`, { url: moduleUrl, status: result.status });
    }
    // The entry is a module whatever its name ends with (`/app/main` served as JavaScript).
    await this.accept(moduleUrl, result.text, !isData(name));
  }

  private async accept(url: string, text: string, scan = isScript(pathOf(url))): Promise<void> {
    if (this.modules.has(url)) return;
    this.modules.set(url, text);
    if (this.modules.size > this.options.maxFiles) {
      throw new ProgramResolveError(`program has more than ${this.options.maxFiles} modules (limit reached at ${pathOf(url)})`, { url });
    }
    const path = pathOf(url);
    if (!scan) return;
    const specifiers = await findImports(text, path);
    // Resolve every specifier first: a refused one fails the walk before any sibling is requested.
    const targets: [ModuleTarget, string][] = [];
    for (const specifier of specifiers) {
      const target = resolveSpecifier(specifier, url, this.entry);
      if (target.kind === "external") this.externals.add(target.specifier);
      else targets.push([target, specifier]);
    }
    for (const [target, specifier] of targets) {
      // A cycle back to the entry names the file already fetched, even without an extension
      // (`/app/main` imported as `./main`): probing it would look for another file.
      if (target.url === this.entry.moduleUrl) continue;
      const urls = candidates(target, path);
      const id = urls.join(" ");
      if (this.located.has(id)) continue;
      this.located.add(id);
      this.spawn(() => this.locate(target, urls, specifier, path));
    }
  }

  /** Requests `urls` in order (a candidate's request is shared with any other asking for it). */
  private async locate(target: ModuleTarget, urls: string[], specifier: string, importer: string): Promise<void> {
    const details = { importer, specifier };
    const forbidden = new Set<string>();
    for (const [index, url] of urls.entries()) {
      const found = await this.inSlot(async () => {
        const outcome = await this.fetchOnce(url).catch((err: unknown) => {
          // The request's own error (size, network) does not know who asked: say so.
          if (!(err instanceof ProgramResolveError) || this.finished) throw err;
          const message = `${err.message} (imported by ${importer} as '${specifier}')`;
          throw new ProgramResolveError(message, { ...details, url, status: err.status, cause: err.cause });
        });
        if (outcome.ok) {
          await this.accept(url, outcome.text, isScript(pathOf(url)) || (outcome.javascript && !isData(pathOf(url))));
          return true;
        }
        // Hosts that keep files in a bucket (S3, GCS, and CDNs in front of them) answer a missing
        // object with 403 when listing is not allowed: while probing, that is "not this candidate".
        const missing = outcome.status === 404 || outcome.html || (outcome.status === 403 && urls.length > 1);
        if (!missing) {
          throw new ProgramResolveError(`module '${specifier}' imported by ${importer} failed: HTTP ${outcome.status} for ${pathOf(url)}`, {
            ...details,
            url,
            status: outcome.status,
          });
        }
        if (outcome.status === 403) forbidden.add(url);
        if (index < urls.length - 1) return false;
        const tried =
          urls.length > 1
            ? `tried ${urls.map((u) => pathOf(u) + (forbidden.has(u) ? " (HTTP 403)" : "")).join(", ")}`
            : outcome.html
              ? `${pathOf(url)} is an HTML page (text/html), not a module`
              : `HTTP 404 for ${pathOf(url)}`;
        throw new ProgramResolveError(`module '${specifier}' imported by ${importer} not found (${tried})`, {
          ...details,
          url: target.url,
          status: forbidden.size === urls.length ? 403 : 404,
        });
      });
      if (found) return;
    }
  }
}

/**
 * Explicit paths are requested as written; others are probed in PROBE_SUFFIXES order, after the
 * name as written when it has an extension we do not know (`./logo.svg`; `./button.styles` is
 * then `button.styles.ts`). A TypeScript module's `./x.js` may name x.ts (typescriptSources).
 */
function candidates(target: ModuleTarget, importer: string): string[] {
  if (target.explicit) return [target.url, ...typescriptSources(target.url, importer)];
  const probed = probeCandidates(target.url, importer);
  return extensionOf(pathOf(target.url)) !== "" ? [target.url, ...probed] : probed;
}

function asResolveError(err: unknown): ProgramResolveError {
  if (err instanceof ProgramResolveError) return err;
  // Not one of ours: its text is not known to be free of the entry's query, so only its kind is named.
  const kind = err instanceof Error ? err.name : typeof err;
  return new ProgramResolveError(`program resolution failed (internal ${kind})`, { cause: err });
}
