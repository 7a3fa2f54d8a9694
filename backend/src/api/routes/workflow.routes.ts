import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { dataEnvelope, errorResponse, pageEnvelope, paginationQuery } from "../../schemas/common.schema.js";
import {
  versionParams,
  versionSummaryView,
  versionView,
  workflowDocument,
  workflowSummaryView,
  workflowView,
} from "../../schemas/workflow.schema.js";
import type { SaveResult } from "../../services/workflow.service.js";
import type { Container } from "../deps.js";
import { actorOf } from "../request-context.js";
import { pageResponse } from "./page-response.js";

const idParams = z.strictObject({ id: z.string().min(1).max(100) });
const security = [{ bearer: [] }];
const saveResponse = z.object({ data: workflowView, meta: z.object({ created_version: z.boolean() }) });
// If-Match carries the version the editor loaded: 3, "3" or W/"3".
const ifMatchHeaders = z.object({
  "if-match": z
    .string()
    .regex(/^(W\/)?"?\d{1,15}"?$/, { message: 'must be a version number, e.g. "3"' })
    .transform((value) => Number(value.replace(/\D/g, "")))
    .optional(),
});
const notFound = { 404: errorResponse };

function saved(result: SaveResult) {
  return { data: result.workflow, meta: { created_version: result.created_version } };
}

export const workflowRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      "/api/workflows",
      {
        schema: {
          tags: ["workflows"],
          summary: "List your workflows, most recently saved first",
          security,
          querystring: paginationQuery,
          response: { 200: pageEnvelope(workflowSummaryView) },
        },
      },
      async (request) => pageResponse(await c.workflows.list(actorOf(request), request.query)),
    );

    app.post(
      "/api/workflows",
      {
        schema: {
          tags: ["workflows"],
          summary: "Create a workflow from a document; writes version 1",
          security,
          body: workflowDocument,
          response: { 201: dataEnvelope(workflowView), 422: errorResponse },
        },
      },
      async (request, reply) => {
        const workflow = await c.workflows.create(actorOf(request), request.body);
        return reply.code(201).header("etag", `"${workflow.version}"`).send({ data: workflow });
      },
    );

    app.post(
      "/api/workflows/validate",
      {
        schema: {
          tags: ["workflows"],
          summary: "Check a workflow document as a run would",
          description: "422 WORKFLOW_INVALID lists every problem: {code, message, node_id?, edge_id?, path?}.",
          security,
          body: z.record(z.string(), z.unknown()),
          querystring: z.strictObject({ workflow_id: z.string().max(100).optional() }),
          response: { 200: dataEnvelope(z.object({ valid: z.literal(true) })), 422: errorResponse },
        },
      },
      async (request) => ({
        data: await c.workflows.validate(actorOf(request), request.body, request.query.workflow_id),
      }),
    );

    app.get(
      "/api/workflows/:id",
      {
        schema: {
          tags: ["workflows"],
          summary: "A workflow with its current document",
          security,
          params: idParams,
          response: { 200: dataEnvelope(workflowView), ...notFound },
        },
      },
      async (request, reply) => {
        const workflow = await c.workflows.get(actorOf(request), request.params.id);
        return reply.header("etag", `"${workflow.version}"`).send({ data: workflow });
      },
    );

    app.put(
      "/api/workflows/:id",
      {
        schema: {
          tags: ["workflows"],
          summary: "Save a document; writes a new version only when the document changed",
          description: "Send If-Match with the version you loaded to refuse the save if someone saved since (409).",
          security,
          params: idParams,
          headers: ifMatchHeaders,
          body: workflowDocument,
          response: { 200: saveResponse, 409: errorResponse, 422: errorResponse, ...notFound },
        },
      },
      async (request, reply) => {
        const result = await c.workflows.save(
          actorOf(request),
          request.params.id,
          request.body,
          request.headers["if-match"],
        );
        return reply.header("etag", `"${result.workflow.version}"`).send(saved(result));
      },
    );

    app.delete(
      "/api/workflows/:id",
      {
        schema: {
          tags: ["workflows"],
          summary: "Delete a workflow and all its versions",
          security,
          params: idParams,
          response: { 200: dataEnvelope(z.object({ id: z.string(), deleted: z.literal(true) })), ...notFound },
        },
      },
      async (request) => {
        await c.workflows.delete(actorOf(request), request.params.id);
        return { data: { id: request.params.id, deleted: true as const } };
      },
    );

    app.get(
      "/api/workflows/:id/versions",
      {
        schema: {
          tags: ["versions"],
          summary: "The workflow's versions, newest first",
          security,
          params: idParams,
          querystring: paginationQuery,
          response: { 200: pageEnvelope(versionSummaryView), ...notFound },
        },
      },
      async (request) =>
        pageResponse(await c.workflows.listVersions(actorOf(request), request.params.id, request.query)),
    );

    app.get(
      "/api/workflows/:id/versions/:n",
      {
        schema: {
          tags: ["versions"],
          summary: "One version with its document",
          security,
          params: versionParams,
          response: { 200: dataEnvelope(versionView), ...notFound },
        },
      },
      async (request) => ({
        data: await c.workflows.getVersion(actorOf(request), request.params.id, request.params.n),
      }),
    );

    app.post(
      "/api/workflows/:id/versions/:n/restore",
      {
        schema: {
          tags: ["versions"],
          summary: "Make an old version current again by writing it as a new version",
          security,
          params: versionParams,
          response: { 200: saveResponse, ...notFound },
        },
      },
      async (request, reply) => {
        const result = await c.workflows.restore(actorOf(request), request.params.id, request.params.n);
        return reply.header("etag", `"${result.workflow.version}"`).send(saved(result));
      },
    );
  };
