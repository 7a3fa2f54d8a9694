// Outbound HTTP under the egress policy. Every connection (the first request and every redirect
// hop, which opens its own connection) resolves its host once, checks every address, and
// connects to the checked address itself, so a second DNS answer (rebinding) cannot switch it.
// TLS still verifies the certificate against the host name.
import { lookup } from "node:dns/promises";
import type { Agent, buildConnector } from "undici";
import { AppError } from "../errors.js";
import { lazyImport } from "../lazy-import.js";
import { EgressPolicy, type EgressRule, type EgressVerdict, normalizeHost } from "./egress-policy.js";
import { formatIp, parseIp } from "./ip-address.js";

/** Resolves a host name to its addresses; injectable so tests can play a rebinding resolver. */
export type Resolver = (host: string) => Promise<string[]>;
/** Opens the socket to an already checked address (undici's connector); injectable for tests. */
export type SocketOpener = buildConnector.connector;

// The HTTP client (about a hundred modules) loads with the first outbound request, not at start.
const undici = lazyImport(() => import("undici"));

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

function refusal(host: string, port: number, verdict: Extract<EgressVerdict, { allowed: false }>): AppError {
  const { classification } = verdict;
  const how =
    verdict.reason === "always"
      ? "never allowed"
      : "refused unless an administrator allows it with STUDIO_EGRESS_ALLOW";
  return new AppError(
    "EGRESS_REFUSED",
    {
      host,
      port,
      address: classification.address,
      address_class: classification.class,
      ...(classification.embedded ? { embedded: classification.embedded } : {}),
    },
    `The connection to ${host} was refused: ${classification.address} is a ${classification.class} address (${how}).`,
  );
}

/** The AppError an egress refusal left somewhere in a fetch error's cause chain. */
export function egressRefusalIn(error: unknown): AppError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === "object"; depth++) {
    if (current instanceof AppError && current.code === "EGRESS_REFUSED") return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

export interface EgressClientOptions {
  resolve?: Resolver;
  openSocket?: SocketOpener;
}

export class EgressClient {
  readonly policy: EgressPolicy;
  readonly #resolve: Resolver;
  readonly #openSocket: SocketOpener | undefined;
  /** The connection pool, made with the first request. */
  #agent: Promise<Agent> | null = null;

  constructor(policy: EgressPolicy, options: EgressClientOptions = {}) {
    this.policy = policy;
    this.#resolve = options.resolve ?? systemResolver;
    this.#openSocket = options.openSocket;
  }

  #pool(): Promise<Agent> {
    this.#agent ??= undici().then(({ Agent, buildConnector }) => {
      const open = this.#openSocket ?? buildConnector({});
      return new Agent({
        connect: (connectOptions, callback) => {
          const port = Number(connectOptions.port) || (connectOptions.protocol === "https:" ? 443 : 80);
          this.pin(connectOptions.hostname, port).then(
            (address) => open({ ...connectOptions, hostname: address }, callback),
            (error: Error) => callback(error, null),
          );
        },
      });
    });
    return this.#agent;
  }

  /**
   * The address a connection to `host` on `port` must use: the host itself when it is an
   * address, else the first address it resolves to. Every resolved address must pass.
   */
  async pin(host: string, port: number): Promise<string> {
    const name = normalizeHost(host);
    // Numeric spellings (`2130706433`, `0x7f.1`) are addresses to getaddrinfo too.
    const literal = parseIp(name);
    if (literal) {
      const verdict = this.policy.check(name, literal, port);
      if (!verdict.allowed) throw refusal(name, port, verdict);
      return formatIp(literal);
    }
    const answers = await this.#resolve(name);
    const addresses = answers.map((answer) => parseIp(answer));
    if (addresses.length === 0 || addresses.some((a) => a === null)) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    }
    for (const address of addresses) {
      const verdict = this.policy.check(name, address as NonNullable<typeof address>, port);
      if (!verdict.allowed) throw refusal(name, port, verdict);
    }
    return formatIp(addresses[0] as NonNullable<(typeof addresses)[number]>);
  }

  /** Checks an http(s) URL's destination without connecting (e.g. a callback at trigger time). */
  async check(url: URL): Promise<void> {
    await this.pin(url.hostname, Number(url.port) || (url.protocol === "https:" ? 443 : 80));
  }

  /** fetch() through the policy; a refusal surfaces as AppError EGRESS_REFUSED. */
  async fetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    try {
      const [{ fetch: undiciFetch }, dispatcher] = await Promise.all([undici(), this.#pool()]);
      const response = await undiciFetch(input, { ...(init as object), dispatcher });
      return response as unknown as Response;
    } catch (error) {
      throw egressRefusalIn(error) ?? error;
    }
  }

  /** A fetch function to hand to SDKs that accept one (model providers call it with a URL). */
  readonly fetchFunction = (input: string | URL, init?: RequestInit): Promise<Response> => this.fetch(input, init);

  async close(): Promise<void> {
    if (this.#agent) await (await this.#agent).close();
  }
}

// One client (and connection pool) per rule list, so every caller with the same configuration
// shares it.
const clients = new WeakMap<readonly EgressRule[], EgressClient>();

export function egressClientFor(rules: readonly EgressRule[]): EgressClient {
  let client = clients.get(rules);
  if (!client) {
    client = new EgressClient(new EgressPolicy(rules));
    clients.set(rules, client);
  }
  return client;
}
