// The API reference at /api/docs (Swagger UI, /json and /yaml), built on its first visit: the
// OpenAPI generator, the UI plugin and the YAML library load then, not at start. Routes are
// recorded (method, URL, schema) as they are registered; the first visit replays them into a
// small Fastify instance that carries @fastify/swagger and @fastify/swagger-ui, and every docs
// request is answered by that instance.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { lazyImport } from "../core/lazy-import.js";

export interface ApiDocsOptions {
  prefix: string;
  title: string;
  version: string;
}

type RecordedRoute = Pick<RouteOptions, "method" | "url" | "schema" | "config">;

// Headers about the inner answer's transport, not its content: the outer reply sets its own.
const TRANSPORT_HEADERS = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "date"]);

async function buildDocsServer(routes: readonly RecordedRoute[], options: ApiDocsOptions) {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }, zod] = await Promise.all([
    import("fastify"),
    import("@fastify/swagger"),
    import("@fastify/swagger-ui"),
    import("fastify-type-provider-zod"),
  ]);
  const docs = Fastify({ logger: false, routerOptions: { caseSensitive: true, ignoreTrailingSlash: true } });
  docs.setValidatorCompiler(zod.validatorCompiler);
  docs.setSerializerCompiler(zod.serializerCompiler);
  await docs.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: options.title, version: options.version },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    },
    transform: zod.createJsonSchemaTransform({ skipList: [] }),
  });
  await docs.register(swaggerUi, { routePrefix: options.prefix });
  // Only the schemas matter here: these handlers are never reached (only docs URLs are sent in).
  for (const route of routes) docs.route({ ...route, handler: async () => null });
  await docs.ready();
  return docs;
}

/** Registers /api/docs; call it before the routes it documents are registered. */
export function registerApiDocs(app: FastifyInstance, options: ApiDocsOptions) {
  const routes: RecordedRoute[] = [];
  const isDocs = (url: string) => url === options.prefix || url.startsWith(`${options.prefix}/`);
  app.addHook("onRoute", (route) => {
    // HEAD twins are added again by the docs instance; the docs routes themselves are its own.
    if (route.method === "HEAD" || isDocs(route.url)) return;
    routes.push({ method: route.method, url: route.url, schema: route.schema, config: route.config });
  });
  const server = lazyImport(() => buildDocsServer(routes, options));

  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    const docs = await server();
    const inner = await docs.inject({
      method: request.method as "GET" | "HEAD",
      url: request.url,
      headers: request.headers,
    });
    if (inner.statusCode === 404) return reply.callNotFound();
    reply.code(inner.statusCode);
    for (const [name, value] of Object.entries(inner.headers))
      if (value !== undefined && !TRANSPORT_HEADERS.has(name)) reply.header(name, value);
    return reply.send(inner.rawPayload);
  };
  app.get(options.prefix, { schema: { hide: true } }, answer);
  app.get(`${options.prefix}/*`, { schema: { hide: true } }, answer);
  return { loaded: () => server.requested };
}
