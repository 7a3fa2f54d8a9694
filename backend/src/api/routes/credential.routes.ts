import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { dataEnvelope, errorResponse, pageEnvelope, paginationQuery } from "../../schemas/common.schema.js";
import { createCredentialBody, credentialView, updateCredentialBody } from "../../schemas/credential.schema.js";
import type { Container } from "../deps.js";
import { actorOf } from "../request-context.js";
import { pageResponse } from "./page-response.js";

const idParams = z.strictObject({ id: z.string().min(1).max(100) });
const security = [{ bearer: [] }];
const errors = { 403: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse };

/** Stored credentials: secrets go in, never out. */
export const credentialRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      "/api/credentials",
      {
        schema: {
          tags: ["credentials"],
          summary: "Store a credential (encrypted); its secret is never returned, not even now",
          security,
          body: createCredentialBody,
          response: { 201: dataEnvelope(credentialView), ...errors },
        },
      },
      async (request, reply) =>
        reply.code(201).send({ data: await c.credentials.create(actorOf(request), request.body) }),
    );

    app.get(
      "/api/credentials",
      {
        schema: {
          tags: ["credentials"],
          summary: "Your credentials: names, types and which fields are set",
          security,
          querystring: paginationQuery,
          response: { 200: pageEnvelope(credentialView) },
        },
      },
      async (request) => pageResponse(await c.credentials.list(actorOf(request), request.query)),
    );

    app.get(
      "/api/credentials/:id",
      {
        schema: {
          tags: ["credentials"],
          summary: "One credential, without its secret",
          security,
          params: idParams,
          response: { 200: dataEnvelope(credentialView), 404: errorResponse },
        },
      },
      async (request) => ({ data: await c.credentials.get(actorOf(request), request.params.id) }),
    );

    app.patch(
      "/api/credentials/:id",
      {
        schema: {
          tags: ["credentials"],
          summary: "Rename a credential or replace its secret (the whole data of its type)",
          security,
          params: idParams,
          body: updateCredentialBody,
          response: { 200: dataEnvelope(credentialView), ...errors },
        },
      },
      async (request) => ({
        data: await c.credentials.update(actorOf(request), request.params.id, request.body),
      }),
    );

    app.delete(
      "/api/credentials/:id",
      {
        schema: {
          tags: ["credentials"],
          summary: "Delete a credential; workflows that use it stop validating",
          security,
          params: idParams,
          response: { 200: dataEnvelope(z.object({ id: z.string(), deleted: z.literal(true) })), ...errors },
        },
      },
      async (request) => {
        await c.credentials.delete(actorOf(request), request.params.id);
        return { data: { id: request.params.id, deleted: true as const } };
      },
    );
  };
