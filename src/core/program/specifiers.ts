import { shownUrl } from "../errors.ts";
import { ProgramResolveError } from "./errors.ts";

const PROBE_EXTENSIONS = [".ts", ".tsx", ".js", ".jsx", ".mjs"];
/** The documented probe order for a specifier without an extension: first 2xx wins. */
export const PROBE_SUFFIXES: readonly string[] = [...PROBE_EXTENSIONS, ...PROBE_EXTENSIONS.map((ext) => `/index${ext}`)];

const SCRIPT_EXTENSIONS = [".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"];
/**
 * Endings that count as "has an extension". Any other dot (`./button.styles`, `./x.config`) is part
 * of the name in TypeScript projects, so such specifiers are probed like extensionless ones.
 */
const DATA_EXTENSIONS = [".json", ".css", ".wasm"];
const KNOWN_EXTENSIONS = new Set([...SCRIPT_EXTENSIONS, ...DATA_EXTENSIONS]);

export type ProgramEntry = {
  /** What is requested for the entry: the only URL that keeps the caller's query string. */
  requestUrl: string;
  /** The entry's identity in the module graph (no query, no hash). */
  moduleUrl: string;
  origin: string;
  /** Directory of the entry (ends with "/"): relative imports from inside it may not climb out. */
  root: string;
  name: string;
};

export type ImportTarget = { kind: "external"; specifier: string } | { kind: "module"; url: string; explicit: boolean };

export function parseEntryUrl(value: unknown): ProgramEntry {
  const shown = describeValue(value);
  let url: URL;
  try {
    if (typeof value !== "string" || value.trim() === "") throw new TypeError("empty");
    url = new URL(value);
  } catch {
    throw new ProgramResolveError(`invalid program entry URL ${shown}: expected an absolute http(s) URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ProgramResolveError(`invalid program entry URL ${shown}: only http(s) URLs can be resolved`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ProgramResolveError(`invalid program entry URL ${shown}: it carries credentials (user:password@), which fetch refuses`);
  }
  url.hash = "";
  const requestUrl = url.href;
  const name = url.pathname;
  return {
    requestUrl,
    moduleUrl: url.origin + name,
    origin: url.origin,
    root: name.slice(0, name.lastIndexOf("/") + 1),
    name,
  };
}

/** Decides what an import points at; throws, before anything is requested, when it climbs out of the root. */
export function resolveSpecifier(specifier: string, importerUrl: string, entry: ProgramEntry): ImportTarget {
  const importer = new URL(importerUrl);
  if (specifier === "") {
    throw new ProgramResolveError(`${importer.pathname} imports an empty specifier`, {
      importer: importer.pathname,
      specifier,
    });
  }
  const relative = specifier === "." || specifier === ".." || specifier.startsWith("./") || specifier.startsWith("../");
  let url: URL;
  if (relative || specifier.startsWith("/")) {
    url = new URL(specifier, importer);
  } else {
    try {
      url = new URL(specifier);
    } catch {
      return { kind: "external", specifier }; // bare: `react`, `@scope/x/y`
    }
  }
  if (url.origin !== entry.origin || (url.protocol !== "http:" && url.protocol !== "https:")) {
    return { kind: "external", specifier };
  }
  // Only an importer inside the root is fenced in: a module reached by a root-absolute import
  // (`/lib/x.ts`) lives outside it by the author's choice, and its own `./y` must still work.
  if (relative && importer.pathname.startsWith(entry.root) && !url.pathname.startsWith(entry.root)) {
    throw new ProgramResolveError(`${importer.pathname} imports '${specifier}', which climbs above the program root ${entry.root}`, {
      importer: importer.pathname,
      specifier,
    });
  }
  // A dependency's own query or hash would make two names for one file; the file is its path.
  const moduleUrl = url.origin + url.pathname;
  return { kind: "module", url: moduleUrl, explicit: KNOWN_EXTENSIONS.has(extensionOf(url.pathname)) };
}

/**
 * URLs to try, in order, for a specifier written without an extension. A TypeScript importer's
 * last resort is a declaration file, as TypeScript finds one: `import type { paths } from
 * "./schema"` names schema.d.ts (openapi-typescript's output). Last, so no module found before
 * costs a request more.
 */
export function probeCandidates(moduleUrl: string, importer = ""): string[] {
  // `./dir/` names a directory outright: only its index files make sense.
  const dir = moduleUrl.endsWith("/");
  const declarations = isTypeScript(importer) ? [".d.ts", "/index.d.ts"] : [];
  const base = dir ? moduleUrl.slice(0, -1) : moduleUrl;
  return [...PROBE_SUFFIXES, ...declarations].filter((s) => !dir || s.startsWith("/")).map((suffix) => base + suffix);
}

const isTypeScript = (path: string) => [".ts", ".tsx", ".mts", ".cts"].includes(extensionOf(path));

/**
 * TypeScript's own rule (node16, nodenext, bundler; Vite follows it): a TypeScript module names
 * its sibling by the JavaScript it compiles to (`./x.js` for x.ts). After the name as written,
 * try the sources: `.js` → `.ts`, `.tsx`; `.jsx` → `.tsx`; `.mjs` → `.mts`; `.cjs` → `.cts`;
 * then the declaration file (`.d.ts`, `.d.mts`, `.d.cts`) a type-only import may name.
 */
export function typescriptSources(moduleUrl: string, importer: string): string[] {
  const ext = extensionOf(moduleUrl);
  if (!isTypeScript(importer) || !/^\.[mc]?jsx?$/.test(ext)) return [];
  const base = moduleUrl.slice(0, -ext.length);
  const ts = ext.replace("js", "ts");
  return ext === ".jsx" ? [base + ts] : ext === ".js" ? [base + ts, `${base}.tsx`, `${base}.d.ts`] : [base + ts, `${base}.d${ts}`];
}

/** Only scripts are scanned for imports; JSON, CSS and the like are carried as files. */
export function isScript(pathname: string): boolean {
  return SCRIPT_EXTENSIONS.includes(extensionOf(pathname));
}

/** JSON, CSS and WebAssembly: imported as files, never scanned, even as an entry. */
export function isData(pathname: string): boolean {
  return DATA_EXTENSIONS.includes(extensionOf(pathname));
}

export function extensionOf(pathname: string): string {
  const last = pathname.slice(pathname.lastIndexOf("/") + 1);
  const dot = last.lastIndexOf(".");
  return dot > 0 ? last.slice(dot).toLowerCase() : "";
}

export function pathOf(url: string): string {
  return new URL(url).pathname;
}

/** Never the query or userinfo of the entry URL: they may carry a token. */
function describeValue(value: unknown): string {
  return typeof value === "string" ? shownUrl(value) : String(value).slice(0, 120);
}
