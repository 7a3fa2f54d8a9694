import { describe, expect, it } from "vitest";
import { at, collect, edge, engineConfig } from "../../../test/engine-harness.js";
import { prepareWorkflow, runStream } from "./runtime.js";
import { StoredDocument } from "./stored-document.js";

const engine = engineConfig();
const condition = (id: string) => ({
  id,
  type: "condition",
  position: at,
  data: { rules: [], default_label: "next" },
});
const plain = JSON.stringify({
  name: "plain",
  state: [{ name: "n", type: "number" }],
  nodes: [condition("c")],
  edges: [edge("start", "c"), { ...edge("c", "end"), label: "next" }],
});

describe("stored documents", () => {
  it("validates the same stored text once for every run that uses it", async () => {
    const first = await prepareWorkflow(new StoredDocument(plain), { engine });
    const second = await prepareWorkflow(new StoredDocument(plain), { engine });
    expect(second).toBe(first);
    // A parsed document is validated on every call, as before.
    expect(await prepareWorkflow(JSON.parse(plain), { engine })).not.toBe(first);
    // Other engine settings are another validation.
    expect(await prepareWorkflow(new StoredDocument(plain), { engine: engineConfig() })).not.toBe(first);
  });

  it("validates again a document whose validation looked up a credential or another workflow", async () => {
    const withCredential = JSON.stringify({
      name: "credential",
      state: [{ name: "out", type: "any" }],
      nodes: [
        {
          id: "mail",
          type: "send_email",
          position: at,
          data: { to: "a@example.com", subject: "s", body: "b", credential_id: "cred-1", output_field: "out" },
        },
      ],
      edges: [edge("start", "mail")],
    });
    let lookups = 0;
    const credentialType = async () => {
      lookups++;
      return "smtp" as const;
    };
    const first = await prepareWorkflow(new StoredDocument(withCredential), { engine, credentialType });
    const second = await prepareWorkflow(new StoredDocument(withCredential), { engine, credentialType });
    expect(second).not.toBe(first);
    expect(lookups).toBe(2);
  });

  it("refuses an invalid stored document every time, and runs a valid one", async () => {
    const broken = new StoredDocument(JSON.stringify({ name: "broken", state: [], nodes: [], edges: [] }));
    await expect(prepareWorkflow(broken, { engine })).rejects.toMatchObject({ code: "WORKFLOW_INVALID" });
    await expect(prepareWorkflow(broken, { engine })).rejects.toMatchObject({ code: "WORKFLOW_INVALID" });
    const { outcome } = await collect(runStream(new StoredDocument(plain), { n: 1 }, { engine }));
    expect(outcome).toMatchObject({ status: "ok", state: { n: 1 } });
  });
});
