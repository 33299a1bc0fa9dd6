import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { buildTestPage } from "./harness.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Directory of the built test page (test/browser/page), served by the counting host. */
    e2ePageDir: string;
    /** Directory Storybook is built into, once per run, by the first file that needs it (built-storybook.ts). */
    e2eStorybookDir: string;
  }
}

/** Builds the test page once for the whole e2e project; removes the builds afterwards. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const page = await buildTestPage();
  const storybookDir = await mkdtemp(join(tmpdir(), "shared-fetch-storybook-"));
  project.provide("e2ePageDir", page.dir);
  project.provide("e2eStorybookDir", storybookDir);
  return async () => {
    await page.remove();
    await rm(storybookDir, { recursive: true, force: true });
  };
}
