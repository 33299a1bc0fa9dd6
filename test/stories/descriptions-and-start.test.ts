// @vitest-environment jsdom
/**
 * Storybook explains itself: every story's docs page says which invariant it shows (or that it
 * shows none), every control says what it does, no onboarding checklist takes the sidebar, and
 * `npm start` opens on the introduction. Descriptions are read from the stories as Storybook gets
 * them (`parameters.docs.description.story`, `argTypes[*].description`), not from JSDoc comments
 * or prop types that only some builds turn into descriptions.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { toId } from "storybook/internal/csf";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const dir = join(root, "stories");
const files = readdirSync(dir).filter((f) => f.endsWith(".stories.tsx"));

type Story = StoryObj & { tags?: string[] };
type Module = { default: Meta } & Record<string, unknown>;

async function shownStories(): Promise<{ id: string; meta: Meta; story: Story }[]> {
  const out: { id: string; meta: Meta; story: Story }[] = [];
  for (const file of files) {
    const mod = (await import(/* @vite-ignore */ join(dir, file))) as Module;
    for (const [name, story] of Object.entries(mod)) {
      if (name === "default") continue;
      const s = story as Story;
      // Tests kept out of the sidebar and the docs pages are not shown to anyone.
      if (s.tags?.includes("!dev") && s.tags.includes("!autodocs")) continue;
      out.push({ id: `${file} ${name}`, meta: mod.default, story: s });
    }
  }
  return out;
}

describe("every story and control explains itself", () => {
  it("every story shown has a description naming the invariant it shows (or saying it shows none)", async () => {
    const stories = await shownStories();
    expect(stories.length).toBeGreaterThanOrEqual(13);
    const missing = stories.filter(({ story }) => {
      const text: unknown = (story.parameters?.docs as { description?: { story?: unknown } } | undefined)?.description?.story;
      return typeof text !== "string" || !/\binvariants? \d+\b|\bno invariant\b/i.test(text);
    });
    expect(missing.map((s) => s.id)).toEqual([]);
  });

  it("every control of every story has a description", async () => {
    const undescribed: string[] = [];
    for (const { id, meta, story } of await shownStories()) {
      const argTypes = { ...meta.argTypes, ...story.argTypes } as Record<string, { description?: string } | undefined>;
      for (const arg of new Set([...Object.keys(meta.args ?? {}), ...Object.keys(story.args ?? {})]))
        if (!argTypes[arg]?.description) undescribed.push(`${id}: ${arg}`);
    }
    expect(undescribed).toEqual([]);
  });
});

describe("Storybook's own pages", () => {
  it("the docs addon is installed and no onboarding checklist fills the sidebar or the menu", () => {
    // Read as text: importing the config pulls in esbuild, which refuses to load under jsdom.
    const main = readFileSync(join(root, ".storybook/main.ts"), "utf8");
    expect(/^\s*addons:\s*\[([^\]]*)\]/m.exec(main)?.[1]).toContain('"@storybook/addon-docs"');
    expect(main).toMatch(/^\s*features:\s*\{\s*sidebarOnboardingChecklist:\s*false,\s*menuOnboardingChecklist:\s*false\s*\}/m);
  });

  it("npm start opens on the introduction's docs page", () => {
    const title = /<Meta title="([^"]+)"/.exec(readFileSync(join(dir, "Introduction.mdx"), "utf8"))?.[1];
    expect(title).toBe("Introduction");
    const start = readFileSync(join(root, "scripts/start.mjs"), "utf8");
    expect(start).toContain(`"--initial-path=/docs/${toId(title!, "Docs")}"`);
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.start).toBe("node scripts/start.mjs");
  });
});
