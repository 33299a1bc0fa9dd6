import { styles } from "./styles.ts";

export function Badge({ tone, children }: { tone: "stale" | "ok" | "info"; children: string }) {
  return <span style={{ ...styles.badge, ...styles[tone] }}>{children}</span>;
}
