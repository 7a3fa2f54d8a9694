import { defineConfig } from "vitest/config";

// Two projects: everything on the embedded SQLite database, and everything that touches the
// database again on a real PostgreSQL (a throwaway cluster, or TEST_DATABASE_URL).
// Tests order things with events and fake clocks, never with elapsed time; the time limits below
// only end a test that is stuck, and are generous so that a busy machine is slow, never failing.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000 } },
    setupFiles: ["test/reap.setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "sqlite",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          // API and worker processes share one database: PostgreSQL only.
          exclude: ["test/redis-worker.test.ts", "test/redis-schedules.test.ts", "test/redis-takeover.test.ts"],
          provide: { dbKind: "sqlite" },
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: [
            "src/api/**/*.test.ts",
            "src/repositories/**/*.test.ts",
            "src/services/**/*.test.ts",
            "test/crash-recovery.test.ts",
            "test/crash-kill-points.test.ts",
            "test/imported-run-crash.test.ts",
            "test/run-lease.test.ts",
            "test/callback-outbox.test.ts",
            "test/redis-worker.test.ts",
            "test/redis-schedules.test.ts",
            "test/redis-takeover.test.ts",
          ],
          globalSetup: ["test/postgres.global-setup.ts"],
          provide: { dbKind: "postgres" },
        },
      },
    ],
  },
});
