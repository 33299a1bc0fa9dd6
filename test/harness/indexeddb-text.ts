/**
 * Everything IndexedDB holds under database `name`, as text (binary values as latin1, others as
 * JSON): what a secrets test scans. Yjs encodes strings as UTF-8, so an ASCII secret shows as is.
 */
export async function indexedDbText(name: string): Promise<string> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  try {
    const stores = [...db.objectStoreNames];
    if (stores.length === 0) return "";
    const tx = db.transaction(stores, "readonly");
    const texts = await Promise.all(
      stores.map(
        (store) =>
          new Promise<string>((resolve, reject) => {
            const all = tx.objectStore(store).getAll();
            all.onsuccess = () =>
              resolve(
                all.result
                  .map((v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : JSON.stringify(v)))
                  .join("\n"),
              );
            all.onerror = () => reject(all.error);
          }),
      ),
    );
    return texts.join("\n");
  } finally {
    db.close();
  }
}
