/** What a startup page leaves for the bench: its timings (ms), and the imports it kept alive so no bundler drops them. */
export type StartupTimings = { modules: number; connectTabs?: number; createStore?: number };

export function report(timings: StartupTimings, keep: unknown[]): void {
  const w = window as unknown as { __startup?: StartupTimings; __keep?: unknown[] };
  w.__keep = keep;
  w.__startup = timings;
}
