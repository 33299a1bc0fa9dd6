export { resolveProgram, type ResolveProgramOptions, type CompiledProgram, type MaybeCompiledProgram } from "./resolve-program.ts";
export { ProgramResolveError, type ProgramResolveErrorDetails } from "./errors.ts";
export { PROBE_SUFFIXES } from "./specifiers.ts";
export type { Program, ProgramFile } from "../types.ts";
