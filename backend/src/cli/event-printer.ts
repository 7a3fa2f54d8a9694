// The readable live view of a run on a terminal. Tokens stream inline as they arrive.
import type { StudioEvent } from "../engine/runtime/events.js";

const PREVIEW = 300;

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
}

export class EventPrinter {
  #inTokens = false;
  readonly #write: (text: string) => void;

  constructor(write: (text: string) => void = (text) => process.stdout.write(text)) {
    this.#write = write;
  }

  #line(text: string): void {
    if (this.#inTokens) this.#write("\n");
    this.#inTokens = false;
    this.#write(`${text}\n`);
  }

  print(event: StudioEvent): void {
    const step = event.superstep !== undefined ? ` [step ${event.superstep}]` : "";
    const d = event.data;
    switch (event.type) {
      case "run_started":
        this.#line(
          `▶ run ${event.run_id} ${d.resumed ? "resumed" : "started"}${d.mode === "step" ? " (one step)" : ""}`,
        );
        break;
      case "node_started":
        this.#line(`  ● ${event.node_id} (${d.node_type})${step}`);
        break;
      case "node_token":
        if (!this.#inTokens) this.#write("    ");
        this.#inTokens = true;
        this.#write(String(d.text));
        break;
      case "node_finished":
        this.#line(
          `  ✓ ${event.node_id} in ${d.duration_ms} ms${d.reused ? " (reused)" : ""}${d.route ? ` → ${d.route}` : ""}  ${preview(d.output)}`,
        );
        break;
      case "error": {
        const error = d.error as { code: string; message: string };
        this.#line(`  ✗ ${event.node_id ? `${event.node_id}: ` : ""}${error.code}: ${error.message}`);
        break;
      }
      case "run_waiting":
        this.#line(`⏸ waiting for a person at ${event.node_id}: ${d.message}`);
        break;
      case "run_paused":
        this.#line(`⏸ paused before ${(d.next as string[]).join(", ")}`);
        break;
      case "run_finished":
        this.#line(`■ ${d.status}`);
        break;
    }
  }
}
