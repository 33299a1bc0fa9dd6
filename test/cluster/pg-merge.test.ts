/**
 * README, Scaling out: each room is stored in Postgres, "one row per room, merged, never
 * overwritten". Pinned at the store itself, on a room's first store: two instances storing a room
 * that has no row yet both survive (the row the second one finds is merged into, not replaced).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createDocumentsTable, postgresDocuments, readStoredDocument } from "../../server/cluster/pg-documents.ts";
import { startPostgres, type PostgresProcess } from "../../server/cluster/postgres.ts";
import { uniqueRoom } from "./harness.ts";

let postgres: PostgresProcess | undefined;
beforeAll(async () => {
  postgres = await startPostgres();
  await createDocumentsTable(postgres.connectionString);
});
afterAll(() => postgres?.destroy());

/** A doc's whole state with one key set, as an instance's store encodes it. */
const stateWith = (key: string): Buffer => {
  const doc = new Y.Doc();
  doc.getMap("m").set(key, 1);
  return Buffer.from(Y.encodeStateAsUpdate(doc));
};

describe("pg-documents: a room's first store is merged, never overwritten", () => {
  it("two instances store a room that has no row yet, concurrently: both changes survive (20 rooms)", async () => {
    const url = postgres!.connectionString;
    const a = await postgresDocuments(url);
    const b = await postgresDocuments(url);
    try {
      const store = (instance: typeof a, documentName: string, key: string): Promise<void> =>
        instance.extension.configuration.store({ documentName, state: stateWith(key) } as Parameters<
          typeof a.extension.configuration.store
        >[0]);
      // Both pools connected first, so the two stores race on their queries, not on connecting.
      await Promise.all([store(a, uniqueRoom("warm"), "x"), store(b, uniqueRoom("warm"), "x")]);
      const rooms = Array.from({ length: 20 }, () => uniqueRoom("fresh"));
      for (const room of rooms) await Promise.all([store(a, room, "fromA"), store(b, room, "fromB")]);
      const stored = await Promise.all(rooms.map(async (room) => (await readStoredDocument(url, room))?.getMap("m").toJSON()));
      expect(stored).toEqual(rooms.map(() => ({ fromA: 1, fromB: 1 })));
    } finally {
      await a.close();
      await b.close();
    }
  });
});
