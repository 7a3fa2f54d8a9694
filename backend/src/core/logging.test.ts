import { describe, expect, it } from "vitest";
import { AppError } from "./errors.js";
import { createLogger } from "./logging.js";

/** A logger writing JSON lines into an array. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const text: string[] = [];
  const logger = createLogger("info", "json", {
    write(line: string) {
      text.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { logger, lines, text: () => text.join("") };
}

describe("logging", () => {
  it("keeps credentials out of messages, logged objects, errors and headers", () => {
    const { logger, lines, text } = capture();
    logger.warn({ target: "https://h.example/hook?api_key=ssk_in-object&page=2" }, "calling %s", "/x?token=in-arg");
    logger.info("retrying https://h.example/cb?client_secret=in-message");
    logger.error({ err: new Error("fetch https://h.example/?secret=in-error failed") }, "callback failed");
    logger.error(new AppError("CALLBACK_URL_INVALID", { url: "https://h/?token=in-details" }));
    logger.info({ req: { headers: { authorization: "Bearer in-header", "x-api-key": "ssk_in-x-api-key" } } }, "seen");
    logger.info({ headers: { cookie: "sid=in-cookie" }, password: "in-password" }, "login");

    expect(lines).toHaveLength(6);
    for (const secret of [
      "in-object",
      "in-arg",
      "in-message",
      "in-error",
      "in-details",
      "in-header",
      "in-x-api-key",
      "in-cookie",
      "in-password",
    ]) {
      expect(text()).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({ target: "https://h.example/hook?api_key=[redacted]&page=2" });
    expect(lines[0]?.msg).toBe("calling /x?token=[redacted]");
    expect(lines[2]).toMatchObject({
      err: { type: "Error", message: "fetch https://h.example/?secret=[redacted] failed" },
    });
    expect(lines[3]).toMatchObject({ err: { type: "AppError", code: "CALLBACK_URL_INVALID" } });
  });
});
