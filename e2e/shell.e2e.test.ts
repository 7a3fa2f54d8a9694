// The app shell in a browser: first-run setup, sign in and out, sessions that end, language and
// theme that persist, and axe-core on every page of the shell, in both languages and themes.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  api,
  expiredToken,
  type Lang,
  OWNER,
  openContext,
  ownerToken,
  ownerUser,
  screenshot,
  seriousViolations,
  signIn,
  storeSession,
} from "./studio.js";
import { studioSuite } from "./studio-suite.js";

const TEXT = {
  en: {
    setupTitle: "Create the owner account",
    loginTitle: "Sign in",
    workflows: "Workflows",
    expired: "Your session has expired. Sign in again.",
    invalid: "Your session is no longer valid. Sign in again.",
  },
  vi: {
    setupTitle: "Tạo tài khoản chủ sở hữu",
    loginTitle: "Đăng nhập",
    workflows: "Quy trình",
    expired: "Phiên đăng nhập đã hết hạn. Hãy đăng nhập lại.",
    invalid: "Phiên đăng nhập không còn hợp lệ. Hãy đăng nhập lại.",
  },
} as const;

async function heading(page: Page, name: string): Promise<void> {
  await page.getByRole("heading", { level: 1, name, exact: true }).waitFor();
}

async function htmlState(page: Page) {
  return page.evaluate(() => ({
    lang: document.documentElement.lang,
    dark: document.documentElement.classList.contains("dark"),
  }));
}

describe("the studio's shell in a browser", () => {
  const suite = studioSuite({ owner: false });
  let workflowId: string;
  let ownerId: string;

  it("first run: the setup page, accessible in both languages and themes, creates the owner and opens the workflows page", async () => {
    for (const [lang, theme] of [
      ["vi", "light"],
      ["vi", "dark"],
      ["en", "dark"],
    ] as const) {
      const { context, page } = await openContext(suite.browser, { lang, theme });
      await page.goto(suite.studio.url);
      await page.waitForURL(`${suite.studio.url}/setup`);
      await heading(page, TEXT[lang].setupTitle);
      expect(await htmlState(page)).toEqual({ lang, dark: theme === "dark" });
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `setup-${lang}-${theme}`);
      await context.close();
    }

    const { context, page, errors } = await openContext(suite.browser, { lang: "en" });
    await page.goto(suite.studio.url);
    await page.waitForURL(`${suite.studio.url}/setup`);
    await heading(page, TEXT.en.setupTitle);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "setup-en-light");

    // Bad input is named field by field, in the page's language, before anything is sent.
    await page.getByLabel("Your name (optional)").fill(OWNER.name);
    await page.getByLabel("Email").fill("not-an-email");
    await page.getByLabel("Password", { exact: true }).fill("short");
    await page.getByLabel("Repeat the password").fill("different");
    await page.getByRole("button", { name: "Create account and start" }).click();
    const fieldErrors = await page.getByTestId("field-error").allTextContents();
    expect(fieldErrors).toEqual([
      "Enter a valid email address, like name@example.com.",
      "The password needs at least 8 characters.",
      "The two passwords are not the same.",
    ]);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("setup-email");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "setup-errors-en");

    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password", { exact: true }).fill(OWNER.password);
    await page.getByLabel("Repeat the password").fill(OWNER.password);
    await page.getByRole("button", { name: "Create account and start" }).click();
    await page.waitForURL(`${suite.studio.url}/workflows`);
    await heading(page, TEXT.en.workflows);
    await page.getByRole("heading", { name: "No workflows yet" }).waitFor();
    await page.getByRole("button", { name: `Account: ${OWNER.name}` }).waitFor();
    await screenshot(page, "workflows-empty-en");
    expect(errors).toEqual([]);
    await context.close();

    const token = await ownerToken(suite.studio);
    const me = await api<{ id: string }>(suite.studio, "GET", "/api/auth/me", { token });
    ownerId = me.body.data?.id as string;
    const created = await api<{ id: string }>(suite.studio, "POST", "/api/workflows", {
      token,
      body: { name: "Đơn hàng 🚀", state: [], nodes: [], edges: [{ id: "e1", source: "start", target: "end" }] },
    });
    expect(created.status).toBe(201);
    workflowId = created.body.data?.id as string;
  });

  it("once the owner exists, setup leads to the login page, and signed-out pages lead there too", async () => {
    const { context, page } = await openContext(suite.browser);
    await page.goto(`${suite.studio.url}/setup`);
    await page.waitForURL(`${suite.studio.url}/login`);
    await heading(page, TEXT.en.loginTitle);
    await page.goto(`${suite.studio.url}/workflows`);
    await page.waitForURL(`${suite.studio.url}/login`);
    await context.close();
  });

  it("a wrong password is told in the page's language", async () => {
    for (const lang of ["en", "vi"] as const) {
      const { context, page } = await openContext(suite.browser, { lang });
      await page.goto(`${suite.studio.url}/login`);
      await page.getByLabel("Email").fill(OWNER.email);
      await page.getByLabel(lang === "en" ? "Password" : "Mật khẩu", { exact: true }).fill("wrong-password");
      await page.getByRole("button", { name: TEXT[lang].loginTitle, exact: true }).click();
      const message = await page.getByTestId("login-error").textContent();
      expect(message).toBe(lang === "en" ? "Wrong email or password." : "Email hoặc mật khẩu không đúng.");
      await context.close();
    }
  });

  it("signs out from the user menu, and signing in again goes back to the page asked for", async () => {
    const { context, page, errors } = await openContext(suite.browser);
    await signIn(page, suite.studio);
    await page.waitForURL(`${suite.studio.url}/workflows`);
    await page.getByTestId("workflow-row").first().waitFor();
    await expect.poll(() => page.title()).toBe("Workflows · Superstep");
    // A second tab of the same browser, signed in through the shared storage.
    const other = await context.newPage();
    await other.goto(`${suite.studio.url}/workflows/${workflowId}`);
    await other.getByTestId("workflow-title").waitFor();
    await expect.poll(() => other.title()).toBe("Đơn hàng 🚀 · Superstep");

    await page.getByRole("button", { name: `Account: ${OWNER.name}` }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.waitForURL(`${suite.studio.url}/login`);
    expect(await page.evaluate(() => localStorage.getItem("superstep.session"))).toBeNull();
    await expect.poll(() => page.title()).toBe("Sign in · Superstep");
    // Signing out in one tab signs out the other.
    await other.waitForURL(`${suite.studio.url}/login`);
    await other.close();

    await page.goto(`${suite.studio.url}/workflows/${workflowId}`);
    await page.waitForURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("next")).toBe(`/workflows/${workflowId}`);
    await signIn(page, suite.studio);
    await page.waitForURL(`${suite.studio.url}/workflows/${workflowId}`);
    expect(await page.getByTestId("workflow-title").textContent()).toBe("Đơn hàng 🚀");
    expect(errors).toEqual([]);
    await context.close();
  });

  for (const lang of ["en", "vi"] as const satisfies Lang[]) {
    it(`an expired session sends to login with the reason, and back to the page after signing in (${lang})`, async () => {
      const { context, page, errors } = await openContext(suite.browser, { lang });
      await storeSession(page, suite.studio, await expiredToken(ownerId), await ownerUser(suite.studio));
      await page.goto(`${suite.studio.url}/workflows/${workflowId}`);
      await page.waitForURL((url) => url.pathname === "/login");
      const url = new URL(page.url());
      expect(url.searchParams.get("next")).toBe(`/workflows/${workflowId}`);
      expect(url.searchParams.get("reason")).toBe("AUTH_TOKEN_EXPIRED");
      expect(await page.getByTestId("login-reason").textContent()).toBe(TEXT[lang].expired);
      expect(await page.evaluate(() => localStorage.getItem("superstep.session"))).toBeNull();
      await screenshot(page, `login-expired-${lang}`);
      await signIn(page, suite.studio, lang);
      await page.waitForURL(`${suite.studio.url}/workflows/${workflowId}`);
      await page.getByTestId("workflow-title").waitFor();
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("a session made invalid while a page is open sends to login at the next action, and back", async () => {
    const { context, page } = await openContext(suite.browser);
    await signIn(page, suite.studio);
    await page.getByTestId("workflow-row").first().waitFor();
    // Another tab of the same browser replaces the stored token; this tab picks it up.
    const other = await context.newPage();
    await other.goto(`${suite.studio.url}/login`);
    await other.evaluate(() => {
      const session = JSON.parse(localStorage.getItem("superstep.session") as string);
      localStorage.setItem("superstep.session", JSON.stringify({ ...session, token: "not-a-valid-token" }));
    });
    await other.close();
    await page.getByRole("button", { name: "Actions for Đơn hàng 🚀" }).click();
    await page.getByRole("menuitem", { name: "Rename…" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rename", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("reason")).toBe("AUTH_INVALID_TOKEN");
    expect(await page.getByTestId("login-reason").textContent()).toBe(TEXT.en.invalid);
    await signIn(page, suite.studio);
    await page.waitForURL(`${suite.studio.url}/workflows`);
    await context.close();
  });

  it("a page whose data or code cannot load says why, and Try again brings it back", async () => {
    const { context, page } = await openContext(suite.browser, { lang: "vi" });
    await signIn(page, suite.studio, "vi");
    await page.getByTestId("workflow-row").first().waitFor();

    // The server cannot be reached for the workflow's data.
    await page.route("**/api/workflows/*", (route) => route.abort("connectionrefused"));
    await page.getByTestId("workflow-name").first().click();
    await page.getByTestId("route-error-message").waitFor();
    expect(await page.getByTestId("route-error-message").textContent()).toBe("Không kết nối được tới máy chủ.");
    await screenshot(page, "workflow-network-error-vi");
    await page.unroute("**/api/workflows/*");
    await page.getByRole("button", { name: "Thử lại" }).click();
    await page.getByTestId("workflow-title").waitFor();

    // The page's own code cannot be loaded (the server went away, or was updated meanwhile).
    await page.goto(`${suite.studio.url}/login`);
    await page.route("**/assets/import-repo-page-*.js", (route) => route.abort("connectionrefused"));
    await page.goto(`${suite.studio.url}/import-repo`);
    await page.getByTestId("route-error-message").waitFor();
    expect(await page.getByTestId("route-error-message").textContent()).toBe("Không kết nối được tới máy chủ.");
    expect(await page.getByRole("banner").isVisible()).toBe(true);
    await page.unroute("**/assets/import-repo-page-*.js");
    await page.getByRole("button", { name: "Thử lại" }).click();
    await page.getByRole("heading", { level: 1, name: "Nhập repo LangGraph" }).waitFor();

    // The same for a page outside the shell: the login page's code.
    await page.route("**/assets/login-page-*.js", (route) => route.abort("connectionrefused"));
    await page.getByRole("button", { name: "Tài khoản: Owner Ngọc" }).click();
    await page.getByRole("menuitem", { name: "Đăng xuất" }).click();
    await page.getByTestId("route-error-message").waitFor();
    expect(await page.getByTestId("route-error-message").textContent()).toBe("Không kết nối được tới máy chủ.");
    await page.unroute("**/assets/login-page-*.js");
    await page.getByRole("button", { name: "Thử lại" }).click();
    await page.getByRole("heading", { level: 1, name: "Đăng nhập" }).waitFor();
    await context.close();
  });

  it("the language choice applies at once, on every page, and persists across reloads", async () => {
    const { context, page, errors } = await openContext(suite.browser);
    await page.goto(`${suite.studio.url}/login`);
    await heading(page, TEXT.en.loginTitle);
    await page.getByRole("button", { name: "Language: English" }).click();
    await page.getByRole("menuitemradio", { name: "Tiếng Việt" }).click();
    await heading(page, TEXT.vi.loginTitle);
    expect((await htmlState(page)).lang).toBe("vi");
    await page.reload();
    await heading(page, TEXT.vi.loginTitle);
    expect((await htmlState(page)).lang).toBe("vi");

    await signIn(page, suite.studio, "vi");
    await heading(page, TEXT.vi.workflows);
    await page.getByRole("button", { name: "Ngôn ngữ: Tiếng Việt" }).click();
    await page.getByRole("menuitemradio", { name: "English" }).click();
    await heading(page, TEXT.en.workflows);
    await page.reload();
    await heading(page, TEXT.en.workflows);
    expect((await htmlState(page)).lang).toBe("en");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the theme persists across reloads and is applied before the studio's code runs", async () => {
    const { context, page } = await openContext(suite.browser);
    await page.goto(`${suite.studio.url}/login`);
    await heading(page, TEXT.en.loginTitle);
    expect((await htmlState(page)).dark).toBe(false);
    await page.getByRole("button", { name: "Theme: Same as system" }).click();
    await page.getByRole("menuitemradio", { name: "Dark" }).click();
    expect((await htmlState(page)).dark).toBe(true);
    await page.reload();
    await page.getByRole("button", { name: "Theme: Dark" }).waitFor();
    expect((await htmlState(page)).dark).toBe(true);

    // With the studio's scripts blocked, only index.html's own script can have set the theme:
    // the saved theme is there before the first paint, with no flash of the other one.
    await page.route("**/assets/*.js", (route) => route.abort());
    await page.reload();
    expect(await htmlState(page)).toEqual({ lang: "en", dark: true });
    expect(await page.evaluate(() => document.documentElement.style.colorScheme)).toBe("dark");
    await page.unroute("**/assets/*.js");

    await page.reload();
    await page.getByRole("button", { name: "Theme: Dark" }).click();
    await page.getByRole("menuitemradio", { name: "Same as system" }).click();
    expect((await htmlState(page)).dark).toBe(false);
    await context.close();

    // "Same as system" follows the system's preference.
    const dark = await openContext(suite.browser, { extra: { colorScheme: "dark" } });
    await dark.page.goto(`${suite.studio.url}/login`);
    await heading(dark.page, TEXT.en.loginTitle);
    expect((await htmlState(dark.page)).dark).toBe(true);
    await dark.context.close();
  });

  it("axe-core finds no serious or critical violation on login, workflows and a workflow, in both themes and languages", async () => {
    for (const lang of ["en", "vi"] as const) {
      for (const theme of ["light", "dark"] as const) {
        const { context, page, errors } = await openContext(suite.browser, { lang, theme });
        await page.goto(`${suite.studio.url}/login`);
        await heading(page, TEXT[lang].loginTitle);
        expect(await seriousViolations(page), `login ${lang} ${theme}`).toEqual([]);
        await screenshot(page, `login-${lang}-${theme}`);

        await signIn(page, suite.studio, lang);
        await heading(page, TEXT[lang].workflows);
        await page.getByTestId("workflow-row").first().waitFor();
        expect(await seriousViolations(page), `workflows ${lang} ${theme}`).toEqual([]);
        await screenshot(page, `workflows-${lang}-${theme}`);

        await page.getByTestId("workflow-name").first().click();
        await page.getByTestId("workflow-title").waitFor();
        expect(await seriousViolations(page), `workflow ${lang} ${theme}`).toEqual([]);
        await screenshot(page, `workflow-${lang}-${theme}`);

        await page.goto(`${suite.studio.url}/workflows/does-not-exist`);
        await page.getByTestId("route-error-message").waitFor();
        expect(await page.getByTestId("route-error-message").textContent()).toBe(
          lang === "en"
            ? "This workflow does not exist, or it is not yours."
            : "Quy trình này không tồn tại hoặc không thuộc về bạn.",
        );
        expect(await seriousViolations(page), `error page ${lang} ${theme}`).toEqual([]);
        await screenshot(page, `workflow-not-found-${lang}-${theme}`);
        expect(errors).toEqual([]);
        await context.close();
      }
    }
  });
});
