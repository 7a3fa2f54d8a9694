import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { nodeTypeCatalog } from "../../engine/nodes/node-types.js";
import { dataEnvelope } from "../../schemas/common.schema.js";
import { nodeTypeView } from "../../schemas/node-type.schema.js";

// Static for a given build: no service or database behind it, so the route reads the engine's
// catalog directly (as run.routes reads the run statuses).
export const nodeTypeRoutes = (): FastifyPluginAsyncZod => async (app) => {
  app.get(
    "/api/node-types",
    {
      schema: {
        tags: ["workflows"],
        summary: "Every node type: the JSON Schema of its settings, its outputs and where it holds references",
        security: [{ bearer: [] }],
        response: { 200: dataEnvelope(z.array(nodeTypeView)) },
      },
    },
    async () => ({ data: nodeTypeCatalog() }),
  );
};
