/**
 * The Keys tab's "request" sort reads numbers in URLs as numbers: …/988, …/989, …/990, …/99 was
 * sorted as characters, so …/99 sat between …/989 and …/990 in a list of items by id.
 */
import { describe, expect, it } from "vitest";
import { queryKeys, type DevtoolsKeyRow } from "../../devtools/index.ts";

const row = (id: string): DevtoolsKeyRow => ({
  key: id.padStart(64, "0"),
  label: `GET https://api.example.test/items/${id}`,
  kind: "fetch",
  status: "success",
  recorded: 1,
  local: false,
});

describe("devtools keys sorted by request", () => {
  it("in natural order: …/9 before …/10, …/99 before …/988", () => {
    const rows = ["990", "99", "989", "10", "9", "988", "1000"].map(row);
    const sorted = queryKeys(rows, { status: "all", search: "", sort: "request" });
    expect(sorted.map((r) => r.label.slice(r.label.lastIndexOf("/") + 1))).toEqual(["9", "10", "99", "988", "989", "990", "1000"]);
  });
});
