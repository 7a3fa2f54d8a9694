// The API reference is built on its first visit; until then nothing of it is loaded.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStudio, type TestStudio } from "../../test/test-studio.js";

describe("API reference at /api/docs", () => {
  let studio: TestStudio;

  beforeAll(async () => {
    studio = await startTestStudio();
  });
  afterAll(() => studio.close());

  it("serves the page, its assets and the OpenAPI document once visited, and our 404 for anything else there", async () => {
    const page = await studio.app.inject({ method: "GET", url: "/api/docs" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).toContain("swagger");

    const script = await studio.app.inject({ method: "GET", url: "/api/docs/static/swagger-initializer.js" });
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toContain("javascript");

    const yaml = await studio.app.inject({ method: "GET", url: "/api/docs/yaml" });
    expect(yaml.statusCode).toBe(200);
    expect(yaml.body).toContain("openapi: 3.1.0");
    // The docs routes themselves are not part of the document.
    const json = (await studio.app.inject({ method: "GET", url: "/api/docs/json" })).json();
    expect(Object.keys(json.paths).filter((path) => path.startsWith("/api/docs"))).toEqual([]);

    const missing = await studio.app.inject({ method: "GET", url: "/api/docs/no-such-thing" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe("NOT_FOUND");
  });
});
