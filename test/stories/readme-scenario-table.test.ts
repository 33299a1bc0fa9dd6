/**
 * README, Storybook: the scenarios. Each row of the table names a story as "group · what it
 * shows": the group is the story file's title (less "Scenarios/", its "/" read as " · "), the
 * words after it are found in the story's name or its export's words (a row of the group alone
 * stands for every story of the file). A row whose story was renamed or removed, or a story shown
 * in Storybook that no row names, fails here. Files are parsed, Storybook is not started.
 * Devtools/States is described under the README's Devtools section instead.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { storyNameFromExport } from "storybook/internal/csf";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const dir = join(root, "stories");

type Story = { file: string; group: string; words: string[] };

function stories(): Story[] {
  const out: Story[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".stories.tsx"))) {
    const source = readFileSync(join(dir, file), "utf8");
    const title = /^\s*title:\s*"([^"]+)"/m.exec(source)?.[1];
    if (!title) throw new Error(`${file}: no meta title found`);
    const group = title
      .replace(/^Scenarios\//, "")
      .replaceAll("/", " · ")
      .toLowerCase();
    // Each export's text up to the next one: its `name` and `tags` are there.
    for (const chunk of source.split(/^export const /m).slice(1)) {
      const exported = /^(\w+)/.exec(chunk)![1]!;
      // Tests kept out of the sidebar and the docs pages are shown to no one.
      if (/tags:\s*\[[^\]]*"!dev"/.test(chunk)) continue;
      const name = /^\s*name:\s*"([^"]+)"/m.exec(chunk)?.[1] ?? "";
      out.push({ file, group, words: [name.toLowerCase(), storyNameFromExport(exported).toLowerCase()] });
    }
  }
  return out;
}

function rows(): string[] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const table = readme.slice(readme.indexOf("| scenario | what it shows (invariants) |"));
  return table
    .split("\n")
    .slice(2)
    .filter((line, i, lines) => lines.slice(0, i + 1).every((l) => l.startsWith("| ")))
    .map((line) => line.split(" | ")[0]!.slice(2).toLowerCase());
}

const names = (row: string, story: Story): boolean => {
  if (row === story.group) return true;
  if (!row.startsWith(`${story.group} · `)) return false;
  const words = row.slice(story.group.length + 3);
  return story.words.some((w) => w.includes(words));
};

describe("README, Storybook: the scenarios — the table names the stories that exist", () => {
  const table = rows();
  const all = stories().filter((s) => s.group !== "devtools · states");

  it("reads the table: a row per scenario, the TanStack Query and Devices ones among them", () => {
    expect(table.length).toBeGreaterThan(25);
    expect(table).toContain("tanstack query · mutation invalidates every tab");
    expect(table).toContain("devices · back online joins the request");
  });

  it("every row names a story some file exports", () => {
    expect(table.filter((row) => !all.some((story) => names(row, story)))).toEqual([]);
  });

  it("every story shown in Storybook has its row", () => {
    const unnamed = all.filter((story) => !table.some((row) => names(row, story)));
    expect(unnamed.map((s) => `${s.file}: ${s.words.join(" / ")}`)).toEqual([]);
  });
});
