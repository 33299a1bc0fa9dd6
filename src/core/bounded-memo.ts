/**
 * A page asks about the same few URLs and keys on every render, snapshot and store change, and a
 * booting tab pays milliseconds for each parse or hash. Remembers `compute(key)` per key, bounded:
 * a page that walks many keys starts over rather than grow. Nothing is kept when `compute` throws.
 */
export function boundedMemo(max = 512): (key: string, compute: () => string) => string {
  const known = new Map<string, string>();
  return (key, compute) => {
    let value = known.get(key);
    if (value === undefined) {
      value = compute();
      if (known.size >= max) known.clear();
      known.set(key, value);
    }
    return value;
  };
}
