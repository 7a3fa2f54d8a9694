// Runs in every test file: whatever its tests did or failed to do, the processes it started are
// gone when it ends (studio processes, and the sandbox children kept ready after a call).
import { afterAll } from "vitest";
import { stopSandboxPool } from "../src/engine/sandbox/sandbox-pool.js";
import { reapStudioProcesses } from "./studio-process.js";

afterAll(async () => {
  await stopSandboxPool();
  await reapStudioProcesses();
});
