/** Startup, one tab alone: what every contender page loads (React, TanStack Query), and nothing run. */
// First: the clock starts before any library evaluates.
import { evaluationStart } from "./startup-clock.ts";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { createRoot } from "react-dom/client";
import { report } from "./startup-report.ts";

report({ modules: performance.now() - evaluationStart }, [QueryClient, QueryClientProvider, useQuery, createRoot]);
