import i18next from "i18next";
import { describe, expect, it } from "vitest";
import en from "../../locales/en.json";
import vi from "../../locales/vi.json";
import { runErrorDetails, runErrorText } from "./run-error-text";

async function translator(lng: "en" | "vi") {
  const instance = i18next.createInstance();
  await instance.init({ lng, resources: { en: { translation: en }, vi: { translation: vi } } });
  return instance.t;
}

describe("the errors of imported runs", () => {
  it("names the missing environment variables from details.names, in both languages", async () => {
    const error = { code: "IMPORTED_ENV_MISSING", message: "missing", details: { names: ["OPENAI_API_KEY", "X"] } };
    expect(runErrorText(await translator("en"), error)).toBe(
      "The imported graph needs environment variables that are not set: OPENAI_API_KEY, X.",
    );
    expect(runErrorText(await translator("vi"), error)).toBe(
      "Graph được nhập cần các biến môi trường chưa được đặt: OPENAI_API_KEY, X.",
    );
  });

  it("keeps the server's English reason as it is, also on the Vietnamese page", async () => {
    const error = { code: "SANDBOX_STOPPED", message: "stopped", details: { reason: "time limit (12s)" } };
    expect(runErrorText(await translator("vi"), error)).toBe(
      "Sandbox bị dừng từ bên ngoài (hết thời gian hoặc hết bộ nhớ).",
    );
    expect(runErrorDetails(error)).toEqual(["time limit (12s)"]);
  });

  it("adds nothing for details without a reason", () => {
    expect(runErrorDetails({ code: "IMPORTED_GRAPH_FAILED", message: "" })).toEqual([]);
    expect(runErrorDetails({ code: "IMPORTED_GRAPH_FAILED", message: "", details: [{ reason: "x" }] })).toEqual([]);
    expect(runErrorDetails({ code: "IMPORTED_GRAPH_FAILED", message: "", details: { reason: "  " } })).toEqual([]);
  });
});
