// What every browser test file sets up the same way: the built studio on a fresh data directory,
// Debian's Chromium, and (unless the file tests the first-run setup itself) the owner's account.
// Started before the file's first test, stopped after its last.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchBrowser } from "./browser.js";
import { type E2EStudio, ownerToken, startE2EStudio } from "./studio.js";

export interface StudioSuite {
  readonly studio: E2EStudio;
  readonly browser: Browser;
  /** The owner's token (the suite was made with `owner: true`, the default). */
  readonly token: string;
}

export function studioSuite(options: { owner?: boolean; env?: Record<string, string> } = {}): StudioSuite {
  let studio: E2EStudio | undefined;
  let browser: Browser | undefined;
  let token: string | undefined;
  beforeAll(async () => {
    studio = await startE2EStudio(options.env);
    browser = await launchBrowser();
    if (options.owner !== false) token = await ownerToken(studio);
  });
  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the suite's ${what} is not there: use it inside a test or hook`);
    return value;
  };
  return {
    get studio() {
      return ready(studio, "studio");
    },
    get browser() {
      return ready(browser, "browser");
    },
    get token() {
      return ready(token, "owner token (made with owner: false?)");
    },
  };
}
