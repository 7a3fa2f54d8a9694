// What every test of studio processes sharing one database sets up the same way: a data dir, a
// fresh database (the project's, or one on a server of the test's own), the environment the
// processes get (JSON logs, loopback egress), and a handle on that database for the test's own
// reads. `close()` undoes it all.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseHandle } from "../src/repositories/database.js";
import { openStudioDatabase } from "./studio-api.js";
import { testDatabaseEnv } from "./test-database.js";

export interface StudioEnv {
  dataDir: string;
  /** The environment of the studio processes (add to it per process). */
  env: Record<string, string>;
  /** The studio's database, opened from the test on first use. */
  database(): DatabaseHandle;
  /** Closes the test's handle, drops the database and removes the data dir. */
  close(): Promise<void>;
}

export async function openStudioEnv(
  name: string,
  extra: Record<string, string> = {},
  options: { adminUrl?: string } = {},
): Promise<StudioEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), `superstep-${name}-`));
  const db = await testDatabaseEnv(options);
  const env = {
    STUDIO_DATA_DIR: dataDir,
    STUDIO_LOG_FORMAT: "json",
    STUDIO_EGRESS_ALLOW: "127.0.0.1",
    ...db.env,
    ...extra,
  };
  let handle: DatabaseHandle | undefined;
  return {
    dataDir,
    env,
    database: () => {
      handle ??= openStudioDatabase(dataDir, env);
      return handle;
    },
    close: async () => {
      await handle?.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
