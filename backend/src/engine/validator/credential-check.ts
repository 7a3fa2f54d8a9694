// Which nodes use a stored credential, of which type, and whether the caller has it.
import type { ValidationCode } from "../../core/errors.js";
import type { CredentialType } from "../../schemas/credential.schema.js";
import type { NodeDataMap } from "../nodes/node-data.schema.js";
import type { CredentialTypeLookup } from "../runtime/ports.js";
import type { TimeSlicer } from "./time-slicer.js";

type TypedNode = { [K in keyof NodeDataMap]: { id: string; type: K; data: NodeDataMap[K] } }[keyof NodeDataMap];
interface CredentialProblem {
  code: ValidationCode;
  message: string;
  node_id: string;
  path: string;
}

/** The credential a node names and the types it can use; null when it names none. */
export function credentialUse(node: TypedNode): { id: string; types: readonly CredentialType[] } | null {
  switch (node.type) {
    case "llm":
    case "decision":
      return node.data.credential_id ? { id: node.data.credential_id, types: [node.data.provider] } : null;
    case "tool":
      return node.data.kind === "http" && node.data.credential_id
        ? { id: node.data.credential_id, types: ["http_bearer", "http_basic", "http_header"] }
        : null;
    case "send_email":
      return node.data.credential_id ? { id: node.data.credential_id, types: ["smtp"] } : null;
    default:
      return null;
  }
}

/** CREDENTIAL_NOT_FOUND for a missing or foreign credential, CREDENTIAL_TYPE_MISMATCH for a wrong one. */
export async function checkCredentials(
  nodes: Iterable<TypedNode>,
  typeOf: CredentialTypeLookup,
  slicer?: TimeSlicer,
): Promise<CredentialProblem[]> {
  const problems: CredentialProblem[] = [];
  const types = new Map<string, Promise<CredentialType | undefined>>();
  for (const node of nodes) {
    if (slicer?.due()) await slicer.pause();
    const use = credentialUse(node);
    if (!use) continue;
    if (!types.has(use.id)) types.set(use.id, typeOf(use.id));
    const type = await types.get(use.id);
    if (type === undefined) {
      problems.push({
        code: "CREDENTIAL_NOT_FOUND",
        message: `The credential "${use.id}" does not exist or is not yours.`,
        node_id: node.id,
        path: "data.credential_id",
      });
    } else if (!use.types.includes(type)) {
      problems.push({
        code: "CREDENTIAL_TYPE_MISMATCH",
        message: `The credential "${use.id}" is of type ${type}; this node needs ${use.types.join(" or ")}.`,
        node_id: node.id,
        path: "data.credential_id",
      });
    }
  }
  return problems;
}
