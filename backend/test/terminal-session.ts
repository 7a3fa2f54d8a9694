// The built `superstep` command on a real terminal: `script` (util-linux) gives it a
// pseudo-terminal, so it asks its questions as it does for a person, and the test types keys
// (Enter, Ctrl+C, Ctrl+D) into it.
import { type ChildProcess, spawn } from "node:child_process";
import { SUPERSTEP_BIN } from "./studio-process.js";

export interface TerminalSession {
  /** Everything the command wrote to the terminal so far. */
  output(): string;
  /** Resolves once the output matches (after `from` characters); rejects if the command exits first. */
  waitFor(pattern: RegExp, from?: number): Promise<void>;
  type(keys: string): void;
  /** The command's exit code. */
  exited: Promise<number | null>;
  /** Kills the terminal and the command (their process group). */
  kill(): void;
}

export const KEYS = { enter: "\r", ctrlC: "\x03", ctrlD: "\x04" } as const;

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function startInTerminal(args: string[], extra: Record<string, string>): TerminalSession {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const command = [process.execPath, SUPERSTEP_BIN, ...args].map(quote).join(" ");
  // -e: exit with the command's code; -f: flush at once; -q: no banner.
  const child: ChildProcess = spawn("script", ["-qfec", command, "/dev/null"], {
    env: { ...env, ...extra },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    output: () => output,
    waitFor(pattern, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(output.slice(from))) return;
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        check();
        void exited.then((code) => {
          if (!listeners.has(check)) return;
          listeners.delete(check);
          reject(new Error(`exited with ${code} before ${pattern}:\n${output}`));
        });
      });
    },
    type(keys) {
      child.stdin?.write(keys);
    },
    exited,
    kill() {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    },
  };
}
