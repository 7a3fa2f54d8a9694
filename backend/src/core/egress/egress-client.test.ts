// The egress client against real servers on loopback. Refusals happen before any socket opens;
// where a test needs a "public" answer, the socket opener is a recorder that never connects.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors.js";
import { EgressClient, type SocketOpener } from "./egress-client.js";
import { EgressPolicy, parseEgressAllow } from "./egress-policy.js";

interface TestServer {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

async function serve(answer: (path: string) => { status: number; headers?: Record<string, string>; body?: string }) {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? "");
    const { status, headers, body } = answer(req.url ?? "");
    res.writeHead(status, { "content-type": "text/plain", ...headers }).end(body ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  } satisfies TestServer;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe("EGRESS_REFUSED");
  return error as AppError;
}

const clients: EgressClient[] = [];
function client(allow = "", options: ConstructorParameters<typeof EgressClient>[1] = {}): EgressClient {
  const made = new EgressClient(new EgressPolicy(parseEgressAllow(allow)), options);
  clients.push(made);
  return made;
}

/** Records where a connection would go and fails it without opening anything. */
function recorder(): { opened: { hostname: string; port: string }[]; open: SocketOpener } {
  const opened: { hostname: string; port: string }[] = [];
  return {
    opened,
    open: (options, callback) => {
      opened.push({ hostname: options.hostname, port: String(options.port) });
      callback(new Error("the test opens no connection"), null);
    },
  };
}

describe("egress client", () => {
  let target: TestServer;
  let redirector: TestServer;

  beforeAll(async () => {
    target = await serve(() => ({ status: 200, body: "secret internal answer" }));
    redirector = await serve((path) =>
      path === "/by-name"
        ? { status: 302, headers: { location: `http://inner.test:${target.port}/after-redirect` } }
        : { status: 302, headers: { location: `http://127.0.0.1:${target.port}/after-redirect` } },
    );
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await target.close();
    await redirector.close();
  });

  it("refuses a loopback target by default, naming the address class, and never connects", async () => {
    const before = target.hits.length;
    const error = await refusal(client().fetch(`http://127.0.0.1:${target.port}/`));
    expect(error.details).toMatchObject({ address: "127.0.0.1", address_class: "loopback", port: target.port });
    expect(error.message).toContain("loopback");
    expect(error.message).not.toContain("secret internal answer");
    expect(target.hits.length).toBe(before);
  });

  it.each([
    "http://2130706433:PORT/",
    "http://0x7f.1:PORT/",
    "http://0177.0.0.1:PORT/",
    "http://127.1:PORT/",
    "http://[::ffff:127.0.0.1]:PORT/",
    "http://[::1]:PORT/",
    "http://[64:ff9b::7f00:1]:PORT/",
  ])("refuses the spelling %s", async (spelling) => {
    const before = target.hits.length;
    await refusal(client().fetch(spelling.replace("PORT", String(target.port))));
    expect(target.hits.length).toBe(before);
  });

  it("refuses a name that resolves to loopback", async () => {
    const error = await refusal(
      client("", { resolve: async () => ["127.0.0.1"] }).fetch(`http://studio.test:${target.port}/`),
    );
    expect(error.details).toMatchObject({ host: "studio.test", address_class: "loopback" });
  });

  it("refuses a name when any of its addresses is refused", async () => {
    const { opened, open } = recorder();
    await refusal(
      client("", { resolve: async () => ["93.184.215.14", "10.0.0.7"], openSocket: open }).fetch("http://mixed.test/"),
    );
    expect(opened).toEqual([]);
  });

  it("lets the administrator allow a loopback target with STUDIO_EGRESS_ALLOW", async () => {
    const response = await client("127.0.0.1").fetch(`http://127.0.0.1:${target.port}/allowed`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("secret internal answer");
    const byName = await client("studio.test", { resolve: async () => ["127.0.0.1"] }).fetch(
      `http://studio.test:${target.port}/by-name`,
    );
    expect(byName.status).toBe(200);
    await byName.body?.cancel();
  });

  it("checks every redirect hop again: an allowed server cannot redirect to another loopback port", async () => {
    const before = { redirector: redirector.hits.length, target: target.hits.length };
    const error = await refusal(client(`127.0.0.1:${redirector.port}`).fetch(`http://127.0.0.1:${redirector.port}/go`));
    expect(error.details).toMatchObject({ address_class: "loopback", port: target.port });
    expect(redirector.hits.length).toBe(before.redirector + 1);
    expect(target.hits.length).toBe(before.target);
  });

  it("checks a redirect to a name that resolves to loopback", async () => {
    const before = target.hits.length;
    const error = await refusal(
      client(`127.0.0.1:${redirector.port}`, { resolve: async () => ["127.0.0.1"] }).fetch(
        `http://127.0.0.1:${redirector.port}/by-name`,
      ),
    );
    expect(error.details).toMatchObject({ host: "inner.test", address_class: "loopback" });
    expect(target.hits.length).toBe(before);
  });

  it("resolves once and connects to the checked address: a rebinding resolver cannot switch it", async () => {
    const answers = [["93.184.215.14"], ["127.0.0.1"]];
    let lookups = 0;
    const { opened, open } = recorder();
    const rebinding = client("", {
      resolve: async () => answers[Math.min(lookups++, answers.length - 1)] as string[],
      openSocket: open,
    });
    const before = target.hits.length;
    const failure = await rebinding.fetch(`http://rebind.test:${target.port}/`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).not.toBeNull();
    expect(lookups).toBe(1);
    expect(opened).toEqual([{ hostname: "93.184.215.14", port: String(target.port) }]);
    expect(target.hits.length).toBe(before);
  });

  it("refuses the loopback answer of a resolver that answers it first, before opening anything", async () => {
    const { opened, open } = recorder();
    const answers = [["127.0.0.1"], ["93.184.215.14"]];
    let lookups = 0;
    await refusal(
      client("", { resolve: async () => answers[lookups++] as string[], openSocket: open }).fetch(
        "http://rebind.test/",
      ),
    );
    expect(lookups).toBe(1);
    expect(opened).toEqual([]);
  });

  it("never connects to metadata or link-local addresses, even when every network is allowed", async () => {
    const { opened, open } = recorder();
    const everything = client("0.0.0.0/0, ::/0", { openSocket: open, resolve: async () => ["169.254.169.254"] });
    const error = await refusal(everything.fetch("http://metadata.google.internal/computeMetadata/v1/"));
    expect(error.details).toMatchObject({ address_class: "metadata" });
    await refusal(everything.fetch("http://169.254.1.1/"));
    await refusal(everything.fetch("http://[fe80::1]/"));
    expect(opened).toEqual([]);
  });

  it("pins host names the way getaddrinfo reads them (numeric spellings included)", async () => {
    const policy = client();
    await refusal(policy.pin("0x7f000001", 25));
    await refusal(policy.pin("2130706433", 25));
    await expect(client("127.0.0.1").pin("0x7f000001", 25)).resolves.toBe("127.0.0.1");
    await expect(client("", { resolve: async () => ["93.184.215.14"] }).pin("mail.example.com", 587)).resolves.toBe(
      "93.184.215.14",
    );
  });

  it("reports a name that does not resolve as an ordinary connection failure", async () => {
    const failure = await client("", { resolve: async () => [] })
      .fetch("http://nowhere.test/")
      .then(
        () => null,
        (e: unknown) => e as Error,
      );
    expect(failure).not.toBeInstanceOf(AppError);
    expect(String((failure as Error & { cause?: Error }).cause?.message ?? failure)).toContain("ENOTFOUND");
  });
});
