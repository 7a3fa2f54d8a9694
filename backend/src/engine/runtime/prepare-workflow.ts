// Validating a workflow for a run, without LangGraph: services that only validate (saving,
// triggering) import this module, so the graph engine loads with the first run instead of at start.
import type { EngineConfig } from "../../core/config.js";
import { AppError } from "../../core/errors.js";
import { serverKeyNeeded } from "../providers/chat-model.provider.js";
import type { ValidatedWorkflow, ValidationEnvironment } from "../validator/validator.js";
import { validateWorkflow } from "../validator/validator.js";
import type { CredentialTypeLookup, WorkflowResolver } from "./ports.js";
import { rememberedValidation, rememberValidation, StoredDocument } from "./stored-document.js";

export function validationEnvironment(
  engine: EngineConfig,
  resolveWorkflow?: WorkflowResolver,
  credentialType?: CredentialTypeLookup,
): ValidationEnvironment {
  return {
    codeMode: engine.codeMode,
    providers: {
      openai: { configured: Boolean(engine.openai.apiKey || engine.openai.baseUrl), variable: "OPENAI_API_KEY" },
      anthropic: { configured: Boolean(engine.anthropic.apiKey), variable: "ANTHROPIC_API_KEY" },
    },
    serverKeyNeeded: (provider, baseUrl) => serverKeyNeeded(provider, baseUrl, engine),
    smtpConfigured: Boolean(engine.smtpUrl),
    maxSubgraphDepth: engine.maxSubgraphDepth,
    resolveWorkflow: resolveWorkflow ?? (async () => undefined),
    credentialType: credentialType ?? (async () => undefined),
  };
}

interface PrepareOptions {
  engine: EngineConfig;
  resolveWorkflow?: WorkflowResolver;
  /** The saved workflow's id, so a subgraph that contains it is refused. */
  workflowId?: string;
  credentialType?: CredentialTypeLookup;
}

/**
 * Validates a document for running; AppError WORKFLOW_INVALID lists every problem. A
 * StoredDocument's validation is remembered by its text when nothing but the text and the engine
 * settings decided it (see stored-document.ts).
 */
export async function prepareWorkflow(document: unknown, options: PrepareOptions): Promise<ValidatedWorkflow> {
  if (!(document instanceof StoredDocument)) return validateForRun(document, options);
  const known = rememberedValidation(options.engine, document);
  if (known) return known;
  // Whether the validation looked outside the document (another workflow, a credential).
  let consulted = false;
  const { resolveWorkflow, credentialType } = options;
  const workflow = await validateForRun(document.parsed(), {
    ...options,
    resolveWorkflow: resolveWorkflow
      ? (id, version) => {
          consulted = true;
          return resolveWorkflow(id, version);
        }
      : undefined,
    credentialType: credentialType
      ? (id) => {
          consulted = true;
          return credentialType(id);
        }
      : undefined,
  });
  if (!consulted) rememberValidation(options.engine, document, workflow);
  return workflow;
}

async function validateForRun(document: unknown, options: PrepareOptions): Promise<ValidatedWorkflow> {
  const environment = validationEnvironment(options.engine, options.resolveWorkflow, options.credentialType);
  const result = await validateWorkflow(document, environment, {
    depth: 0,
    chain: options.workflowId ? [options.workflowId] : [],
  });
  if (!result.ok) throw new AppError("WORKFLOW_INVALID", result.problems);
  return result.workflow;
}
