// @vitest-environment jsdom
import { version } from "react";
import { version as domVersion } from "react-dom";
import { describe, expect, it } from "vitest";

// Each React project's name says the React it runs on (vitest.config.ts, reactProject).
const expected: Record<string, RegExp> = {
  unit: /^19\./,
  react18: /^18\./,
  "react18.2": /^18\.2\.0$/,
  "react19.0": /^19\.0\.0$/,
};

describe("the React these tests run on", () => {
  it("unit: React 19; react18: React 18; react18.2 and react19.0: the peer range's floors, exactly (react and react-dom agree)", () => {
    const project = (globalThis as { __vitest_worker__?: { ctx?: { projectName?: string } } }).__vitest_worker__?.ctx?.projectName;
    expect(expected, `a React project named ${project}`).toHaveProperty([project!]);
    expect(version).toBe(domVersion);
    expect(version).toMatch(expected[project!]!);
  });
});
