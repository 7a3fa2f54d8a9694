// The HTTP application: plugins, the auth boundary, routes, the UI and the error handlers.
import { existsSync } from "node:fs";
import rateLimit from "@fastify/rate-limit";
import fastifyStatic from "@fastify/static";
import websocket from "@fastify/websocket";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../core/errors.js";
import { requestId } from "../core/logging.js";
import { registerApiDocs } from "./api-docs.js";
import { type Container, PRODUCT_VERSION } from "./deps.js";
import { errorPayload, registerErrorHandlers } from "./error-handlers.js";
import { RequestLoad } from "./load-shedding.js";
import "./request-context.js";
import { apiKeyRoutes } from "./routes/api-key.routes.js";
import { publicAuthRoutes, sessionRoutes } from "./routes/auth.routes.js";
import { credentialRoutes } from "./routes/credential.routes.js";
import { healthRoutes } from "./routes/health.routes.js";
import { importDisabledRoutes, importRoutes } from "./routes/import.routes.js";
import { nodeRunRoutes } from "./routes/node-run.routes.js";
import { nodeStatsRoutes } from "./routes/node-stats.routes.js";
import { nodeTypeRoutes } from "./routes/node-type.routes.js";
import { hookRoutes, runRoutes } from "./routes/run.routes.js";
import { runForkRoutes } from "./routes/run-fork.routes.js";
import { scheduleRoutes } from "./routes/schedule.routes.js";
import { workflowRoutes } from "./routes/workflow.routes.js";
import { registerRunSocket } from "./ws/run.socket.js";

const DOCS_PREFIX = "/api/docs";

export async function buildApp(container: Container) {
  const { config } = container;
  const app = Fastify({
    loggerInstance: container.logger as FastifyBaseLogger,
    bodyLimit: config.maxBodyBytes,
    genReqId: (request) => requestId(request.headers["x-request-id"]),
    // The rate limiter keys on the client address; behind a proxy, set it up to forward it.
    trustProxy: false,
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest("actor", null);
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  // No answer shows data a power loss could still take back (see repositories/wal-durability.ts).
  // A route whose answer holds only what its own writes put on disk says so (`ownWritesOnly`).
  // When the disk cannot confirm it (DATABASE_SYNC_FAILED), the answer is replaced by that error.
  app.addHook("onSend", async (request, reply, payload) => {
    if ((request.routeOptions.config as { ownWritesOnly?: boolean } | undefined)?.ownWritesOnly) return payload;
    try {
      await container.database.settledNow();
      return payload;
    } catch (error) {
      return errorPayload(reply, error);
    }
  });
  const load = new RequestLoad(config.maxInFlight);
  load.register(app);
  app.decorate("requestLoad", load);

  registerErrorHandlers(app, { uiDir: config.uiDir });

  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new AppError("RATE_LIMITED", { retry_after_seconds: Math.ceil(context.ttl / 1000) }),
  });

  registerApiDocs(app, { prefix: DOCS_PREFIX, title: "Superstep API", version: PRODUCT_VERSION });

  await app.register(websocket, { options: { maxPayload: config.maxBodyBytes } });
  await app.register(async (scope) => registerRunSocket(scope, container));
  await app.register(healthRoutes(container));
  await app.register(publicAuthRoutes(container));
  await app.register(hookRoutes(container));
  if (!config.enableImport) await app.register(importDisabledRoutes(container));

  // Everything registered in this scope needs a bearer token (session JWT or API key).
  await app.register(async (scope) => {
    scope.addHook("onRequest", async (request) => {
      request.actor = await container.auth.authenticate(request.headers.authorization);
    });
    await scope.register(sessionRoutes(container));
    await scope.register(apiKeyRoutes(container));
    await scope.register(credentialRoutes(container));
    await scope.register(workflowRoutes(container));
    await scope.register(nodeTypeRoutes());
    await scope.register(runRoutes(container));
    await scope.register(runForkRoutes(container));
    await scope.register(nodeRunRoutes(container));
    await scope.register(nodeStatsRoutes(container));
    await scope.register(scheduleRoutes(container));
    if (config.enableImport) await scope.register(importRoutes(container));
  });

  if (existsSync(config.uiDir)) {
    await app.register(fastifyStatic, { root: config.uiDir, wildcard: false, index: ["index.html"] });
  } else {
    app.log.warn({ uiDir: config.uiDir }, "the UI is not built; run `npm run build` to serve it");
  }

  return app;
}
