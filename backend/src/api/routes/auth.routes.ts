import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { credentialsBody, registerBody, sessionView, userView } from "../../schemas/auth.schema.js";
import { dataEnvelope, errorResponse } from "../../schemas/common.schema.js";
import type { Container } from "../deps.js";
import { actorOf } from "../request-context.js";

const authStatusView = z.object({ setup_required: z.boolean(), signup_allowed: z.boolean() });

/** Routes that work without a token: status, setup, register, login. Rate limited per client. */
export const publicAuthRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    const rateLimit = { max: c.config.authRateLimitPerMinute, timeWindow: "1 minute" };
    const errors = {
      401: errorResponse,
      403: errorResponse,
      409: errorResponse,
      422: errorResponse,
      429: errorResponse,
    };

    app.get(
      "/api/auth/status",
      {
        schema: {
          tags: ["auth"],
          summary: "Whether the owner account exists yet",
          response: { 200: dataEnvelope(authStatusView) },
        },
      },
      async () => ({ data: await c.auth.status() }),
    );

    app.post(
      "/api/auth/setup",
      {
        config: { rateLimit },
        schema: {
          tags: ["auth"],
          summary: "Create the first (owner) account; only while no user exists",
          body: registerBody,
          response: { 201: dataEnvelope(sessionView), ...errors },
        },
      },
      async (request, reply) => reply.code(201).send({ data: await c.auth.setup(request.body) }),
    );

    app.post(
      "/api/auth/register",
      {
        config: { rateLimit },
        schema: {
          tags: ["auth"],
          summary: "Create a member account (STUDIO_ALLOW_SIGNUP=1)",
          body: registerBody,
          response: { 201: dataEnvelope(sessionView), ...errors },
        },
      },
      async (request, reply) => reply.code(201).send({ data: await c.auth.register(request.body) }),
    );

    app.post(
      "/api/auth/login",
      {
        config: { rateLimit },
        schema: {
          tags: ["auth"],
          summary: "Sign in; returns a bearer token",
          body: credentialsBody,
          response: { 200: dataEnvelope(sessionView), ...errors },
        },
      },
      async (request) => ({ data: await c.auth.login(request.body) }),
    );
  };

export const sessionRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      "/api/auth/me",
      {
        schema: {
          tags: ["auth"],
          summary: "The signed-in user",
          security: [{ bearer: [] }],
          response: { 200: dataEnvelope(userView), 401: errorResponse },
        },
      },
      async (request) => ({ data: await c.auth.me(actorOf(request)) }),
    );
  };
