/**
 * What the worker accepts from a tab (see protocol.ts): a malformed message is dropped and
 * counted, and a hello it drops is refused with its reason, never thrown.
 */
import { describe } from "../core/errors.ts";
import { isPlainObject } from "../core/request.ts";
import { peersProblem } from "../sync/peers-options.ts";
import { PROTOCOL, type BrowserConfig, type TabMessage } from "./protocol.ts";
import { isWireRetry } from "./retry-wire.ts";
import { int, kind, optNum, str } from "./wire-fields.ts";

/** What makes a tab's config one this worker cannot serve, or undefined (see helloProblem). */
function configProblem(v: unknown): string | undefined {
  if (!isPlainObject(v)) return `config must be an object, got ${describe(v)}`;
  if (!str(v.name)) return `config.name must be a non-empty string of at most 10000 characters, got ${describe(v.name)}`;
  if (typeof v.identity !== "string") return `config.identity must be a string, got ${describe(v.identity)}`;
  if (v.browserId !== undefined && !str(v.browserId)) return `config.browserId must be a non-empty string, got ${describe(v.browserId)}`;
  if (v.persisted !== undefined && typeof v.persisted !== "boolean")
    return `config.persisted must be a boolean when given, got ${describe(v.persisted)}`;
  for (const lease of ["leaseMs", "programLeaseMs"])
    if (!optNum(v[lease])) return `config.${lease} must be a finite number when given, got ${describe(v[lease])}`;
  if (v.peers === undefined) return undefined;
  // connectPeers' rules (the worker connects them), and this protocol's bound on a string.
  const peers = peersProblem(v.peers, "config.peers");
  if (peers !== undefined) return peers;
  const { url, room } = v.peers as { url: string; room: string };
  return str(url) && str(room) ? undefined : "config.peers.url and .room must be at most 10000 characters";
}

const isConfig = (v: unknown): v is BrowserConfig => configProblem(v) === undefined;

/**
 * Why this worker refuses a hello it dropped as malformed, or undefined for any other message.
 * A tab told `refused` falls back at once, naming the reason, instead of waiting out its timeout.
 */
export function helloProblem(data: unknown): string | undefined {
  if (!isPlainObject(data) || data.t !== "hello") return undefined;
  if (int(data.v) && data.v !== PROTOCOL) return `protocol ${data.v} asked, this worker speaks ${PROTOCOL}`;
  return configProblem(data.config) ?? "a malformed hello (its v, tab, lock or resend)";
}

/** A tab's message as the worker accepts it, or undefined. */
export function parseTabMessage(data: unknown): TabMessage | undefined {
  if (!isPlainObject(data)) return undefined;
  switch (data.t) {
    case "hello":
      return int(data.v) &&
        str(data.tab) &&
        str(data.lock) &&
        (data.page === undefined || str(data.page)) &&
        isConfig(data.config) &&
        (data.resend === undefined || (Array.isArray(data.resend) && data.resend.length <= 10_000 && data.resend.every(int)))
        ? (data as TabMessage)
        : undefined;
    case "standby":
      return int(data.v) &&
        str(data.watch) &&
        (data.lock === undefined || str(data.lock)) &&
        (data.replica === undefined || str(data.replica)) &&
        isConfig(data.config)
        ? (data as TabMessage)
        : undefined;
    case "ensure":
      return int(data.id) &&
        kind(data.kind) &&
        (data.mode === "ensure" || data.mode === "refetch") &&
        optNum(data.leaseMs) &&
        // Infinity: any recorded outcome will do (TanStack's staleTime: Infinity or "static").
        (optNum(data.maxAgeMs) || data.maxAgeMs === Infinity) &&
        optNum(data.at) &&
        (data.skipInFlight === undefined || data.skipInFlight === true) &&
        (data.retry === undefined || isWireRetry(data.retry))
        ? (data as TabMessage)
        : undefined;
    case "retry":
      return int(data.id) &&
        typeof data.retry === "boolean" &&
        typeof data.delayMs === "number" &&
        data.delayMs >= 0 &&
        Number.isFinite(data.delayMs)
        ? (data as TabMessage)
        : undefined;
    case "abort":
      return int(data.id) ? (data as TabMessage) : undefined;
    case "sub":
    case "look":
      return kind(data.kind) && str(data.key) ? (data as TabMessage) : undefined;
    case "unsub":
    case "unlook":
      return str(data.key) ? (data as TabMessage) : undefined;
    case "watch":
      return typeof data.inspect === "boolean" &&
        typeof data.events === "boolean" &&
        (data.doc === undefined || typeof data.doc === "boolean")
        ? (data as TabMessage)
        : undefined;
    case "doc":
      return data.update instanceof Uint8Array ? (data as TabMessage) : undefined;
    case "dev":
      return data.action === "crash" ||
        ((data.action === "pauseNetwork" || data.action === "stopHeartbeats") && typeof data.on === "boolean")
        ? (data as TabMessage)
        : undefined;
    case "bye":
      return data as TabMessage;
    default:
      return undefined;
  }
}
