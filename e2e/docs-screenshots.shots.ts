// Takes the screenshots of docs/en/editor.md and docs/vi/editor.md from the built studio:
// `npm run docs:screenshots` (after `npm run build`). Not a test: it writes into docs/images/.
import { mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { beforeAll, it } from "vitest";
import { api, type Lang, OWNER, openContext, ownerToken, storeSession } from "./studio.js";
import { studioSuite } from "./studio-suite.js";

const IMAGES = fileURLToPath(new URL("../docs/images/", import.meta.url));
const EXAMPLES = ["hello", "triage", "fan-out-join", "for-each", "http-tool"];

const suite = studioSuite({ owner: false });

beforeAll(async () => {
  mkdirSync(IMAGES, { recursive: true });
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${IMAGES}${name}.png` });
}

it("takes the screenshots of the editor's guide", async () => {
  for (const lang of ["en", "vi"] as Lang[]) {
    const { context, page } = await openContext(suite.browser, {
      lang,
      extra: { viewport: { width: 1100, height: 680 } },
    });
    await page.goto(`${suite.studio.url}/setup`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    await page.getByLabel(lang === "en" ? "Your name (optional)" : "Tên của bạn (không bắt buộc)").fill(OWNER.name);
    await page.getByLabel("Email").fill(OWNER.email);
    await shot(page, `editor-setup-${lang}`);
    await context.close();
  }

  const token = await ownerToken(suite.studio);
  for (const id of EXAMPLES) {
    const document = JSON.parse(readFileSync(new URL(`../examples/${id}.json`, import.meta.url), "utf8"));
    await api(suite.studio, "POST", "/api/workflows", { token, body: document });
  }

  for (const [lang, theme] of [
    ["en", "light"],
    ["vi", "dark"],
  ] as const) {
    const { context, page } = await openContext(suite.browser, {
      lang,
      theme,
      extra: { viewport: { width: 1100, height: 680 } },
    });
    await storeSession(page, suite.studio, token);
    await page.goto(`${suite.studio.url}/workflows`);
    await page.getByTestId("workflow-row").first().waitFor();
    await shot(page, `editor-workflows-${lang}`);

    await page
      .getByRole("button", { name: lang === "en" ? "New workflow" : "Tạo quy trình" })
      .first()
      .click();
    await page.getByRole("dialog").getByRole("radio").nth(2).click();
    await shot(page, `editor-create-${lang}`);
    await page.keyboard.press("Escape");

    await page.getByTestId("import-file").setInputFiles({
      name: "notes.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify({ title: "Not a workflow", steps: ["a", "b"] })),
    });
    await page.getByTestId("import-error").waitFor();
    await shot(page, `editor-import-error-${lang}`);
    await context.close();
  }
});
