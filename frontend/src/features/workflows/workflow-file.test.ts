import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "@/lib/api";
import { checkWorkflowName, fitName, parseWorkflowFile, workflowFileName, workflowFileText } from "./workflow-file";

const document: WorkflowDocument = {
  name: "Chào 👋",
  state: [{ name: "greeting", type: "string", default: "Xin chào" }],
  nodes: [],
  edges: [{ id: "e1", source: "start", target: "end" }],
};

describe("parseWorkflowFile", () => {
  it("reads a document, with or without a byte-order mark", () => {
    expect(parseWorkflowFile(JSON.stringify(document))).toEqual({ ok: true, document });
    expect(parseWorkflowFile(`\uFEFF${JSON.stringify(document)}`)).toEqual({ ok: true, document });
  });

  it("says a file that is not JSON is not JSON", () => {
    expect(parseWorkflowFile("name: not json")).toEqual({ ok: false, reason: "notJson" });
    expect(parseWorkflowFile("")).toEqual({ ok: false, reason: "notJson" });
    expect(parseWorkflowFile("\u0000\u0001binary")).toEqual({ ok: false, reason: "notJson" });
  });

  it("says JSON that is not an object is not a workflow", () => {
    for (const text of ["[1,2]", "42", '"text"', "null"]) {
      expect(parseWorkflowFile(text)).toEqual({ ok: false, reason: "notWorkflow" });
    }
  });

  it("takes the document out of the API's workflow view and its envelope", () => {
    const view = { id: "wf_1", name: document.name, version: 3, document };
    expect(parseWorkflowFile(JSON.stringify(view))).toEqual({ ok: true, document });
    expect(parseWorkflowFile(JSON.stringify({ data: view }))).toEqual({ ok: true, document });
  });

  it("leaves any other object for the server to judge", () => {
    expect(parseWorkflowFile('{"nodes": "no", "foo": 1}')).toEqual({ ok: true, document: { nodes: "no", foo: 1 } });
  });
});

describe("workflowFileText", () => {
  it("round-trips to the same document", () => {
    expect(JSON.parse(workflowFileText(document))).toEqual(document);
  });
});

describe("workflowFileName", () => {
  it("keeps Vietnamese letters and emoji, replaces what file systems refuse", () => {
    expect(workflowFileName("Quy trình: đơn/hàng? 🚀")).toBe("Quy trình- đơn-hàng- 🚀.json");
  });

  it("never gives an empty or hidden name", () => {
    expect(workflowFileName("   ")).toBe("workflow.json");
    expect(workflowFileName("...")).toBe("workflow.json");
    expect(workflowFileName("/")).toBe("workflow.json");
  });

  it("caps a very long name without splitting an emoji", () => {
    const name = workflowFileName("😀".repeat(500));
    expect(name).toBe(`${"😀".repeat(100)}.json`);
  });
});

describe("checkWorkflowName", () => {
  it("follows the server: 1–200 characters after trimming", () => {
    expect(checkWorkflowName("  ")).toBe("workflows.name.required");
    expect(checkWorkflowName("x".repeat(200))).toBeNull();
    expect(checkWorkflowName(` ${"x".repeat(200)} `)).toBeNull();
    expect(checkWorkflowName("x".repeat(201))).toBe("workflows.name.tooLong");
    expect(checkWorkflowName("x".repeat(10_000))).toBe("workflows.name.tooLong");
  });

  it("counts an emoji as the server does (two UTF-16 units)", () => {
    expect(checkWorkflowName("😀".repeat(100))).toBeNull();
    expect(checkWorkflowName("😀".repeat(101))).toBe("workflows.name.tooLong");
  });
});

describe("fitName", () => {
  const copy = (name: string) => `Bản sao của ${name}`;

  it("wraps a short name as it is", () => {
    expect(fitName("Đơn hàng", copy)).toBe("Bản sao của Đơn hàng");
  });

  it("cuts a long name so the wrapped one fits, ending with an ellipsis", () => {
    const fitted = fitName("a".repeat(200), copy);
    expect(fitted.length).toBe(200);
    expect(fitted.startsWith("Bản sao của aaa")).toBe(true);
    expect(fitted.endsWith("…")).toBe(true);
    expect(checkWorkflowName(fitted)).toBeNull();
  });

  it("never splits an emoji", () => {
    const fitted = fitName("😀".repeat(100), copy);
    expect(checkWorkflowName(fitted)).toBeNull();
    expect(fitted).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
