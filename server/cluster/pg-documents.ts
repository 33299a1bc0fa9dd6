import { Database } from "@hocuspocus/extension-database";
import pg from "pg";
import * as Y from "yjs";

const TABLE = "shared_fetch_documents";

/**
 * Documents in Postgres through `@hocuspocus/extension-database`: one row per room holding the
 * whole doc as one Yjs update. Only the instance a change came in through stores it, under a Redis
 * lock; should two stores still meet (a lock that expired), the row is *merged* with what we
 * store, never overwritten, so neither instance can erase what the other stored.
 */
export async function postgresDocuments(connectionString: string): Promise<{ extension: Database; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString, max: 4 });
  const extension = new Database({
    async fetch({ documentName }) {
      const { rows } = await pool.query<{ data: Buffer }>(`SELECT data FROM ${TABLE} WHERE name = $1`, [documentName]);
      return rows[0] ? new Uint8Array(rows[0].data) : null;
    },
    async store({ documentName, state }) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const { rows } = await client.query<{ data: Buffer }>(`SELECT data FROM ${TABLE} WHERE name = $1 FOR UPDATE`, [documentName]);
        const merged = rows[0] ? Y.mergeUpdates([new Uint8Array(rows[0].data), state]) : state;
        await client.query(
          `INSERT INTO ${TABLE} (name, data) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET data = EXCLUDED.data, updated_at = now()`,
          [documentName, Buffer.from(merged)],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
  });
  return { extension, close: () => pool.end() };
}

/** Creates the table. Run once before the instances start: two concurrent CREATE TABLE IF NOT
 * EXISTS can still collide in Postgres' catalog. */
export async function createDocumentsTable(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (name text PRIMARY KEY, data bytea NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
    );
  } finally {
    await client.end();
  }
}

/** Reads a stored room back into a fresh Y.Doc (tests check what really reached the disk). */
export async function readStoredDocument(connectionString: string, room: string): Promise<Y.Doc | undefined> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const exists = await client.query(`SELECT to_regclass($1) AS t`, [TABLE]);
    if (exists.rows[0]?.t === null) return undefined;
    const { rows } = await client.query<{ data: Buffer }>(`SELECT data FROM ${TABLE} WHERE name = $1`, [room]);
    if (!rows[0]) return undefined;
    const doc = new Y.Doc();
    Y.applyUpdate(doc, new Uint8Array(rows[0].data));
    return doc;
  } finally {
    await client.end();
  }
}
