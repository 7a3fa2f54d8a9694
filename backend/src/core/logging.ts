// Structured JSON logs (pino). Request ids are attached by the HTTP layer's child loggers.
// Credentials are kept out: see log-redaction.ts, applied to every call's message and logged
// object, and to the request line (whose URL may carry ?token=).
import { randomUUID } from "node:crypto";
import pino, { type DestinationStream, type Logger } from "pino";
import type { LogFormat, LogLevel } from "./config.js";
import { REDACTED, redactString, redactValue } from "./log-redaction.js";

export type { Logger };

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}

/** The request as it appears in a log line: no headers, and the URL's credentials blanked. */
function serializeRequest(request: LoggedRequest) {
  return {
    method: request.method,
    url: typeof request.url === "string" ? redactString(request.url) : request.url,
    version: request.headers?.["accept-version"],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

// Header paths as pino's redact writes them (brackets for names with a dash).
const CREDENTIAL_HEADERS = ["authorization", '["proxy-authorization"]', "cookie", '["set-cookie"]', '["x-api-key"]'];
const headerPath = (prefix: string, name: string) => (name.startsWith("[") ? prefix + name : `${prefix}.${name}`);

/** `destination` replaces standard output (tests read the lines from it). */
export function createLogger(level: LogLevel, format: LogFormat = "json", destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    ...(format === "pretty" && !destination
      ? {
          transport: {
            target: "pino-pretty",
            options: { translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname,service" },
          },
        }
      : {}),
    base: { service: "superstep" },
    serializers: { req: serializeRequest },
    hooks: {
      // Every call's arguments: the logged object (walked), an error, the message and its printf
      // arguments. Runs before pino takes a missing message from `err.message`.
      logMethod(args, method) {
        const redacted = args.map((arg) => (typeof arg === "string" ? redactString(arg) : redactValue(arg)));
        return method.apply(this, redacted as Parameters<typeof method>);
      },
    },
    redact: {
      paths: [
        ...CREDENTIAL_HEADERS.flatMap((name) => [headerPath("req.headers", name), headerPath("headers", name)]),
        "password",
        "*.password",
        "key",
      ],
      censor: REDACTED,
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Keep a caller's X-Request-Id when it is short and plain; otherwise make one. */
export function requestId(incoming: string | string[] | undefined): string {
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
