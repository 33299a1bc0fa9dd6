/**
 * Setup file of the `unit` project and the other React projects (vitest.config.ts, reactProject):
 * testing-library's `waitFor` and `findBy*` give up after 5 s instead of their 1 s default. Beside
 * two chromium projects on 2 cores, real HTTP, real sockets and another tab's update through a real
 * doc can take over a second to land; what a test waits for is untimed (timing claims live in npm
 * run bench), so a longer bound only changes how long a test that would fail anyway takes to say
 * so.
 */
import { configure } from "@testing-library/react";

configure({ asyncUtilTimeout: 5_000 });
