/** The part of jsdom (no types shipped with it) that bench/dashboard.tsx uses. */
declare module "jsdom" {
  export class JSDOM {
    constructor(html: string, options?: { pretendToBeVisual?: boolean; url?: string });
    readonly window: Window & typeof globalThis;
  }
}
