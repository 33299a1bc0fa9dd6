import type { DocRecords } from "./doc-records.ts";
import type { Job } from "./engine.ts";
import { messageOf, type Outcome } from "./fetcher.ts";
import { abortError } from "./errors.ts";
import { programKey } from "./key.ts";
import { isPlainObject, parseHttpUrl } from "./request.ts";
import type { ProgramRequest } from "./types.ts";

/** A program payload read from the doc must look like one before React ever sees it. */
export function validateProgramData(data: unknown): string | null {
  if (!isPlainObject(data)) return "is not a program object";
  if (typeof data.main !== "string") return "main is not a string";
  if (!Array.isArray(data.files) || !data.files.every((f) => isPlainObject(f) && typeof f.name === "string" && typeof f.contents === "string")) {
    return "files is not a list of { name, contents } strings";
  }
  if (!Array.isArray(data.externals) || !data.externals.every((e) => typeof e === "string")) return "externals is not a list of strings";
  return null;
}

/** Program resolution as a job of the claim engine. */
export class ProgramWork {
  constructor(private readonly opts: { identity: string; fetch: typeof fetch; leaseMs: number; records: DocRecords }) {}

  keyOf(req: ProgramRequest): string {
    return programKey(this.opts.identity, this.url(req), false);
  }

  job(req: ProgramRequest): Job {
    const url = this.url(req);
    const u = new URL(url);
    return {
      kind: "program",
      key: programKey(this.opts.identity, url, false),
      label: `PROGRAM ${u.origin}${u.pathname}${u.search ? "?…" : ""}`,
      leaseMs: this.opts.leaseMs,
      results: this.opts.records.programs,
      run: async ({ signal }): Promise<Outcome> => {
        // Loaded on first use so that apps that only fetch never bundle the module lexer.
        const { resolveProgram } = await import("./program/index.ts");
        try {
          return { ok: true, data: await resolveProgram(url, { fetch: this.opts.fetch, signal }) };
        } catch (error) {
          if (signal.aborted) throw abortError(signal.reason);
          const status = (error as { status?: unknown }).status;
          return { ok: false, error: typeof status === "number" ? { message: messageOf(error), status } : { message: messageOf(error) } };
        }
      },
    };
  }

  private url(req: ProgramRequest): string {
    const raw = typeof req === "string" ? req : isPlainObject(req) ? req.url : req;
    return parseHttpUrl(raw, "program url").href;
  }
}
