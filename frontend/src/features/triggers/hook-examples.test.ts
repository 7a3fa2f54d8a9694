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

  it("quotes a single quote inside the curl body for the shell", () => {
    expect(hookExample("curl", "http://x", "w", { message: "it's" })).toContain(`"it'\\''s"`);
  });

  it("writes Python literals for JSON values", () => {
    expect(pythonLiteral({ a: null, b: [false, 1.5], c: "x" })).toBe('{"a": None, "b": [False, 1.5], "c": "x"}');
  });
});
