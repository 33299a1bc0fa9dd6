import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { createSharedFetchStore } from "../../src/index.ts";

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("the Replicas tab's Identity column", () => {
  it.each(["alice", "ünïcødé 🔑 user", ""])(
    "is the first 12 hex digits of SHA-256 of the UTF-8 identity (%j), on the inspected replica only",
    (identity) => {
      const a = createSharedFetchStore({ doc: new Y.Doc(), fetch: () => Promise.reject(new Error("no network")), identity });
      const model = createDevtoolsModel(a);
      const [me] = model.getSnapshot().replicas;
      expect(me).toMatchObject({ me: true, identityHash: sha256Hex(identity).slice(0, 12) });
      model.destroy();
      a.destroy();
    },
  );
});
