import { describe, expect, it } from "vitest";
import { exampleInput, hookExample, pythonLiteral } from "./hook-examples";

const fields = [
  { name: "message", type: "string" as const, default: "" },
  { name: "count", type: "number" as const, default: 3 },
  { name: "urgent", type: "boolean" as const },
  { name: "tags", type: "list" as const },
];

describe("hook examples", () => {
  it("fills each input field with its default or a value of its type", () => {
    expect(exampleInput(fields)).toEqual({ message: "your message", count: 3, urgent: true, tags: [] });
  });

  it("writes the hook call in curl, JavaScript and Python with the key from the environment", () => {
    const input = exampleInput(fields);
    const curl = hookExample("curl", "https://studio.example", "wf 1", input);
    expect(curl).toContain("curl -X POST 'https://studio.example/api/hooks/workflows/wf%201/runs'");
    expect(curl).toContain("$SUPERSTEP_API_KEY");
    expect(curl).toContain('"message": "your message"');
    const js = hookExample("javascript", "https://studio.example", "wf", input);
    expect(js).toContain("process.env.SUPERSTEP_API_KEY");
    const py = hookExample("python", "https://studio.example", "wf", input);
    expect(py).toContain('json={"input": {"message": "your message", "count": 3, "urgent": True, "tags": []}}');
  });

  it("waits for the run's result in every language when asked to, and says what comes back", () => {
    for (const language of ["curl", "javascript", "python"] as const) {
      const waiting = hookExample(language, "https://studio.example", "wf", { message: "hi" }, { wait: true });
      expect(waiting).toContain("https://studio.example/api/hooks/workflows/wf/runs?wait=30");
      const plain = hookExample(language, "https://studio.example", "wf", { message: "hi" });
      expect(plain).not.toContain("?wait=");
      if (language === "curl") continue;
      expect(waiting).toContain("200 once it ends: { run_id, status, output, error, waiting, next }; 202 after 30 s");
      expect(plain).toContain("202: { run_id, status }");
    }
  });

  it("quotes a single quote inside the curl body for the shell", () => {
    expect(hookExample("curl", "http://x", "w", { message: "it's" })).toContain(`"it'\\''s"`);
  });

  it("writes Python literals for JSON values", () => {
    expect(pythonLiteral({ a: null, b: [false, 1.5], c: "x" })).toBe('{"a": None, "b": [False, 1.5], "c": "x"}');
  });
});
