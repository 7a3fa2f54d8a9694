// The built studio as a real process for browser tests, with helpers that speak to its API the
// way any client does (setup, login, workflows) and that drive the UI's common steps.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { expect } from "vitest";
import {
  assertBuilt,
  reapStudioProcesses,
  type StudioProcess,
  startStudioProcess,
} from "../backend/test/studio-process.js";
import { SCREENSHOT_DIR } from "./browser.js";

export const JWT_SECRET = "e2e-secret-that-is-long-enough-for-hs256-signing";
export const OWNER = { email: "owner@example.com", password: "owner-password", name: "Owner Ngọc" };

export interface E2EStudio {
  url: string;
  process: StudioProcess;
  stop(): Promise<void>;
}

/** Starts `superstep start` on a fresh data directory, with a known JWT secret. */
export async function startE2EStudio(env: Record<string, string> = {}): Promise<E2EStudio> {
  assertBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), "superstep-e2e-"));
  const process = await startStudioProcess({
    STUDIO_DATA_DIR: dataDir,
    JWT_SECRET,
    // Many sign-ins in one file; the limit itself is tested in the backend.
    STUDIO_AUTH_RATE_LIMIT: "10000",
    ...env,
  });
  return {
    url: process.url,
    process,
    stop: async () => {
      await process.stop();
      await reapStudioProcesses();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function api<T>(
  studio: E2EStudio,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: { data?: T; error?: { code: string } } }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${studio.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json()) as { data?: T; error?: { code: string } } };
}

/** Creates a workflow through the API as the token's user; the stored workflow. */
export async function createWorkflow<T = { id: string }>(
  studio: E2EStudio,
  token: string,
  document: unknown,
): Promise<T> {
  const created = await api<T>(studio, "POST", "/api/workflows", { token, body: document });
  expect(created.status).toBe(201);
  return created.body.data as T;
}

/** The owner's token: creates the owner account on first call, signs in afterwards. */
export async function ownerToken(studio: E2EStudio): Promise<string> {
  const setup = await api<{ token: string }>(studio, "POST", "/api/auth/setup", { body: OWNER });
  if (setup.status === 201) return setup.body.data?.token as string;
  const login = await api<{ token: string }>(studio, "POST", "/api/auth/login", {
    body: { email: OWNER.email, password: OWNER.password },
  });
  expect(login.status).toBe(200);
  return login.body.data?.token as string;
}

/** A session token for `userId` that expired a minute ago, signed as the studio signs. */
export function expiredToken(userId: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(userId)
    .setIssuer("superstep")
    .setAudience("superstep")
    .setIssuedAt(now - 3600)
    .setExpirationTime(now - 60)
    .sign(new TextEncoder().encode(JWT_SECRET));
}

export type Lang = "en" | "vi";

/** A fresh browser context (its own storage) in a language and theme, with page errors collected. */
export async function openContext(
  browser: Browser,
  options: { lang?: Lang; theme?: "light" | "dark"; extra?: BrowserContextOptions } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 800 },
    colorScheme: "light",
    ...options.extra,
  });
  const settings: Record<string, string> = {};
  if (options.lang) settings["superstep.lang"] = options.lang;
  if (options.theme) settings["superstep.theme"] = options.theme;
  if (Object.keys(settings).length > 0) {
    // Only on the first document of the context: later changes by the page itself must stick.
    await context.addInitScript((values) => {
      if (sessionStorage.getItem("e2e.seeded")) return;
      sessionStorage.setItem("e2e.seeded", "1");
      for (const [key, value] of Object.entries(values)) localStorage.setItem(key, value);
    }, settings);
  }
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return { context, page, errors };
}

/** Signs in through the login page and waits for the page it leads to. */
export async function signIn(page: Page, studio: E2EStudio, lang: Lang = "en"): Promise<void> {
  if (!new URL(page.url(), studio.url).pathname.startsWith("/login")) await page.goto(`${studio.url}/login`);
  const labels =
    lang === "vi" ? { password: "Mật khẩu", submit: "Đăng nhập" } : { password: "Password", submit: "Sign in" };
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel(labels.password, { exact: true }).fill(OWNER.password);
  await page.getByRole("button", { name: labels.submit, exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

/** The owner as /api/auth/me describes it (what the UI keeps beside the token). */
export async function ownerUser(studio: E2EStudio): Promise<{ id: string; email: string }> {
  const me = await api<{ id: string; email: string }>(studio, "GET", "/api/auth/me", {
    token: await ownerToken(studio),
  });
  return me.body.data as { id: string; email: string };
}

/** Puts a session into the context's storage, as the login page would; `user` is looked up with the token unless given. */
export async function storeSession(page: Page, studio: E2EStudio, token: string, user?: unknown): Promise<void> {
  const sessionUser = user ?? (await api<unknown>(studio, "GET", "/api/auth/me", { token })).body.data;
  await page.goto(`${studio.url}/login`);
  await page.evaluate(
    (value) => localStorage.setItem("superstep.session", value),
    JSON.stringify({ token, user: sessionUser }),
  );
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.x A/AA and best practice). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = (await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: unknown[] }> } }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
      resultTypes: ["violations"],
    });
    return result.violations;
  })) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(" "))
          .join(", ")}`,
    );
}

/**
 * The document as the editor's JSON view holds it: the whole text of its CodeMirror editor (which
 * draws only the lines on screen), taken the way a person takes it: select all, copy. The copy is
 * a `copy` event the test sends itself, so CodeMirror fills the event's own DataTransfer and the
 * system clipboard (which a test may be using to paste nodes) is left alone. The focus goes back
 * to the JSON tab, where clicking it put it, so the keys a test presses next go where they went.
 */
export async function jsonViewText(page: Page): Promise<string> {
  const tab = page.getByTestId("panel-tab-json");
  await tab.click();
  const content = page.getByTestId("workflow-json").locator(".cm-content");
  await content.focus();
  await page.keyboard.press("ControlOrMeta+a");
  const text = await content.evaluate((element) => {
    const data = new DataTransfer();
    element.dispatchEvent(new ClipboardEvent("copy", { clipboardData: data, bubbles: true, cancelable: true }));
    return data.getData("text/plain");
  });
  await tab.focus();
  return text;
}
