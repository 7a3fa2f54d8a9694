import { describe, expect, it } from "vitest";
import { type DockerCreateInput, dockerCreateArgs, hostPath, phaseNetwork } from "./docker-args.js";

const config: DockerCreateInput["config"] = {
  dir: "/data/imports",
  hostDir: null,
  image: "superstep-python:local",
  memory: "1g",
  cpus: 1.5,
  pids: 256,
  network: "bridge",
  wheelsDir: null,
};

function input(overrides: Partial<DockerCreateInput> = {}): DockerCreateInput {
  return {
    config,
    name: "superstep-import-abc",
    phase: "run",
    jobDir: "/data/imports/job1",
    runnerDir: "/data/imports/.studio-runner",
    pipCacheDir: "/data/imports/.pip-cache",
    user: { uid: 1000, gid: 1001 },
    envNames: ["OPENAI_API_KEY", "HOME"],
    argv: ["python3", "-c", "print(1)"],
    timeoutMs: 12_000,
    ...overrides,
  };
}

/** The value after each occurrence of a flag. */
function values(args: string[], flag: string): string[] {
  return args.flatMap((arg, index) => (arg === flag ? [args[index + 1] as string] : []));
}

describe("phaseNetwork", () => {
  it("gives install bridge, inspect none and run the configured network", () => {
    expect(phaseNetwork({ network: "bridge", wheelsDir: null }, "install")).toBe("bridge");
    expect(phaseNetwork({ network: "bridge", wheelsDir: null }, "inspect")).toBe("none");
    expect(phaseNetwork({ network: "bridge", wheelsDir: null }, "run")).toBe("bridge");
    expect(phaseNetwork({ network: "none", wheelsDir: null }, "run")).toBe("none");
    expect(phaseNetwork({ network: "none", wheelsDir: null }, "install")).toBe("bridge");
  });

  it("gives an install from a wheel directory no network", () => {
    expect(phaseNetwork({ network: "bridge", wheelsDir: "/wheels-here" }, "install")).toBe("none");
    expect(phaseNetwork({ network: "bridge", wheelsDir: "/wheels-here" }, "run")).toBe("bridge");
  });
});

describe("hostPath", () => {
  it("keeps paths as they are without a host dir", () => {
    expect(hostPath(config, "/data/imports/job1")).toBe("/data/imports/job1");
  });

  it("rewrites paths under the import dir to the host dir, and only those", () => {
    const compose = { dir: "/data/imports", hostDir: "/srv/studio/imports/" };
    expect(hostPath(compose, "/data/imports/job1/src")).toBe("/srv/studio/imports/job1/src");
    expect(hostPath(compose, "/data/imports")).toBe("/srv/studio/imports/");
    expect(hostPath(compose, "/data/imports-other/x")).toBe("/data/imports-other/x");
    expect(hostPath(compose, "/wheels")).toBe("/wheels");
  });
});

describe("dockerCreateArgs", () => {
  it("sets every control of the sandbox", () => {
    const args = dockerCreateArgs(input());
    expect(args[0]).toBe("create");
    expect(args).toContain("--rm");
    expect(values(args, "--pull")).toEqual(["never"]);
    expect(args).toContain("--read-only");
    expect(values(args, "--name")).toEqual(["superstep-import-abc"]);
    expect(values(args, "--tmpfs")).toEqual(["/tmp:rw,exec,nosuid,nodev,size=256m"]);
    expect(values(args, "--cap-drop")).toEqual(["ALL"]);
    expect(values(args, "--security-opt")).toEqual(["no-new-privileges"]);
    expect(values(args, "--memory")).toEqual(["1g"]);
    expect(values(args, "--memory-swap")).toEqual(["1g"]);
    expect(values(args, "--cpus")).toEqual(["1.5"]);
    expect(values(args, "--pids-limit")).toEqual(["256"]);
    expect(values(args, "--network")).toEqual(["bridge"]);
    expect(values(args, "--user")).toEqual(["1000:1001"]);
    expect(values(args, "-w")).toEqual(["/job"]);
    expect(values(args, "-v")).toEqual([
      "/data/imports/job1/src:/job/src:rw",
      "/data/imports/job1/venv:/job/venv:rw",
      "/data/imports/job1/home:/job/home:rw",
      "/data/imports/job1/runs:/job/runs:ro",
      "/data/imports/.studio-runner:/opt/studio-runner:ro",
      "/data/imports/.pip-cache:/pip-cache:rw",
    ]);
    // The container ends itself 30 s after the limit should the server be gone by then.
    expect(args.slice(-7)).toEqual([
      "superstep-python:local",
      "timeout",
      "--signal=KILL",
      "42s",
      "python3",
      "-c",
      "print(1)",
    ]);
  });

  it("passes environment names only, never a value", () => {
    const args = dockerCreateArgs(input());
    expect(values(args, "-e")).toEqual(["OPENAI_API_KEY", "HOME"]);
    expect(values(args, "-e").filter((name) => name.includes("="))).toEqual([]);
  });

  it("chooses the network by phase", () => {
    expect(values(dockerCreateArgs(input({ phase: "inspect" })), "--network")).toEqual(["none"]);
    expect(values(dockerCreateArgs(input({ phase: "install" })), "--network")).toEqual(["bridge"]);
    const offline = { ...config, network: "none" as const, wheelsDir: "/srv/wheels" };
    expect(values(dockerCreateArgs(input({ config: offline, phase: "install" })), "--network")).toEqual(["none"]);
    expect(values(dockerCreateArgs(input({ config: offline, phase: "run" })), "--network")).toEqual(["none"]);
  });

  it("mounts the wheel directory read-only when there is one, and takes the working directory", () => {
    const args = dockerCreateArgs(input({ config: { ...config, wheelsDir: "/srv/wheels" }, cwd: "/job/src" }));
    expect(values(args, "-v")).toContain("/srv/wheels:/wheels:ro");
    expect(values(args, "-w")).toEqual(["/job/src"]);
  });

  it("mounts what is under the import dir from the host dir under Compose", () => {
    const compose = { ...config, hostDir: "/home/me/studio/.imports" };
    expect(values(dockerCreateArgs(input({ config: compose })), "-v")).toEqual([
      "/home/me/studio/.imports/job1/src:/job/src:rw",
      "/home/me/studio/.imports/job1/venv:/job/venv:rw",
      "/home/me/studio/.imports/job1/home:/job/home:rw",
      "/home/me/studio/.imports/job1/runs:/job/runs:ro",
      "/home/me/studio/.imports/.studio-runner:/opt/studio-runner:ro",
      "/home/me/studio/.imports/.pip-cache:/pip-cache:rw",
    ]);
  });
});
