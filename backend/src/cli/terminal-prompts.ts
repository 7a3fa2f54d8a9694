// Questions on a terminal: a Human node's form, field by field, and "press Enter" between steps.
// Ctrl+C or Ctrl+D at a question rejects with an AbortError (the caller exits 130); readline
// leaves Ctrl+C to the interface, not to the process, while it reads.
import { createInterface, type Interface } from "node:readline/promises";
import { checkHumanInput, type HumanRequest } from "../engine/nodes/human.node.js";

async function withQuestions<T>(use: (ask: (text: string) => Promise<string>) => Promise<T>): Promise<T> {
  const rl: Interface = createInterface({ input: process.stdin, output: process.stdout });
  const stop = new AbortController();
  rl.on("SIGINT", () => stop.abort());
  try {
    return await use((text) => rl.question(text, { signal: stop.signal }));
  } finally {
    rl.close();
  }
}

/** Asks for each form field until the answer fits the form. */
export function askForm(request: HumanRequest): Promise<Record<string, unknown>> {
  return withQuestions(async (ask) => {
    for (;;) {
      const answer: Record<string, unknown> = {};
      for (const field of request.fields) {
        const raw = (
          await ask(`    ${field.label ?? field.name}${field.required ? " *" : ""} (${field.type}): `)
        ).trim();
        if (raw === "") continue;
        answer[field.name] =
          field.type === "number" ? Number(raw) : field.type === "boolean" ? /^(y|yes|true|1)$/i.test(raw) : raw;
      }
      const problems = checkHumanInput(request.fields, answer);
      if (problems.length === 0) return answer;
      for (const p of problems) console.log(`    ✗ ${p.field}: ${p.message}`);
    }
  });
}

export function pressEnter(): Promise<void> {
  return withQuestions(async (ask) => {
    await ask("    press Enter for the next step ");
  });
}
