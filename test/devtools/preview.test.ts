import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { preview } from "../../devtools/format.ts";

describe("devtools preview of a peer's raw content", () => {
  it("reads no more than it shows: 20 MB, 100 000 levels or a Y type cost what a short value does", () => {
    expect(preview({ a: [1, "x", null, true] })).toBe('{"a":[1,"x",null,true]}');
    const huge = preview({ pad: "x".repeat(20 * 1024 * 1024), more: Array.from({ length: 1_000_000 }, () => 0) });
    expect(huge).toHaveLength(160);
    expect(huge.endsWith("…")).toBe(true);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(preview(deep)).toBe("[[[[[[[[…]]]]]]]]");
    expect(preview(new Y.Array())).toBe("<YArray>");
  });
});
