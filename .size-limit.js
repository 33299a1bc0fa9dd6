// Size budgets (`npx size-limit` after `npm run build`; checked in `npm test` by
// test/package/size.test.ts on the packed build). Each row is an app that imports only what it
// names: min + gzip, with the peer dependencies left out, as TanStack Query and SWR are quoted.
const ignore = ["react", "react-dom", "@tanstack/react-query", "yjs"];

// An app's bundler splits `import()` into a chunk loaded on demand (the program resolver, its
// lexer, Sucrase): keep it out of the eager rows, as it is out of the app's first load.
const lazyStaysLazy = (config) => ({
  ...config,
  plugins: [
    {
      name: "lazy-stays-lazy",
      setup(build) {
        build.onResolve({ filter: /.*/ }, (args) => (args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined));
      },
    },
  ],
});

const main = "dist/src/index.js";
const row = (name, path, names, limit, eager = true) => ({
  name,
  path,
  import: `{ ${names.join(", ")} }`,
  ignore,
  gzip: true,
  limit,
  ...(eager ? { modifyEsbuildConfig: lazyStaysLazy } : {}),
});
const hook = ["createSharedFetchStore", "SharedFetchProvider", "useSharedFetch"];

export default [
  // Raised by 0.5 KiB when a key's result began to count as its ask (retention.ts): 27.16 kB, and
  // 27.31 kB with the request sent before the claim's write (attempt.ts).
  // Raised by 0.5 KiB with the claim rendering a pane only once it reads it (use-shared-view.ts,
  // as TanStack's tracked result properties): 27.66 kB.
  // Raised by 1.5 KiB with the bridge that puts other replicas' results into TanStack's own hooks'
  // queries (bridge.ts, push.ts), an explicit refetch told from a freshness demand (demand.ts),
  // TanStack's retry options taken by the store (retry.ts) and input errors as SharedFetchErrors:
  // 29.2 kB (27.6 before); the rows below grew by 1.7–2.0 kB with them (35.06, 39.27, 16.22 and
  // 41.05 kB; the connectBrowser row also with the tab's pending view of open asks and the peers'
  // options checked at the call). With "always" honoured on mount and focus and the ask records of
  // retention fixed (and the id lock let go on pagehide): 29.52 / 35.37 / 39.59 / 16.46 / 41.31 kB,
  // the next three budgets raised by 0.5 KiB to keep headroom.
  // Raised by 0.5 KiB with the settle window's reason in inspect() and in the claimed event (what the
  // devtools show of it), the store's stage, and the inspector told of a key waiting for the sync or
  // its lock: 29.64 → 29.84 kB.
  // Raised by 0.5 KiB with the hooks' parity with useQuery (a disabled query in any of TanStack's
  // ways keeps the store out, a stable refetch, hydration that matches the server's HTML) and
  // options checked before the store attaches anything: 29.84 → 30.35 kB.
  // Raised by 0.5 KiB with the client's methods read as TanStack runs them (fetchQuery's retry and
  // staleTime, retries paused offline, invalidations kept), a recorded error not taken as fresh
  // on mount, claims' idempotency ids and refused input shown without secrets: 30.35 → 30.85 kB.
  // Raised by 0.5 KiB with retries shown as paused offline, presence removed without proof of
  // death, a failure judged a task later in a page (navigation), lock-dead replicas revived by a
  // sign of life, explicit refetches that skip a request in flight and optimistic sets kept from
  // older results: 30.85 → 31.4 kB; the next rows 37.32 → 37.89, 41.87 → 42.42 and the worker's
  // 43.22 → 43.57 kB (the connectTabs, connectPeers and worker budgets raised by 0.5 KiB too).
  // Raised by 0.5 KiB with a claimant's silence measured on the monotonic clock, keys' Web Locks
  // named after the doc, the later outcome winning within one revision, programs the devtools
  // invalidated re-resolved and errors that keep their key's label: 31.45 → 31.71 kB; the
  // connectTabs row 37.95 → 38.26 kB (the logout in another tab dropping the localStorage copy
  // too) and the worker's 43.72 → 44.28 kB (its standby's own lock, retiring once no tab is
  // left, retries shown as paused in the tab): those two budgets raised by 0.5 KiB as well.
  // Raised by 1 KiB with keys made as fetch sends the request (no fragment, header values trimmed),
  // every status's reason phrase, userinfo hidden in more refusals, JSON with lone surrogates
  // recorded as peers read it, a pane's view counting its own QueryClient's runs only, a recorded
  // error asked past, claims in flight kept by retention, presence that follows the doc's next
  // connection and takes a stopped store for gone: 31.73 → 32.56 kB (the next rows 38.29 → 39.13,
  // 42.81 → 43.66, the worker's 44.32 → 45.09 kB, their budgets raised by 1 KiB too). With the
  // devtools' wanted revision and invalidated mark, connection headers refused and the fixes of a
  // review of that round: 32.87 kB (39.44, 43.99 and 45.43 kB).
  // Raised by 0.5 KiB with a round of fixes: null requests of their own, a refetch past this
  // replica's own request, a request's unknown fields refused, HEAD kept apart from its
  // Content-Length, programs dated for polls, presence following the devices' connector when given
  // the tabs' awareness, and the inspector told of any change of the doc: 33.07 → 33.28 kB (the
  // connectBrowser and worker rows raised with it, below).
  // Raised by 0.5 KiB with results kept newer across a merge of revisions numbered apart (a device
  // cut off from the sync server, a tab whose IndexedDB loaded after it fetched: keepNewer in
  // freshness.ts) and results dated ahead of this replica's clock kept from undoing the app's own
  // setQueryData or invalidation: 33.71 → 33.86 kB (the next two rows 40.32 → 40.47, 44.93 → 45.08).
  // Raised by 0.5 KiB with unknown options named in one warning with the closest known one
  // (options.ts warnUnknownOptions), a provider and connectors that name what they were given
  // instead of a store or their options, and the review's fixes of that round: 33.86 → 34.28 kB
  // (the next two rows 40.47 → 40.92, 45.08 → 45.57; 1 B over the connectPeers budget).
  // Raised by 0.5 KiB with a notifyOnChangeProps list deciding alone, "always" mounts of a polled
  // query, timers unref'd in Node, the crash simulation's presence left to time out, a request in
  // flight kept over a higher revision of older data, and joiners' waits published in presence so
  // that a claimant keeps a request another replica waits on: 34.28 → 34.95 kB (the next two rows
  // 40.92 → 41.62, 45.57 → 46.30).
  // Raised by 0.5 KiB with a waiter's Web Lock watched (a crashed joiner lets the request go)
  // and the round of fixes after it (claims that carry their writer's time, a takeover's claim
  // marked, the inspector told of a replica's own waits, typo hints bounded, a non-JSON body's
  // media type named): 35.27 → 35.60 kB (the next row 41.96 → 42.32).
  // Raised by 0.5 KiB with that round (freshness across a partition, joins heard and kept) and a
  // request's fields given among a hook's options named in a warning, once per entry point:
  // 35.64 → 35.91 kB (the worker's 48.34 → 48.66).
  // Raised by 0.5 KiB with the review's fixes of that round, a claimant with both connectors
  // reading waits in the tabs' awareness, unknown keys of ensure named, and the heal rules held
  // for errors and read at once by every replica: 35.95 → 36.42 kB (the next two rows 42.64 →
  // 43.12, 47.34 → 47.77).
  // Raised by 0.5 KiB with an infinite query that takes another replica's newer pages at once,
  // which needs the bridge to take a push of its own per query (bridge.ts; the pages' reading is
  // in infinite-push.ts, out of this row), and a retryDelay without retry unread: 36.86 → 36.87 kB.
  // Raised by 0.5 KiB with a paused call of a tab still open named as the restored copies, a
  // disabled query's look in a SharedWorker tab and the `joined` event (an ask that waits on another
  // replica's claim, told once: what the devtools show of one request serving K replicas): 37.28 →
  // 37.43 kB.
  // Raised by 0.5 KiB with unobserved queries read as the cache hands them out, disabled feeds'
  // and programs' looks and a dashboard's work kept linear (queries taken from their fetch, one
  // listener for requests kept past cancelQueries, 4 096 remembered keys): 37.45 → 37.87 kB, 22 B
  // under the old budget, raised for headroom.
  // Raised by 0.5 KiB with the src/core split into modules of at most 250 lines (issue 7: engine.ts a loop over decide;
  // helpers taking the engine compress less well than `this.` in one class): 38.29 → 38.41 kB.
  // Raised by 0.5 KiB with a claim's failed attempts told to every tab joined to it (records.ts,
  // claim-failures.ts) and TanStack's Query devtools' Refetch, Trigger Loading and Trigger Error
  // on a shared query doing what they do on a plain one (demand.ts, push.ts): 38.48 → 38.91 kB.
  // Raised by 0.5 KiB with pending shown truthfully over an error recorded at or above the revision
  // a request in flight will record at (snapshot.ts, key-reader.ts), a dispatch that steps back when
  // no claim stands (decide.ts) and retry functions called as TanStack's retryer calls them
  // (retry.ts): 39.29 → 39.40 kB.
  // Raised by 0.5 KiB with held-back updates decoded once per record (yjs-internals.ts, lane-index.ts:
  // a peer's sweep froze the page), a request running under a newer revision's error shown pending
  // (snapshot.ts, decide.ts, waiters.ts) and a refetch heard late answered as if heard in time
  // (freshness.ts), and two fixes of claims under partitions (liveness.ts, attempt-claim.ts):
  // 39.91 → 40.02 kB, 82 B over the old budget.
  // Raised by 0.5 KiB with a refused Web Lock falling back to the settle window or the lease
  // (attempt-claim.ts, locks.ts), a claimant writing its claim again when Yjs holds a takeover back
  // and TanStack's resetQueries on a static query: 40.52 kB.
  row("store + useSharedFetch", main, hook, "40 KiB"),
  // Raised by 0.5 KiB with the freshness judgment of asks made while the store starts (waiters.ts,
  // 33.37 kB; the connectPeers, connectBrowser and worker rows 37.38, 43.18 and 39.98 kB, raised
  // likewise).
  // Raised by 0.5 KiB with the doc's copy in localStorage for a return visit's first render
  // (local-snapshot.ts): 35.73 → 36.18 kB; the next row 40.07 → 40.51 kB, the worker's 41.83 → 42.24.
  // Raised by 1 KiB with the first row's changes and the connectors' own option checks: 36.18 →
  // 36.82 kB; the next row 40.51 → 41.18 kB, the worker's 42.24 → 42.58 (raised by 0.5 KiB each).
  // Raised by 0.5 KiB with the first row's changes: 36.82 → 37.32 kB.
  // Raised by 0.5 KiB with the first row's round of fixes and the connectors' options checked as an
  // object: 39.67 → 39.91 kB.
  // Raised by 0.5 KiB with the first row's round of freshness fixes: 40.32 → 40.47 kB.
  // Raised by 0.5 KiB with the first row's round of option warnings: 40.47 → 40.92 kB.
  // Raised by 0.5 KiB with the first row's round of joined requests kept: 40.92 → 41.62 kB.
  // Raised by 0.5 KiB with the first row's round of waiters watched by lock: 41.96 → 42.32 kB.
  // Raised by 0.5 KiB with that round and joiners heard across both awarenesses, a wait in flight
  // at a claimant's release kept (one tabs flush before the abort) and waiters watched by lock
  // once the browser ids agree: 42.35 → 42.52 kB.
  // Raised by 0.5 KiB with the first row's second round: 42.64 → 43.12 kB.
  // Raised by 0.5 KiB with the first row's round of TanStack fixes, a heal judged by dates as written,
  // program requests' fields checked and a refetch that replaces the request in flight: 43.12 → 43.53 kB.
  // Raised by 0.5 KiB with a paused call of a tab still open named as the restored copies (the
  // bridge hears each client's mutation cache) and a disabled query's look in a SharedWorker tab:
  // 43.97 → 44.07 kB.
  // Raised by 0.5 KiB with the first row's round: unobserved queries read, disabled feeds' looks
  // and a dashboard's work kept linear (a query taken from its fetch, not found by scanning the
  // cache; one cache listener for every request kept past cancelQueries): 44.16 → 44.60 kB.
  // Raised by 0.5 KiB with retries shown in failureCount as TanStack shows them and the bridge's
  // own lookups kept from counting as reads: 44.99 → 45.06 kB.
  // Raised by 0.5 KiB with a claim's failed attempts told in the claim, so that every tab joined to it shows TanStack's failureCount and failureReason as the claimant does (records.ts, claim-failures.ts): 45.41 → 45.69 kB.
  // Raised by 0.5 KiB with a key loaded by a tab dated by its records' times where only tabs sync
  // the doc (retention.ts) and a paused fetch judged by its observers' options as it began
  // (demand.ts): 45.95 → 46.08 kB.
  // Raised by 0.5 KiB with IndexedDB written by one tab of a browser (the holder of the name's
  // lock, indexeddb-persistence.ts), empty step 2s not sent at boot, the devices' mark taking the
  // copy's room when storage is full and a poll asking past an error once invalidated:
  // 46.28 → 46.57 kB.
  // Raised by 0.5 KiB with connectTabs taking the `locks` it is given, the tab and writer locks let
  // go on freeze, and what a tab not holding the writer lock wrote stored as it leaves: 47.11 kB.
  // Raised by 0.5 KiB with this round's engine changes (an outcome's `done`, asks dated when made,
  // the lanes keeping a record whose replacement Yjs holds back, a running claim written again
  // after a partition dropped it, a long deleted range read by the ids held): 47.27 → 47.65 kB.
  // Raised by 0.5 KiB with a takeover naming the claim it replaced (liveness.ts) and a claimant
  // writing its claim again when Yjs holds a takeover back and passes on its delete alone
  // (decide.ts, lane-index.ts): 48.16 kB.
  // Raised by 0.5 KiB with the lanes reading a takeover Yjs holds back after the store started
  // (lane-index.ts hold), TanStack's refetch of a query that showed another replica's result, and
  // the provider joining the query cache as it renders (a feed's first render): 48.61 → 48.68 kB.
  row("  + connectTabs", main, [...hook, "connectTabs"], "48 KiB"),
  // Raised by 0.5 KiB with the settle window's reason (as the first row): 39.86 → 40.07 kB.
  // Raised by 1 KiB with the first row's changes and connectPeers' url and room checks and its
  // presence drop kept local: 41.18 → 41.87 kB.
  // Raised by 0.5 KiB with the first row's changes since its last raise (43.99 → 44.09 kB: the
  // devtools told of an invalidated error, TanStack's dataUpdatedAt kept as the writer's for
  // another replica's earlier result, resetQueries back to what is recorded now).
  // Raised by 0.5 KiB with that round and the published round trips: 44.16 → 44.49 kB.
  // Raised by 0.5 KiB with the first row's round of freshness fixes: 44.93 → 45.08 kB.
  // Raised by 0.5 KiB with the first row's round of option warnings: 45.08 → 45.57 kB.
  // Raised by 0.5 KiB with the first row's round of joined requests kept: 45.57 → 46.30 kB.
  // Raised by 0.5 KiB with the review's fixes of that round (a joiner's waits cleared in the tabs'
  // presence once it follows the devices', a client-default notifyOnChangeProps list, a polled
  // "always" query's key change): 46.30 → 46.61 kB.
  // Raised by 0.5 KiB with the first row's round of freshness across a partition (newer data
  // recorded again when its writer has gone, an invalidation's time kept through the heal, a
  // claim's time capped at its arrival): 47.00 → 47.11 kB.
  // Raised by 0.5 KiB with the first row's second round: 47.34 → 47.77 kB.
  // Raised by 0.5 KiB with the round that raised the row above: 47.77 → 48.18 kB.
  // Raised by 0.5 KiB with a request's callId (a paused mutation every tab restored and resumes,
  // one call in all) after a round of infinite-feed, reconnect-wait and destroy fixes: 48.63 → 48.67 kB.
  // Raised by 0.5 KiB with a shared query with no observer read as the query cache hands it out
  // (bridge.ts: getQueryData and a remount current, passively) and a disabled feed's and program's
  // look in a SharedWorker tab: 48.90 → 49.17 kB.
  // Raised by 0.5 KiB with the round that raised the rows above, the store's own deliveries told
  // from hydrated data, and IndexedDB written one transaction at a time: 49.17 → 49.67 kB.
  // Raised by 0.5 KiB with the same, as the row above: 50.13 → 50.42 kB.
  // Raised by 0.5 KiB with a key loaded by a tab dated by its records' times where only tabs sync
  // the doc (retention.ts: reloaded tabs swept nothing): 50.64 → 50.72 kB.
  // Raised by 0.5 KiB with the same, as the row above: 50.95 → 51.25 kB.
  // Raised by 0.5 KiB with the same, as the row above: 51.77 kB.
  // Raised by 0.5 KiB with each ask dated when the app made it and an outcome's write time recorded
  // (`done`), so that a tab asking while another's request runs joins it whenever it is heard
  // (remote-waiters.ts, freshness.ts): 52.06 → 52.26 kB.
  // Raised by 0.5 KiB with the store row's fixes (pending shown beside a newer error and over an
  // older result, claims under partitions, held-back updates decoded once and kept by a rebuild of
  // the lanes): 52.63 → 52.74 kB, 6 B over the old budget.
  // Raised by 0.5 KiB with the rows above and passing closes (1001, 1011, 1012) keeping the first
  // claims' wait: 53.2 kB.
  row("  + connectTabs + connectPeers", main, [...hook, "connectTabs", "connectPeers"], "52.5 KiB"),
  // The worker's tab side and the worker itself also carry retries across the port, the fallback
  // from a worker that fails, the standby's live doc and its asks and key locks queued in advance
  // (39.8 and 37.0 KiB measured with them; the claim fences add 0.4 KiB to every row; URLs parsed
  // and keys hashed once per page, addressed tab replies and asks cleaned once add 0.3–0.5 KiB; the
  // fences' echo wait 0.2–0.3 KiB, the hooks' claim-and-data view 0.2 KiB, the tabs' inboxes 0.3 KiB,
  // the flush before a key's lock is let go 0.4 KiB, asks written a second later and answers that
  // name their tab 0.1–0.2 KiB).
  // Since its fallback replica became a chunk loaded on demand (tab-replica.ts; 43.2 kB before, with
  // createSharedFetchStore), a tab the worker serves imports only its side of the port and the hooks.
  row(
    "connectBrowser (a tab of the SharedWorker replica; its fallback on demand)",
    main,
    ["SharedFetchProvider", "useSharedFetch", "connectBrowser"],
    // Raised by 0.5 KiB with the hooks' parity with useQuery and the tab's views keeping a record's
    // data object (remote-views.ts): 16.59 → 16.98 kB.
    // Raised by 0.5 KiB with the first row's hook changes and the peers' checks: 16.98 → 17.53 kB.
    // Raised by 0.5 KiB with the first row's changes to 31.4 kB (17.78 kB) and the tabs watching
    // the standby's lock, so that none turns to a dead standby (worker-link.ts): 18.06 kB.
    // Raised by 0.5 KiB with the first row's changes of the round that raised it to 32.5 KiB and
    // the inspection's wanted revision and invalidated results (what the devtools show): 18.45 kB.
    // Raised by 0.5 KiB with the first row's round of fixes and a destroyed tab store's last
    // inspection (what the devtools show): 18.84 → 19.05 kB.
    // Raised by 0.5 KiB with an unknown option named in one warning with the closest known one
    // (options.ts warnUnknownOptions, 0.25 kB in every row) and the tab's refetch handed over
    // with its skipInFlight, a worker factory checked at the call: 19.34 → 19.74 kB.
    // Raised by 0.5 KiB with the first row's round of hook fixes (a notifyOnChangeProps list
    // deciding alone, "always" mounts of a polled query, an initialData function that finds nothing
    // falling back to the record) and the tab's goodbye for good: 19.74 → 19.99 kB.
    // Raised by 0.5 KiB with the unknown keys of ensure and refetch named in a warning on the tab's
    // remote store too (store.ensure(req, { staleTime }) named maxAgeMs): 20.43 → 20.51 kB.
    // Raised by 0.5 KiB with the hooks' round on this row: an explicit refetch and an "always"
    // mount passing a shown error by, refetch({ cancelRefetch: false }) on fresh data asking anew,
    // and a cancelled feed keeping its page's request: 20.92 → 21.00 kB.
    // Raised by 0.5 KiB with a disabled feed's and program's look, a look answered again once a
    // result is recorded, and an unobserved query's read asking the worker: 21.29 → 21.60 kB.
    // Raised by 0.5 KiB with a tab's views of keys it let go bounded (remote-views.ts) and the
    // store's own deliveries told from hydrated data and the app's query function: 21.60 → 22.04 kB.
    // Raised by 0.5 KiB with a claim's failed attempts shown in a tab the worker serves (remote-views.ts,
    // claim-failures.ts) and each read of the worker's inspection its own array: 22.48 → 22.64 kB.
    // Raised by 0.5 KiB with the bridge following which keys the store's asks joined another
    // replica's claim of (joined-keys.ts), so a feed shows the failures of a claim a useQuery joined
    // first: 22.94 → 23.05 kB, 7 B over 22.5 KiB.
    // Raised by 0.5 KiB with an ask dated when the app made it (remote-waiters.ts), a tab telling its
    // own slow worker from another build's by the locks' clientId and falling back at once on a
    // worker that failed to load or a port message it cannot read (answer-wait.ts), and failureReason
    // kept the very error retry was given: 23.36 → 23.66 kB.
    // Raised by 0.5 KiB with a query that showed another replica's result and unmounted counted as
    // fetched by TanStack's refetchQueries and invalidateQueries("all"/"inactive") (bridge.ts, push.ts),
    // and the tab's refused watches of its standby's and worker's locks (standby.ts): 24.03 → 24.06 kB.
    "24 KiB",
  ),
  // Raised by 0.5 KiB with the settle window bounded by the initial sync, the first claim freed by
  // a refused connection and no window while disconnected (settle-window.ts, sync-clock.ts): 41.37 →
  // 41.6 kB.
  // Raised by 0.5 KiB with connectTabs' copy in localStorage (which a worker, without localStorage,
  // never keeps): 41.83 → 42.24 kB.
  // Raised by 0.5 KiB with retries paused while the worker is offline, programs' per-call lease,
  // claims' idempotency ids and the peers' checks: 42.58 → 43.22 kB.
  // Raised by 0.5 KiB with the first row's round of fixes, programs' maxAgeMs across the port and
  // the peers' published round trips (the settle window sized for the slowest device): 45.45 →
  // 45.69 kB.
  // Raised by 0.5 KiB with freshness that no future-dated result outlives (a first-read time per
  // record, freshness.ts), program resolutions retried inside the claim, asks with maxAgeMs
  // Infinity across the port and a retire countdown restarted by a connecting tab: 46.01 → 46.09 kB.
  // Raised by 0.5 KiB with unknown options warned of (as the connectBrowser row) and a worker that
  // no tab says hello to retiring: 46.31 → 46.75 kB.
  // Raised by 0.5 KiB with the crash simulation that lets the tabs' presence time out as a crashed
  // tab's does, instead of withdrawing it: 47.05 → 47.11 kB.
  // Raised by 0.5 KiB with a request in flight kept over another side's older outcomes (results and
  // errors at a higher revision), joiners' waits in presence and the tabs' goodbye for good:
  // 47.11 → 47.62 kB.
  // Raised by 0.5 KiB with a waiter's Web Lock watched, claims that carry their writer's time,
  // ports that never say hello let go, a tab's panel told when a foreign claim's lease runs out
  // (tab-watch.ts) and a takeover's answers kept for a tab's late hello: 47.73 → 48.31 kB.
  // Raised by 0.5 KiB with the first row's round, a lapsed settle window posted to a tab's panel
  // again, and a request's fields in a hook's options named: 48.34 → 48.66 kB.
  // Raised by 0.5 KiB with a heal's rewrite removing the other side's error and judged by the dates
  // as written, and a program request's unknown field refused by name: 49.10 → 49.19 kB.
  // Raised by 0.5 KiB with the refetch's key lock handed along its chain, a crashed replica's late
  // key lock let go, and a claim waiting for a reconnect's sync letting its key lock go meanwhile:
  // 49.39 → 49.67 kB.
  // Raised by 0.5 KiB with the src/core split into modules of at most 250 lines (issue 7: engine.ts a loop over decide;
  // helpers taking the engine compress less well than `this.` in one class): 50.17 → 50.29 kB.
  // Raised by 0.5 KiB with a claim's failed attempts told in the claim and each connection of a
  // retiring worker destroyed on its own (connection.ts destroyEach): 50.58 → 50.83 kB.
  // Raised by 0.5 KiB with IndexedDB stored by one tab of the browser, the holder of a writer lock
  // (indexeddb-persistence.ts; the worker's connectTabs takes it too): 51.15 → 51.30 kB.
  // Raised by 0.5 KiB with the worker's connectTabs taking the replica's `locks` and its tab and
  // writer locks let go on freeze: 51.71 kB.
  // Raised by 0.5 KiB with the same change as the connectPeers row (an ask's date across the port,
  // an outcome's `done`): 52.04 → 52.24 kB.
  // Raised by 0.5 KiB with the same changes as the connectPeers row: 52.59 → 52.71 kB, 22 B under
  // the old budget.
  // Raised by 0.5 KiB with the store row's changes and the standby's state made explicit
  // (browser-standby.ts): 53.24 kB.
  row("SharedWorker replica (shared-fetch/worker)", "dist/src/worker/index.js", ["serveBrowserReplica"], "52.5 KiB"),
  // The gated entry renders nothing outside development and keeps none of the panel's code.
  row("devtools in a production build (shared-fetch/devtools)", "dist/devtools/index.js", ["SharedFetchDevtools"], "1 KiB"),
  // Raised by 4.5 KiB (16.52 → 21.20 kB) when the mirror of a SharedWorker's doc moved from every
  // worker tab into `shared-fetch/internals`, which the panel reads records through: the raw tables'
  // code (doc-records, lanes). In a per-tab app that code is the store's own, so it is shared there.
  // Raised by 0.5 KiB with the settle window shown and looked at again once it may have lapsed, and
  // this tab's own attempt in the Keys tab: 22.2 kB.
  // Raised by 0.5 KiB with errors that keep their key's label and a takeover told from a result
  // whose taker's claim the panel never saw: 22.31 → 22.5 kB (24 B left under 22 KiB).
  // Raised by 0.5 KiB with keyboard focus following the floating panel (into it when the user opens
  // it, back to the toggle when it closes, Escape closes it): 23.04 → 23.1 kB.
  row(
    "devtools panel shipped on purpose (shared-fetch/devtools/production)",
    "dist/devtools/production.js",
    ["SharedFetchDevtools"],
    // Raised by 0.5 KiB with a claim let go because nobody waits on it told as such in the Timeline
    // (the store's own aborted event), claims' time and takeover mark validated, and a devtools edit
    // made as the worker died sent to the next: 23.50 → 23.67 kB.
    // Raised by 0.5 KiB with the panel following a new store (its replica filters dropped, the
    // Timeline told of it), a replica whose presence timed out told, the claim's age and a
    // malformed record evicted: 23.67 → 24.36 kB.
    // Raised by 1 KiB with each disabled action saying why and a key whose only record is
    // malformed given a row and an evict: 24.41 → 24.66 kB; then a claim standing at the panel's
    // start aged, a connection drop told in one entry, the aborts note bounded and a store swapped
    // on the same awareness told as such: → 25.11 kB.
    // Raised by 0.5 KiB with the src/core split into modules of at most 250 lines (issue 7: engine.ts a loop over decide;
    // helpers taking the engine compress less well than `this.` in one class) (its lanes' deletes): 25.59 → 25.62 kB.
    // Raised by 0.5 KiB with the panel's words read as pictures (1 key, natural sort, the request
    // column's floor, the status named once, a disowned claim's holder) and a SharedWorker tab's
    // panel naming the worker as the holder, its replica and its actions: 25.62 → 26.03 kB (80 B left).
    // Raised by 0.5 KiB with the lanes keeping a record a peer deleted while its replacement is held
    // back by Yjs (lane-index.ts, yjs-internals.ts): 26.53 → 26.63 kB.
    // Raised by 0.5 KiB with the lanes reading a claim Yjs already holds back when a store starts
    // (lane-index.ts, lane-entry.ts) and the Replicas tab's words (1 key, heartbeats): 27.3 kB.
    "27 KiB",
  ),
  row("program resolver (lazy chunks, on first program)", "dist/src/core/program/index.js", ["resolveProgram"], "105 KiB", false),
];
