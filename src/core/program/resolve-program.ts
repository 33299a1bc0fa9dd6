import { numberOption } from "../options.ts";
import type { Program, ProgramFile } from "../types.ts";
import { compileFiles } from "./compile.ts";
import { ProgramResolveError } from "./errors.ts";
import { walkProgram } from "./program-walk.ts";
import { findImports } from "./find-imports.ts";
import { parseEntryUrl, pathOf, resolveSpecifier } from "./specifiers.ts";

export type ResolveProgramOptions = {
  /** Injected; every request of the walk goes through it. */
  fetch: typeof fetch;
  /** Reaches every request of the walk; aborting rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Parallel requests, default 6. */
  concurrency?: number;
  /** Default 500 modules. */
  maxFiles?: number;
  /** Default 1 MiB per module. */
  maxFileBytes?: number;
  /** Default 10 MiB for the whole program. */
  maxTotalBytes?: number;
  /** Also return JavaScript for each .ts/.tsx/.jsx file (Sucrase, loaded on demand). */
  compile?: boolean;
  cache?: RequestCache;
};

/** `compiled` maps a file name to its JavaScript, for the TS and JSX files only (declaration files have none). */
export type CompiledProgram = Program & { compiled: Record<string, string> };
export type MaybeCompiledProgram = Program & { compiled?: Record<string, string> };

const DEFAULTS = {
  concurrency: 6,
  maxFiles: 500,
  maxFileBytes: 1024 * 1024,
  maxTotalBytes: 10 * 1024 * 1024,
};

/**
 * Fetches the module graph of `entryUrl` (same origin only) into a Program. Rejects with a
 * ProgramResolveError, or with the signal's reason when aborted.
 */
export function resolveProgram(entryUrl: string, opts: ResolveProgramOptions & { compile: true }): Promise<CompiledProgram>;
export function resolveProgram(entryUrl: string, opts: ResolveProgramOptions): Promise<MaybeCompiledProgram>;
export async function resolveProgram(entryUrl: string, opts: ResolveProgramOptions): Promise<MaybeCompiledProgram> {
  const entry = parseEntryUrl(entryUrl);
  if (typeof opts?.fetch !== "function") throw new ProgramResolveError("resolveProgram needs a fetch function");
  const limits = {
    concurrency: positiveInteger("concurrency", opts.concurrency, DEFAULTS.concurrency),
    maxFiles: positiveInteger("maxFiles", opts.maxFiles, DEFAULTS.maxFiles),
    maxFileBytes: positiveInteger("maxFileBytes", opts.maxFileBytes, DEFAULTS.maxFileBytes),
    maxTotalBytes: positiveInteger("maxTotalBytes", opts.maxTotalBytes, DEFAULTS.maxTotalBytes),
  };
  opts.signal?.throwIfAborted();
  const { modules, externals } = await walkProgram(entry, {
    fetch: opts.fetch,
    signal: opts.signal,
    ...limits,
    ...(opts.cache ? { cache: opts.cache } : {}),
  });

  const files: ProgramFile[] = [];
  for (const [url, contents] of modules) files.push({ name: pathOf(url), contents });
  // Code-unit order, not localeCompare: the same graph must give the same Program everywhere.
  files.sort((a, b) => (a.name === entry.name ? -1 : b.name === entry.name ? 1 : compare(a.name, b.name)));
  const program = (): Program => ({ main: entry.name, files, externals: [...externals].sort(compare) });
  if (!opts.compile) return program();

  const compiled = await compileFiles(files);
  opts.signal?.throwIfAborted();
  // The compiled code imports what its source did not: the JSX runtime (`react/jsx-runtime`). An
  // import map built from `externals` must map it too, or the compiled program cannot load.
  for (const [name, code] of Object.entries(compiled)) {
    // Sucrase's output always parses; were it not to, the program stands as before.
    for (const specifier of await findImports(code, name).catch(() => [])) {
      if (resolveSpecifier(specifier, entry.origin + name, entry).kind === "external") externals.add(specifier);
    }
  }
  return { ...program(), compiled };
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  return numberOption(name, value, fallback, {
    integer: true,
    error: (n, v, expected) => new ProgramResolveError(`invalid option ${n}: ${String(v)} (expected ${expected})`),
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
