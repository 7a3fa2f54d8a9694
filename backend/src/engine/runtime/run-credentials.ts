// The credentials a run uses, opened once when it starts (or resumes), and the redactor that
// keeps their secrets out of everything the run writes.
import { AppError } from "../../core/errors.js";
import type { StoredCredential } from "../../schemas/credential.schema.js";
import { credentialUse } from "../validator/credential-check.js";
import type { ValidatedWorkflow } from "../validator/validator.js";
import type { CredentialResolver } from "./ports.js";
import { SecretRedactor, secretsOf } from "./secret-redactor.js";

export interface RunCredentials {
  byId: ReadonlyMap<string, StoredCredential>;
  redactor: SecretRedactor;
}

export const NO_CREDENTIALS: RunCredentials = { byId: new Map(), redactor: new SecretRedactor() };

/** Every credential a validated workflow and its subgraphs use. */
export function credentialIdsOf(workflow: ValidatedWorkflow): Set<string> {
  const ids = new Set<string>();
  const seen = new Set<ValidatedWorkflow>();
  const visit = (current: ValidatedWorkflow) => {
    if (seen.has(current)) return;
    seen.add(current);
    for (const node of current.nodes.values()) {
      const use = credentialUse(node);
      if (use) ids.add(use.id);
    }
    for (const child of current.subgraphs.values()) visit(child);
  };
  visit(workflow);
  return ids;
}

/** A resolver that opens each credential at most once per run. */
export function memoized(resolve: CredentialResolver): CredentialResolver {
  const opened = new Map<string, Promise<StoredCredential | undefined>>();
  return (id) => {
    let credential = opened.get(id);
    if (!credential) {
      credential = resolve(id);
      opened.set(id, credential);
    }
    return credential;
  };
}

export async function openRunCredentials(
  workflow: ValidatedWorkflow,
  resolve: CredentialResolver,
): Promise<RunCredentials> {
  const byId = new Map<string, StoredCredential>();
  for (const id of credentialIdsOf(workflow)) {
    const credential = await resolve(id);
    // Validation already reported a missing one; this guards a credential deleted in between.
    if (!credential) throw new AppError("CREDENTIAL_NOT_FOUND", { credential_id: id });
    byId.set(id, credential);
  }
  return { byId, redactor: new SecretRedactor([...byId.values()].flatMap(secretsOf)) };
}

/** The credential a node names, of one of the types it accepts. */
export function credentialFor<T extends StoredCredential["type"]>(
  credentials: RunCredentials,
  id: string,
  types: readonly T[],
): Extract<StoredCredential, { type: T }> {
  const credential = credentials.byId.get(id);
  if (!credential || !(types as readonly string[]).includes(credential.type)) {
    throw new AppError("CREDENTIAL_NOT_FOUND", { credential_id: id });
  }
  return credential as Extract<StoredCredential, { type: T }>;
}
