/**
 * README, Design notes: "Storage that does not grow with history" — a refetched key's old result
 * is deleted and Yjs keeps no content of it. Scaling out stores each room in one Postgres row,
 * merged. Pinned here: the row stays the size of the doc across refetches, instead of keeping every
 * result ever recorded (a merge of Yjs updates keeps deleted content, a Y.Doc collects it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import * as Y from "yjs";
import { createSharedFetchStore } from "../../src/index.ts";
import { createDocumentsTable, postgresDocuments, readStoredDocument } from "../../server/cluster/pg-documents.ts";
import { startPostgres, type PostgresProcess } from "../../server/cluster/postgres.ts";
import { uniqueRoom } from "./harness.ts";

let postgres: PostgresProcess | undefined;
beforeAll(async () => {
  postgres = await startPostgres();
  await createDocumentsTable(postgres.connectionString);
});
afterAll(() => postgres?.destroy());

async function rowBytes(url: string, room: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>("SELECT octet_length(data) AS n FROM shared_fetch_documents WHERE name = $1", [
      room,
    ]);
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe("pg-documents: a room's row does not grow with the results it no longer holds", () => {
  it("a 20 KB result refetched 30 times, stored after each: the row stays near the doc's size; the last result reads back", async () => {
    const url = postgres!.connectionString;
    const documents = await postgresDocuments(url);
    const room = uniqueRoom("growth");
    const doc = new Y.Doc();
    let n = 0;
    const fetch = async (): Promise<Response> => new Response(JSON.stringify({ n: ++n, body: `${n}`.padEnd(20_000, "x") }));
    const store = createSharedFetchStore({ doc, fetch: fetch as typeof globalThis.fetch });
    const req = { url: "https://api.example.com/items" };
    try {
      await store.ensure(req);
      for (let i = 0; i < 30; i++) {
        await store.refetch(req);
        await documents.extension.configuration.store({
          documentName: room,
          document: doc,
          state: Buffer.from(Y.encodeStateAsUpdate(doc)),
        } as Parameters<typeof documents.extension.configuration.store>[0]);
      }
      const docBytes = Y.encodeStateAsUpdate(doc).length;
      expect(docBytes).toBeLessThan(30_000); // one result held, the others collected
      expect(await rowBytes(url, room)).toBeLessThan(2 * docBytes);
      const stored = await readStoredDocument(url, room);
      const reader = createSharedFetchStore({ doc: stored! });
      expect(reader.snapshot(req)).toMatchObject({ status: "success", data: { n: 31 } });
      reader.destroy();
    } finally {
      store.destroy();
      await documents.close();
    }
  });
});
