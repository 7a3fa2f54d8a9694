// How the bench scripts read their command line. `--help` (or `-h`) prints the script's usage and
// exits. An option the script does not know, an option without its value, a number that is not
// one or a file that cannot be read prints what was wrong and the usage, and exits with 2: a
// mistyped flag stops the script before it starts anything, instead of a stack trace, or a run
// of many minutes on a default the person did not mean.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

/** Exits with 2 after printing `message` and the usage. */
export function usageError(usage, message) {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

/**
 * The script's options (node:util parseArgs `options`, strict) and up to `positionals` plain
 * arguments; `--help` prints `usage` and exits with 0.
 */
export function benchArgs(usage, options = {}, { positionals = 0, argv = process.argv.slice(2) } = {}) {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage);
    process.exit(0);
  }
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: positionals > 0, strict: true });
    if (parsed.positionals.length > positionals)
      throw new Error(`unexpected argument '${parsed.positionals[positionals]}'`);
    return parsed;
  } catch (error) {
    return usageError(usage, error.message);
  }
}

/** `text` as a whole number of at least `min`; `fallback` when absent; a usage error otherwise. */
export function wholeNumber(usage, what, text, fallback, min = 1) {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === "" || !Number.isInteger(value) || value < min)
    return usageError(usage, `${what} must be a whole number of at least ${min}, not '${text}'`);
  return value;
}

/** A JSON file's contents; a usage error when it cannot be read or is not JSON. */
export function readJsonFile(usage, file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return usageError(usage, `cannot read ${file}: ${error.message}`);
  }
}

/** Options that each take a whole number of at least `min`, with their defaults: `{ runs: 600 }`. */
export function numberOptions(usage, defaults, min = 0) {
  const names = Object.keys(defaults);
  const { values } = benchArgs(usage, Object.fromEntries(names.map((name) => [name, { type: "string" }])));
  return Object.fromEntries(
    names.map((name) => [name, wholeNumber(usage, `--${name}`, values[name], defaults[name], min)]),
  );
}
