/**
 * A page asks about the same few URLs and keys on every render, snapshot and store change, and a
 * booting tab pays milliseconds for each parse or hash. Remembers `compute(key)` per key, bounded:
 * a page that walks many keys starts over rather than grow. Nothing is kept when `compute` throws.
 * The bound holds a dashboard's keys: one of 2 000 queries walks them all on each invalidation,
 * and past the bound (it was 512) every ask of every query missed, and parsed or hashed again.
 */
export function boundedMemo(max = 4096): (key: string, compute: () => string) => string {
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
