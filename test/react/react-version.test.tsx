// @vitest-environment jsdom
import { version } from "react";
import { version as domVersion } from "react-dom";
import { describe, expect, it } from "vitest";

describe("the React these tests run on", () => {
  it("project unit: React 19; project react18: React 18.3 (react and react-dom agree)", () => {
    const project = (globalThis as { __vitest_worker__?: { ctx?: { projectName?: string } } }).__vitest_worker__?.ctx?.projectName;
    expect(version).toBe(domVersion);
    expect(version.split(".")[0]).toBe(project === "react18" ? "18" : "19");
  });
});
