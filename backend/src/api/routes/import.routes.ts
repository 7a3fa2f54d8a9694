import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../core/errors.js";
import { dataEnvelope, errorResponse } from "../../schemas/common.schema.js";
import { githubImportBody, importJobView, importParams, importWorkflowBody } from "../../schemas/import.schema.js";
import { workflowView } from "../../schemas/workflow.schema.js";
import type { Container } from "../deps.js";
import { actorOf } from "../request-context.js";

/** While import is off, every /api/import* route says so, signed in or not. */
export const importDisabledRoutes =
  (_c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    const refuse = async () => {
      throw new AppError("IMPORT_DISABLED");
    };
    app.all("/api/import", { schema: { hide: true } }, refuse);
    app.all("/api/import/*", { schema: { hide: true } }, refuse);
    app.all("/api/imports", { schema: { hide: true } }, refuse);
    app.all("/api/imports/*", { schema: { hide: true } }, refuse);
  };

const security = [{ bearer: [] }];

/** What the multipart parser reports (too large, no boundary, cut short): the client's doing, said so. */
function uploadError(error: unknown, maxBytes: number): AppError {
  if (error instanceof AppError) return error;
  if ((error as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE")
    return new AppError("IMPORT_SOURCE_TOO_LARGE", {
      max_bytes: maxBytes,
      reason: "the upload is larger than STUDIO_IMPORT_MAX_BYTES",
    });
  return new AppError("UPLOAD_INVALID", { reason: (error as Error).message });
}

/** Repo import while STUDIO_ENABLE_IMPORT is on (registered inside the signed-in scope). */
export const importRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    const maxBytes = c.config.imports.maxBytes;
    // Multipart is parsed only here: an upload is one zip, streamed to disk, never held in memory.
    // Loaded only when import is on (these routes are registered only then).
    const { default: multipart } = await import("@fastify/multipart");
    await app.register(multipart, {
      limits: { fileSize: maxBytes + 1, files: 1, fields: 5, fieldSize: 2048, parts: 6 },
    });
    app.post(
      "/api/imports",
      {
        schema: {
          tags: ["imports"],
          summary:
            "Import a LangGraph Python project: JSON {url, branch?, subdir?} for a public GitHub repository, or multipart/form-data with a zip in the field `file`",
          security,
          consumes: ["application/json", "multipart/form-data"],
          // Optional: a multipart request has no parsed body (its zip is read as a stream below).
          body: githubImportBody.nullish(),
          response: { 202: dataEnvelope(importJobView), 413: errorResponse, 422: errorResponse },
        },
      },
      async (request, reply) => {
        const actor = actorOf(request);
        if (request.isMultipart()) {
          const part = await request.file().catch((error: unknown) => {
            throw uploadError(error, maxBytes);
          });
          if (!part) throw new AppError("IMPORT_SOURCE_MISSING");
          // What the multipart parser reports while the file streams (a body that ends early), told
          // apart from the server's own failures (a full disk).
          let streamError: unknown = null;
          part.file.once("error", (error) => {
            streamError = error;
          });
          try {
            const job = await c.imports.createFromZip(actor, { fileName: part.filename, stream: part.file });
            return reply.code(202).send({ data: job });
          } catch (error) {
            // The parser may have failed the stream before the listener above was attached.
            const parserError = streamError ?? part.file.errored;
            if (parserError && error === parserError) throw uploadError(error, maxBytes);
            throw error;
          }
        }
        if (!request.body) throw new AppError("IMPORT_SOURCE_MISSING");
        return reply.code(202).send({ data: await c.imports.createFromGithub(actor, request.body) });
      },
    );
    app.get(
      "/api/imports",
      {
        schema: {
          tags: ["imports"],
          summary: "Your import jobs, newest first",
          security,
          response: { 200: dataEnvelope(z.array(importJobView)) },
        },
      },
      async (request) => ({ data: await c.imports.list(actorOf(request)) }),
    );
    app.get(
      "/api/imports/:id",
      {
        schema: {
          tags: ["imports"],
          summary: "An import job: its source, steps, log lines and the graphs found",
          security,
          params: importParams,
          response: { 200: dataEnvelope(importJobView), 404: errorResponse },
        },
      },
      async (request) => ({ data: await c.imports.get(actorOf(request), request.params.id) }),
    );
    app.post(
      "/api/imports/:id/workflows",
      {
        schema: {
          tags: ["imports"],
          summary: "Create a read-only workflow from a graph of an import that is ready",
          description:
            "201 with the workflow, as POST /api/workflows answers. 409 IMPORT_NOT_READY unless the import succeeded; 404 IMPORT_GRAPH_NOT_FOUND for a graph that did not load. The import is then kept.",
          security,
          params: importParams,
          body: importWorkflowBody,
          response: { 201: dataEnvelope(workflowView), 404: errorResponse, 409: errorResponse, 422: errorResponse },
        },
      },
      async (request, reply) => {
        const workflow = await c.imports.createWorkflow(actorOf(request), request.params.id, request.body);
        return reply.code(201).header("etag", `"${workflow.version}"`).send({ data: workflow });
      },
    );
  };
