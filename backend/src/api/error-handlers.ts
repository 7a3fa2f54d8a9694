// The only place that turns errors into HTTP responses: {"error": {"code", "message", "details"}}.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { AppError, type ErrorCode } from "../core/errors.js";
import { databaseAppError } from "../repositories/database-errors.js";

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details: unknown };
}

export function errorBody(error: AppError): ErrorBody {
  return { error: { code: error.code, message: error.message, details: error.details } };
}

// When a 429's details do not say how long to wait.
const DEFAULT_RETRY_AFTER_SECONDS = 60;
// Refusals that pass with time: too many requests, a busy server or database, a full disk.
const RETRY_LATER_STATUSES = new Set([429, 503, 507]);

/** Whole seconds a refused caller should wait: details.retry_after_seconds, at least 1. */
function retryAfterSeconds(error: AppError): number {
  const given = (error.details as { retry_after_seconds?: unknown } | null)?.retry_after_seconds;
  return typeof given === "number" && Number.isFinite(given) && given > 0
    ? Math.ceil(given)
    : DEFAULT_RETRY_AFTER_SECONDS;
}

/** The headers an error's answer carries beyond its content type. */
export function errorHeaders(error: AppError): Record<string, string> {
  // Every 429 (auth and hook limits, per-user run limits), 503 (busy server or database, database
  // away) and 507 (full disk) says when to try again.
  return RETRY_LATER_STATUSES.has(error.status) ? { "retry-after": String(retryAfterSeconds(error)) } : {};
}

function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply
    .code(error.status)
    .headers(errorHeaders(error))
    .type("application/json; charset=utf-8")
    .send(errorBody(error));
}

/**
 * For an answer already on its way (an onSend hook) that must not leave after all: sets the
 * error's status and headers on `reply` and returns the body to send instead.
 */
export function errorPayload(reply: FastifyReply, error: unknown): string {
  const appError = loggedAppError(reply.log, error);
  reply.code(appError.status).headers(errorHeaders(appError)).type("application/json; charset=utf-8");
  return JSON.stringify(errorBody(appError));
}

/**
 * For an answer whose status and headers are out already (an event stream): logs the error and
 * returns the body that says it, for the answer's last message.
 */
export function streamFailure(log: FastifyBaseLogger, error: unknown): string {
  return JSON.stringify(errorBody(loggedAppError(log, error)));
}

function loggedAppError(log: FastifyBaseLogger, error: unknown): AppError {
  const appError = toAppError(error);
  if (appError.code === "INTERNAL") log.error({ err: error }, "unhandled error");
  else log.error({ err: error }, appError.message);
  return appError;
}

interface ValidationIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params?: Record<string, unknown>;
}

/** Readable 422 details: one entry per problem, with a dotted path such as `body.nodes.0.id`. */
function validationDetails(issues: ValidationIssue[], context: string | undefined) {
  return issues.flatMap((issue) => {
    const base = [context ?? "body", ...issue.instancePath.split("/").filter((s) => s !== "")];
    const unknownKeys = issue.params?.keys;
    if (issue.keyword === "unrecognized_keys" && Array.isArray(unknownKeys)) {
      return unknownKeys.map((key) => ({
        path: [...base, String(key)].join("."),
        message: "is not an allowed field",
        code: "unrecognized_key",
      }));
    }
    return [{ path: base.join("."), message: issue.message ?? "is not valid", code: issue.keyword }];
  });
}

/** Maps framework, plugin and database errors onto catalog codes; anything unknown becomes INTERNAL. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const storage = databaseAppError(error);
  if (storage) return storage;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as { validationContext?: string }).validationContext;
    return new AppError("VALIDATION_FAILED", validationDetails(error.validation, context));
  }
  const fastifyError = error as Partial<FastifyError> | null;
  switch (fastifyError?.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new AppError("INVALID_JSON", { reason: fastifyError.message });
    case "FST_ERR_CTP_BODY_TOO_LARGE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new AppError("PAYLOAD_TOO_LARGE");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new AppError("UNSUPPORTED_MEDIA_TYPE");
  }
  // The JSON parser reports prototype poisoning (`__proto__` keys) and syntax errors as 400s.
  if (fastifyError?.statusCode === 400 && error instanceof SyntaxError) {
    return new AppError("INVALID_JSON", { reason: error.message });
  }
  if (fastifyError?.statusCode === 413) return new AppError("PAYLOAD_TOO_LARGE");
  if (fastifyError?.statusCode === 415) return new AppError("UNSUPPORTED_MEDIA_TYPE");
  return new AppError("INTERNAL");
}

export function registerErrorHandlers(
  app: Pick<FastifyInstance, "setErrorHandler" | "setNotFoundHandler">,
  options: { uiDir: string },
): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.code === "INTERNAL") request.log.error({ err: error }, "unhandled error");
    else if (appError.code === "SERVER_BUSY") request.log.warn(appError.message);
    else if (appError.status >= 500) request.log.error({ err: error }, appError.message);
    return sendError(reply, appError);
  });

  let indexHtml: Promise<string | null> | null = null;
  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    // Single-page app: any GET outside /api (any case) that wants HTML gets index.html.
    const path = request.url.split("?")[0] ?? "";
    const wantsPage =
      request.method === "GET" && !/^\/api(\/|$)/i.test(path) && (request.headers.accept ?? "").includes("text/html");
    if (wantsPage) {
      indexHtml ??= readFile(join(options.uiDir, "index.html"), "utf8").catch(() => null);
      const html = await indexHtml;
      if (html !== null) return reply.type("text/html; charset=utf-8").send(html);
    }
    return sendError(reply, new AppError("NOT_FOUND", { method: request.method, path }));
  });
}
