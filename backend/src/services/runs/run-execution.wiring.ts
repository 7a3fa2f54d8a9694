// Builds the executor and what it reads workflows and credentials through, the same way on the
// thread that answers requests and on the run thread (run-thread.worker.ts).
import type { Config } from "../../core/config.js";
import type { Logger } from "../../core/logging.js";
import { SecretBox } from "../../core/secret-box.js";
import { CredentialRepository } from "../../repositories/credential.repository.js";
import type { DatabaseHandle } from "../../repositories/database.js";
import { ImportJobRepository } from "../../repositories/import-job.repository.js";
import { NodeResultRepository } from "../../repositories/node-result.repository.js";
import type { RunRepository } from "../../repositories/run.repository.js";
import { WorkflowRepository } from "../../repositories/workflow.repository.js";
import type { BackgroundMonitor } from "../background-monitor.js";
import { CredentialService } from "../credential.service.js";
import { WorkflowService } from "../workflow.service.js";
import { importedSourceOf } from "./imported-source.js";
import { type ExecutorDeps, RunExecutor } from "./run-executor.js";

export interface WorkflowAccess {
  workflowRepository: WorkflowRepository;
  workflows: WorkflowService;
  credentials: CredentialService;
}

/** The workflow and credential services over one connection (or pool). */
export function wireWorkflowAccess(config: Config, db: DatabaseHandle["db"]): WorkflowAccess {
  const workflowRepository = new WorkflowRepository(db);
  const credentials = new CredentialService({
    credentials: new CredentialRepository(db),
    box: new SecretBox({
      configured: config.encryptionKey,
      previous: config.encryptionKeysPrevious,
      dataDir: config.dataDir,
    }),
  });
  const workflows = new WorkflowService({
    workflows: workflowRepository,
    engine: config.engine,
    credentialTypes: (ownerId) => credentials.typeFor(ownerId),
  });
  return { workflowRepository, workflows, credentials };
}

export function wireRunExecutor(deps: {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  /** The run repository over the run connections (`database.forRuns`). */
  runs: RunRepository;
  access: Pick<WorkflowAccess, "workflows" | "credentials">;
  bus: ExecutorDeps["bus"];
  monitor: BackgroundMonitor;
  onEnded(runId: string): void;
}): RunExecutor {
  const { config, database, access } = deps;
  const runWork = database.forRuns;
  const sourceOf = importedSourceOf(new ImportJobRepository(config.imports.dir));
  return new RunExecutor({
    db: runWork.db,
    writes: runWork.writes,
    runs: deps.runs,
    nodeResults: new NodeResultRepository(runWork.db, () => database.settled()),
    engine: config.engine,
    bus: deps.bus,
    logger: deps.logger,
    monitor: deps.monitor,
    leaseTtlMs: config.runLeaseTtlMs,
    resolverFor: (ownerId) => access.workflows.resolverFor({ userId: ownerId, role: "member", via: "session" }),
    credentialsFor: (ownerId) => access.credentials.resolverFor(ownerId),
    onEnded: deps.onEnded,
    importsFor: (ownerId) => ({ config: config.imports, sourceOf: (jobId) => sourceOf(jobId, ownerId) }),
  });
}
