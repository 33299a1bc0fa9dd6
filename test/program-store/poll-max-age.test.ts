/**
 * A program record carries its writer's `at` (when the resolution was asked for), so a poll can
 * judge its age: ensureProgram(req, { maxAgeMs }) re-resolves a program older than that (one
 * resolution for every replica polling), and takes a younger one as it is. Without maxAgeMs any
 * recorded resolution still does (a mount never re-resolves a whole program by itself).
 */
import { expect, it } from "vitest";
import { cluster, tick, until, useFakeClock } from "../harness/replicas.ts";

const MAIN = "https://modules.example.test/app/main.ts";

it("ensureProgram with maxAgeMs (a poll) re-resolves a program older than that, once for all replicas; a younger one is taken as is", async () => {
  useFakeClock();
  const c = cluster(2, { settleMs: 0 });
  let version = 1;
  c.host.auto = (call) => {
    call.respondRaw(200, `export const v = ${version};`, { "content-type": "text/javascript" });
    return undefined;
  };
  const [a, b] = c.stores;
  const req = { url: MAIN };
  const first = await until(a!.ensureProgram(req));
  expect(first.data!.files[0]!.contents).toBe("export const v = 1;");
  // The clock runs while the resolver loads, so windows are set from the recorded age.
  const age = () => Date.now() - a!.programResultInfo!(req)!.at!;
  expect(age()).toBeGreaterThanOrEqual(0);

  version = 2; // a deploy
  // Within the window: what is recorded answers, no request.
  expect((await until(b!.ensureProgram(req, { maxAgeMs: age() + 60_000 }))).data!.files[0]!.contents).toBe("export const v = 1;");
  expect(c.host.calls).toHaveLength(1);

  await tick(120_000);
  // Older than the window: both replicas' polls join one new resolution.
  const [sa, sb] = await until(Promise.all([a!.ensureProgram(req, { maxAgeMs: 60_000 }), b!.ensureProgram(req, { maxAgeMs: 60_000 })]));
  expect(sa.data!.files[0]!.contents).toBe("export const v = 2;");
  expect(sb.data!.files[0]!.contents).toBe("export const v = 2;");
  expect(c.host.calls).toHaveLength(2);

  // No maxAgeMs: any recorded resolution, however old.
  await tick(600_000);
  version = 3;
  expect((await until(a!.ensureProgram(req))).data!.files[0]!.contents).toBe("export const v = 2;");
  expect(c.host.calls).toHaveLength(2);
});
