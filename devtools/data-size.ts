const utf8 = new TextEncoder();

/** UTF-8 size of data as JSON. Never throws: a value no replica should have accepted (a bigint) must not stop the panel. */
function jsonBytes(data: unknown): number {
  try {
    return utf8.encode(JSON.stringify(data) ?? "").length;
  } catch {
    return 0;
  }
}

/** A sizer of results' data, cached per data object: Yjs keeps a record's object, so each is encoded once. */
export function dataSizer(): (data: unknown) => number {
  const sizes = new WeakMap<object, number>();
  return (data) => {
    if (typeof data !== "object" || data === null) return jsonBytes(data);
    let size = sizes.get(data);
    if (size === undefined) sizes.set(data, (size = jsonBytes(data)));
    return size;
  };
}
