// Types of test-report.mjs, for the test that runs it on real vitest output.
export interface Summary {
  ok: number;
  bad: number;
}
export function errorsOutsideTests(output: string, limit?: number): string[];
export function vitestSummary(
  result: unknown,
  status: number,
  output: string,
  root: string,
): Summary & { failures: string[]; errors: string[] };
export function readJunit(path: string): Summary & { failed: string[] };
export function junitSummary(xml: string): Summary & { failed: string[] };
