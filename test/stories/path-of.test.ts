/**
 * The stories' short name of a request ("POST /api/items") in their timeline. Keys that share a
 * name (each add of a list POSTs to one URL) carry their key's short hash as the devtools write
 * it, "POST https://host.example/api/items · 3fa9c2d1": the timeline read "A claimed POST 3fa9c2d1
 * (rev 1)", the path gone (TanStack Query: Optimistic update in two tabs).
 */
import { describe, expect, it } from "vitest";
import { pathOf } from "../../stories/support/narration.ts";

describe("the stories' name of a request", () => {
  it("keeps the path of a key named with its short hash, and the hash after it", () => {
    expect(pathOf("POST https://host.example/api/items · 3fa9c2d1")).toBe("POST /api/items · 3fa9c2d1");
    expect(pathOf("GET https://host.example/api/items · 3fa9c2d1")).toBe("/api/items · 3fa9c2d1");
  });

  it("names a request with no twin by its method (GET unsaid) and path", () => {
    expect(pathOf("POST https://host.example/api/items")).toBe("POST /api/items");
    expect(pathOf("GET https://host.example/api/report")).toBe("/api/report");
    expect(pathOf(undefined)).toBe("the request");
  });
});
