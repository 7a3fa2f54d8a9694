import { describe, expect, it } from "vitest";
import { AppError } from "./errors.js";
import { REDACTED, redactString, redactValue } from "./log-redaction.js";

describe("log redaction", () => {
  it.each([
    ["/ws/run?token=eyJhbGciOi.payload.sig", "/ws/run?token=[redacted]"],
    ["/api/workflows?api_key=ssk_abc&limit=5", "/api/workflows?api_key=[redacted]&limit=5"],
    ["/x?limit=5&Access_Token=abc#frag", "/x?limit=5&Access_Token=[redacted]#frag"],
    ["GET https://h.example/cb?client_secret=s3&code=ok", "GET https://h.example/cb?client_secret=[redacted]&code=ok"],
    ["/s3?X-Amz-Signature=abcdef&X-Amz-Date=1", "/s3?X-Amz-Signature=[redacted]&X-Amz-Date=1"],
    ["/login?password=hunter2 failed", "/login?password=[redacted] failed"],
    ["/a?apikey=1&secret=2&key=3", "/a?apikey=[redacted]&secret=[redacted]&key=[redacted]"],
    [
      "calling http://a/?token=x and http://b/?TOKEN=y",
      "calling http://a/?token=[redacted] and http://b/?TOKEN=[redacted]",
    ],
  ])("blanks credential parameters in %s", (input, expected) => {
    expect(redactString(input)).toBe(expected);
  });

  it.each([
    "/api/runs?limit=50&offset=0",
    "/api/runs?status=queued",
    "/x?token=",
    "no query string at all",
    "a = b, c=d",
  ])("leaves %s as it is", (input) => {
    expect(redactString(input)).toBe(input);
  });

  it("walks logged objects: nested strings, credential members, arrays and errors", () => {
    const error = new AppError("CALLBACK_URL_INVALID", { url: "https://h/cb?token=in-details" });
    const logged = {
      target: "https://h/hook?api_key=in-string",
      headers: { authorization: "Bearer in-header", cookie: "sid=in-cookie", accept: "text/html" },
      attempts: [{ url: "https://h/?secret=in-array" }],
      nested: { deeper: { password: "in-member", note: "fine" } },
      err: error,
      count: 3,
    };
    const text = JSON.stringify(redactValue(logged));
    for (const secret of ["in-string", "in-header", "in-cookie", "in-array", "in-member", "in-details"]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain("text/html");
    expect(text).toContain('"note":"fine"');
    expect(text).toContain('"count":3');
    // The logged object itself is not changed.
    expect(logged.headers.authorization).toBe("Bearer in-header");
  });

  it("keeps an error's type and blanks its message and stack", () => {
    const error = new TypeError("fetch https://h/?token=leaky failed");
    const copy = redactValue(error) as TypeError;
    expect(copy).toBeInstanceOf(TypeError);
    expect(copy.message).toBe("fetch https://h/?token=[redacted] failed");
    expect(copy.stack).not.toContain("leaky");
    expect(error.message).toContain("leaky");
  });

  it("stops walking at a fixed depth and number of values", () => {
    let deep: Record<string, unknown> = { url: "/?token=bottom" };
    for (let i = 0; i < 20; i++) deep = { next: deep };
    // Beyond the depth bound the object is logged as given rather than walked forever.
    expect(JSON.stringify(redactValue(deep))).toContain("bottom");
    const wide = Array.from({ length: 5000 }, (_, i) => `/?token=t${i}`);
    const walked = redactValue(wide) as string[];
    expect(walked[0]).toBe(`/?token=${REDACTED}`);
    expect(walked.filter((value) => value.endsWith(REDACTED)).length).toBeLessThan(5000);
    // A self-referencing object does not loop.
    const cycle: Record<string, unknown> = { url: "/?token=cyclic" };
    cycle.self = cycle;
    expect((redactValue(cycle) as { url: string }).url).toBe(`/?token=${REDACTED}`);
  });
});
