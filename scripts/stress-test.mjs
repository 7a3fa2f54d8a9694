// The whole test command (`npm test`) with a CPU burner beside it: proves that the tests do not
// depend on an idle machine. stress-ng keeps N CPU workers busy (4 by default, or --cpu N, or
// STRESS_CPU) for the whole run; the load average is sampled every 5 seconds. The output ends as
// `npm test`'s does, with one line "N passed, N failed", after a line with the load seen.
// Needs stress-ng (Debian: apt-get install stress-ng; `STRESS=1 bash .ci/run` installs it).
import { spawn, spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const argIndex = process.argv.indexOf("--cpu");
const workers = Number(argIndex > 0 ? process.argv[argIndex + 1] : (process.env.STRESS_CPU ?? 4));
if (!Number.isInteger(workers) || workers < 1) {
  console.error("stress-test: --cpu (or STRESS_CPU) must be a whole number of CPU workers, at least 1");
  process.exit(2);
}
if (spawnSync("stress-ng", ["--version"], { stdio: "ignore" }).status !== 0) {
  console.error("stress-test: stress-ng is not installed (Debian: apt-get install stress-ng)");
  console.log("0 passed, 1 failed");
  process.exit(1);
}

// Its own process group, so that stopping it stops every worker it forked.
const burner = spawn("stress-ng", ["--cpu", String(workers), "--quiet"], {
  detached: true,
  stdio: "ignore",
});
let burnerStopped = false;
const stopBurner = () => {
  if (burnerStopped) return;
  burnerStopped = true;
  try {
    process.kill(-burner.pid, "SIGKILL");
  } catch {
    // already gone
  }
};
process.once("exit", stopBurner);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    stopBurner();
    process.exit(130);
  });
}

const samples = [];
const sample = () => samples.push(loadavg()[0]);
sample();
const sampler = setInterval(sample, 5000);

console.log(`stress-test: npm test beside stress-ng --cpu ${workers} on ${cpus().length} CPUs`);
const started = Date.now();
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const tests = spawn(npm, ["test"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
let tail = "";
tests.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-4096);
});
const status = await new Promise((resolve) => tests.once("exit", (code) => resolve(code ?? 1)));
clearInterval(sampler);
sample();
stopBurner();

const summary = /(\d+) passed, (\d+) failed\s*$/.exec(tail);
const max = Math.max(...samples);
const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(
  `\nstress-test: ${minutes} min beside stress-ng --cpu ${workers} on ${cpus().length} CPUs; ` +
    `1-minute load average ${mean.toFixed(1)} on average, ${max.toFixed(1)} at most (${samples.length} samples)`,
);
console.log(summary ? `${summary[1]} passed, ${summary[2]} failed` : "0 passed, 1 failed");
process.exit(summary && status === 0 ? 0 : 1);
