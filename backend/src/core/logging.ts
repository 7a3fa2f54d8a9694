// Structured JSON logs (pino). Request ids are attached by the HTTP layer's child loggers.
import { randomUUID } from "node:crypto";
import pino, { type Logger } from "pino";
import type { LogFormat, LogLevel } from "./config.js";

export type { Logger };

export function createLogger(level: LogLevel, format: LogFormat = "json"): Logger {
  return pino({
    level,
    ...(format === "pretty"
      ? {
          transport: {
            target: "pino-pretty",
            options: { translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname,service" },
          },
        }
      : {}),
    base: { service: "superstep" },
    redact: { paths: ["req.headers.authorization", "password", "*.password", "key"], censor: "[redacted]" },
  });
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Keep a caller's X-Request-Id when it is short and plain; otherwise make one. */
export function requestId(incoming: string | string[] | undefined): string {
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
