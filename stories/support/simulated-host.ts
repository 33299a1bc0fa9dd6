/**
 * The scenarios' answering policy on top of the one simulated host (sim/host.ts): every call is
 * answered after `delayMs` according to `behavior`, which a scenario may switch at run time
 * (`host.behavior = "ok"` once the hung claimant crashed) or choose per call (`behaviorFor`).
 */
import { Host, type HostCall } from "../../sim/host.ts";

export type { HostCall, HostState } from "../../sim/host.ts";

export type HostBehavior =
  /** Answer `respond(call)` as JSON with status 200 after `delayMs`. */
  | "ok"
  /** Answer HTTP 500 after `delayMs`. */
  | "fail"
  /** Answer HTTP 429 (rate-limited, as a duplicate plausibly is) after `delayMs`. */
  | "rate-limit"
  /** Answer HTTP 503 (down for a while: worth a retry) after `delayMs`. */
  | "unavailable"
  /** Never answer (until the request is aborted). */
  | "hang";

export type PerCall = HostBehavior | { behavior: HostBehavior; delayMs: number };

export type SimulatedHost = Host & {
  delayMs: number;
  behavior: HostBehavior;
  /** Overrides `behavior` (and `delayMs`) per call, e.g. "the first call hangs". */
  behaviorFor: ((call: HostCall) => PerCall | undefined) | undefined;
};

export type SimulatedHostOptions = {
  /** Time to answer, in ms (default 600). */
  delayMs?: number;
  behavior?: HostBehavior;
  behaviorFor?: (call: HostCall) => PerCall | undefined;
  /** The JSON body of an "ok" answer (default: a greeting naming the call number and URL). */
  respond?: (call: HostCall) => unknown;
};

export const defaultRespond = (call: HostCall): unknown => ({ message: "hello from the host", request: call.n, url: call.url });

export function createSimulatedHost(options: SimulatedHostOptions = {}): SimulatedHost {
  const respond = options.respond ?? defaultRespond;
  const host = Object.assign(new Host(), {
    delayMs: options.delayMs ?? 600,
    behavior: options.behavior ?? "ok",
    behaviorFor: options.behaviorFor,
  }) as SimulatedHost;
  host.auto = (call) => {
    const chosen = host.behaviorFor?.(call) ?? host.behavior;
    const behavior = typeof chosen === "string" ? chosen : chosen.behavior;
    const delayMs = typeof chosen === "string" ? host.delayMs : chosen.delayMs;
    if (behavior === "hang") return undefined;
    if (behavior === "fail") return { status: 500, body: { error: "simulated failure" }, delayMs };
    if (behavior === "rate-limit") return { status: 429, body: { error: "too many requests" }, delayMs };
    if (behavior === "unavailable") return { status: 503, body: { error: "try again later" }, delayMs };
    return { status: 200, body: respond(call), delayMs };
  };
  return host;
}
