import type { TestProject } from "vitest/node";
import { startPostgresCluster } from "./postgres-cluster.js";
import "./provided-context.js";

// TEST_DATABASE_URL (an admin connection to an existing server) skips starting a cluster.
export default async function setup(project: TestProject) {
  const existing = process.env.TEST_DATABASE_URL;
  if (existing) {
    project.provide("pgAdminUrl", existing);
    return;
  }
  const cluster = await startPostgresCluster();
  project.provide("pgAdminUrl", cluster.adminUrl);
  return () => cluster.stop();
}
