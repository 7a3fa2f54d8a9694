// Checks what this server can run: code needs the sandbox, LLM and Decision nodes need a
// provider key (or their own credential), Send email needs SMTP (or a credential), and every
// stored credential a node names must be the caller's and of a type the node can use.
import { checkCredentials } from "./credential-check.js";
import { type ProblemList, problem } from "./problem-list.js";
import type { TimeSlicer } from "./time-slicer.js";
import type { TypedNode, ValidationEnvironment } from "./validation-types.js";

export async function checkCapabilities(
  typed: Map<string, TypedNode>,
  env: ValidationEnvironment,
  problems: ProblemList,
  slicer: TimeSlicer,
): Promise<void> {
  let seen = 0;
  for (const node of typed.values()) {
    if (++seen % 256 === 0 && slicer.due()) await slicer.pause();
    if (node.type === "code" && env.codeMode === "off") problems.push(problem("CODE_MODE_OFF", { node_id: node.id }));
    if (node.type === "tool" && node.data.kind === "python" && env.codeMode === "off") {
      problems.push(problem("CODE_MODE_OFF", { node_id: node.id }));
    }
    if (
      (node.type === "llm" || node.type === "decision") &&
      !node.data.credential_id &&
      env.serverKeyNeeded(node.data.provider, node.data.base_url)
    ) {
      const provider = env.providers[node.data.provider];
      if (!provider.configured) {
        problems.push(
          problem(
            "PROVIDER_NOT_CONFIGURED",
            { node_id: node.id },
            `Set ${provider.variable} to run ${node.data.provider} models.`,
          ),
        );
      }
    }
    if (node.type === "send_email" && !env.smtpConfigured && !node.data.credential_id)
      problems.push(problem("SMTP_NOT_CONFIGURED", { node_id: node.id }));
  }
  for (const found of await checkCredentials(typed.values(), env.credentialType, slicer)) problems.push(found);
}
