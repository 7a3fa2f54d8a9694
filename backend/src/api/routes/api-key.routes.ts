import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiKeyView, createApiKeyBody, createdApiKeyView } from "../../schemas/api-key.schema.js";
import { dataEnvelope, errorResponse, pageEnvelope, paginationQuery } from "../../schemas/common.schema.js";
import type { Container } from "../deps.js";
import { actorOf } from "../request-context.js";
import { pageResponse } from "./page-response.js";

const idParams = z.strictObject({ id: z.string().min(1).max(100) });
const security = [{ bearer: [] }];

export const apiKeyRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      "/api/api-keys",
      {
        schema: {
          tags: ["api-keys"],
          summary: "Create an API key; the key is in this response only",
          security,
          body: createApiKeyBody,
          response: { 201: dataEnvelope(createdApiKeyView), 403: errorResponse, 422: errorResponse },
        },
      },
      async (request, reply) => reply.code(201).send({ data: await c.apiKeys.create(actorOf(request), request.body) }),
    );

    app.get(
      "/api/api-keys",
      {
        schema: {
          tags: ["api-keys"],
          summary: "List your API keys (never the keys themselves)",
          security,
          querystring: paginationQuery,
          response: { 200: pageEnvelope(apiKeyView) },
        },
      },
      async (request) => pageResponse(await c.apiKeys.list(actorOf(request), request.query)),
    );

    app.delete(
      "/api/api-keys/:id",
      {
        schema: {
          tags: ["api-keys"],
          summary: "Revoke an API key",
          security,
          params: idParams,
          response: { 200: dataEnvelope(apiKeyView), 404: errorResponse },
        },
      },
      async (request) => ({ data: await c.apiKeys.revoke(actorOf(request), request.params.id) }),
    );
  };
