import { BrowserNotFoundError, findChromium } from "./chromium.ts";

/**
 * globalSetup of every project that opens a browser: without one, the run stops here with one
 * message saying how to get one, instead of a launch failure per test file.
 */
export default function requireBrowser(): void {
  try {
    findChromium();
  } catch (error) {
    if (!(error instanceof BrowserNotFoundError)) throw error;
    // The message is the whole story; a stack into this file would only bury it.
    error.stack = `${error.name}: ${error.message}`;
    throw error;
  }
}
