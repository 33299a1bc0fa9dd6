/**
 * Invariant 13, the other side: `shownUrl` hides userinfo, also a password cut short by an
 * unencoded "/", "?" or "#", but an "@" in the path (a versioned module on a CDN) or in the query
 * (an e-mail address) of a plain host is no userinfo, and the host and path stay shown.
 */
import { expect, it } from "vitest";
import { shownUrl } from "../src/core/errors.ts";

it("an @ in the path is no userinfo: the host stays shown", () => {
  expect(shownUrl("https://esm.sh/react@18.3.1/jsx-runtime")).toContain("esm.sh");
});
it("an @ in the query is no userinfo: the host and path stay shown", () => {
  expect(shownUrl("https://api.example.com/users?email=a@b.test")).toContain("api.example.com/users");
});
it("still hides a password with an unencoded / or ?", () => {
  expect(shownUrl("https://user:pa/ss@host.test/x")).not.toContain("pa/ss");
  expect(shownUrl("https://user:pa?ss@host.test/x")).not.toContain("user:pa");
});
