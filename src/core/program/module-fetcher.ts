import { networkCause } from "../causes.ts";
import { ProgramResolveError } from "./errors.ts";
import { pathOf } from "./specifiers.ts";

/** `html`: a 2xx HTML page (a host's fallback page for unknown paths), which no module is. */
export type FetchOutcome = { ok: true; status: number; text: string; javascript: boolean } | { ok: false; status: number; html?: true };

export type ModuleFetcherOptions = {
  fetch: typeof fetch;
  /** The resolution's own signal: every request carries it, so one abort reaches the network. */
  signal: AbortSignal;
  maxFileBytes: number;
  maxTotalBytes: number;
  cache?: RequestCache;
};

/** Performs the requests of one resolution and reads their bodies within the size limits. */
export class ModuleFetcher {
  private totalBytes = 0;

  constructor(private readonly opts: ModuleFetcherOptions) {}

  /** `requestUrl` may carry a query (the entry's); errors name only the module path. */
  async get(requestUrl: string): Promise<FetchOutcome> {
    const { signal } = this.opts;
    // Queued work may reach here after the resolution already failed or was aborted.
    signal.throwIfAborted();
    try {
      return await this.request(requestUrl);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (err instanceof ProgramResolveError) throw err;
      // fetch's own text may quote the request URL, whose query is the entry's (a token, maybe).
      throw new ProgramResolveError(`could not fetch module ${pathOf(requestUrl)}: ${networkCause(err)}`, {
        url: stripQuery(requestUrl),
        cause: err,
      });
    }
  }

  private async request(requestUrl: string): Promise<FetchOutcome> {
    const { cache, signal } = this.opts;
    const res = await this.opts.fetch(requestUrl, cache ? { signal, cache } : { signal });
    if (res.redirected && res.url && new URL(res.url).origin !== new URL(requestUrl).origin) {
      await res.body?.cancel().catch(() => {});
      // Other origins are externals, never fetched: its code must not pass for this origin's file.
      throw new ProgramResolveError(`module ${pathOf(requestUrl)} redirected to another origin (${new URL(res.url).origin})`, {
        url: stripQuery(requestUrl),
      });
    }
    // Browsers refuse a module script served as HTML; many hosts answer unknown paths with their
    // index.html (single-page fallback), which probing must read as "not here".
    const html = res.ok && /^\s*text\/html\b/i.test(res.headers.get("content-type") ?? "");
    if (!res.ok || html) {
      // An unread body keeps the connection busy; nobody needs an error page's text.
      await res.body?.cancel().catch(() => {});
      return html ? { ok: false, status: res.status, html: true } : { ok: false, status: res.status };
    }
    const declared = Number(res.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared)) {
      const tooBig = this.sizeError(requestUrl, declared, this.totalBytes + declared);
      if (tooBig) {
        await res.body?.cancel().catch(() => {});
        throw tooBig;
      }
    }
    const javascript = /^\s*(text|application)\/(x-)?(javascript|ecmascript)\b/i.test(res.headers.get("content-type") ?? "");
    return { ok: true, status: res.status, text: await this.readCapped(requestUrl, res), javascript };
  }

  /** Content-Length may be absent or wrong, so the bytes actually read are counted as well. */
  private async readCapped(requestUrl: string, res: Response): Promise<string> {
    const reader = res.body?.getReader();
    if (!reader) return "";
    const decoder = new TextDecoder();
    let text = "";
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        this.totalBytes += value.byteLength;
        const tooBig = this.sizeError(requestUrl, size, this.totalBytes);
        if (tooBig) throw tooBig;
        text += decoder.decode(value, { stream: true });
      }
    } catch (err) {
      await reader.cancel().catch(() => {});
      throw err;
    }
    return text + decoder.decode();
  }

  private sizeError(requestUrl: string, fileBytes: number, totalBytes: number): ProgramResolveError | undefined {
    const { maxFileBytes, maxTotalBytes } = this.opts;
    const url = stripQuery(requestUrl);
    if (fileBytes > maxFileBytes) {
      return new ProgramResolveError(`module ${pathOf(requestUrl)} is larger than the limit of ${maxFileBytes} bytes per file`, { url });
    }
    if (totalBytes > maxTotalBytes) {
      return new ProgramResolveError(
        `program is larger than the limit of ${maxTotalBytes} bytes in total (reached at ${pathOf(requestUrl)})`,
        { url },
      );
    }
    return undefined;
  }
}

function stripQuery(url: string): string {
  const u = new URL(url);
  return u.origin + u.pathname;
}
