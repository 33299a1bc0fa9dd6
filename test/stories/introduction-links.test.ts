/**
 * "How shared-fetch works" (stories/Introduction.mdx) links each idea and each of the 14 invariants
 * to the scenario that shows it. A link to a story id that no story file makes opens Storybook's
 * "story not found": every link must name a story that exists, by the id Storybook gives it
 * (its meta title and export name, as CSF computes them).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { storyNameFromExport, toId } from "storybook/internal/csf";
import { describe, expect, it } from "vitest";

const dir = join(import.meta.dirname, "../../stories");

function storyIds(): Set<string> {
  const ids = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".stories.tsx"))) {
    const source = readFileSync(join(dir, file), "utf8");
    const title = /^\s*title:\s*"([^"]+)"/m.exec(source)?.[1];
    if (!title) throw new Error(`${file}: no meta title found`);
    for (const [, name] of source.matchAll(/^export const (\w+)/gm)) ids.add(toId(title, storyNameFromExport(name!)));
  }
  return ids;
}

describe("Introduction: every scenario link opens a story", () => {
  const intro = readFileSync(join(dir, "Introduction.mdx"), "utf8");
  const links = [...intro.matchAll(/\?path=\/story\/([\w-]+)/g)].map((m) => m[1]!);

  it("links scenarios, among them the TanStack Query and Devices ones", () => {
    expect(links.length).toBeGreaterThan(20);
    expect(links).toContain("scenarios-tanstack-query--mutation-invalidates-every-tab");
    expect(links).toContain("scenarios-devices--back-online-joins-the-request");
    expect(links).toContain("scenarios-tanstack-query--offline-mutation-resumed-in-every-tab");
    expect(links).toContain("scenarios-tanstack-query--paused-in-an-open-tab-restored-in-another");
  });

  it("each linked id is a story some file exports", () => {
    const ids = storyIds();
    expect(links.filter((id) => !ids.has(id))).toEqual([]);
  });
});
