import type { TestProject } from "vitest/node";
import { buildTestPage } from "./harness.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Directory of the built test page (test/browser/page), served by the counting host. */
    e2ePageDir: string;
  }
}

/** Builds the test page once for the whole e2e project; removes the build afterwards. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const page = await buildTestPage();
  project.provide("e2ePageDir", page.dir);
  return () => page.remove();
}
