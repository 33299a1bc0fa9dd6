import { useSharedFetch, type UseSharedFetchOptions } from "../../src/index.ts";

/**
 * A shared query of `url` shown as `status/data.v/error.status` under test id `a`, each render's
 * text pushed to `log`; button `r` refetches it. An error shown over kept data reads `error/1/503`.
 */
export function ErrorPane({ url, options, log = [] }: { url: string; options: UseSharedFetchOptions<{ v: number }>; log?: string[] }) {
  const q = useSharedFetch<{ v: number }>(url, options);
  const s = `${q.status}/${q.data?.v ?? "-"}/${q.error?.status ?? ""}`;
  log.push(s);
  return (
    <>
      <span data-testid="a">{s}</span>
      <button data-testid="r" onClick={() => void q.refetch()} />
    </>
  );
}
