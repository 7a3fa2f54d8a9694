// Runs in every test file: whatever its tests did or failed to do, the processes it started are
// gone when it ends (studio processes, and the spare Python sandbox child kept ready after a call).
import { afterAll } from "vitest";
import { stopSpare } from "../src/engine/sandbox/child-spawner.js";
import { reapStudioProcesses } from "./studio-process.js";

afterAll(async () => {
  stopSpare();
  await reapStudioProcesses();
});
