import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { dataEnvelope, errorResponse } from "../../schemas/common.schema.js";
import type { Container } from "../deps.js";
import { actorOf } from "../request-context.js";

const security = [{ bearer: [] }];
const workflowParams = z.strictObject({ id: z.string().min(1).max(100) });
const scheduleParams = z.strictObject({ id: z.string().min(1).max(100), sid: z.string().min(1).max(100) });
const scheduleBody = z.strictObject({
  cron: z.string().trim().min(1).max(200),
  timezone: z.string().min(1).max(100).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  enabled: z.boolean().optional(),
});
const scheduleView = z.record(z.string(), z.unknown());
const errors = { 404: errorResponse, 422: errorResponse };

export const scheduleRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      "/api/schedules/preview",
      {
        schema: {
          tags: ["schedules"],
          summary: "The next five fire times of a cron in a time zone, checked as saving a schedule checks it",
          security,
          body: z.strictObject({
            cron: z.string().trim().min(1).max(200),
            timezone: z.string().min(1).max(100).optional(),
          }),
          response: {
            200: dataEnvelope(z.object({ cron: z.string(), timezone: z.string(), next: z.array(z.string()) })),
            422: errorResponse,
          },
        },
      },
      async (request) => {
        actorOf(request);
        return { data: c.schedules.preview(request.body.cron, request.body.timezone) };
      },
    );
    app.get(
      "/api/workflows/:id/schedules",
      {
        schema: {
          tags: ["schedules"],
          summary: "The workflow's schedules",
          security,
          params: workflowParams,
          response: { 200: dataEnvelope(z.array(scheduleView)), ...errors },
        },
      },
      async (request) => ({ data: await c.schedules.list(actorOf(request), request.params.id) }),
    );
    app.post(
      "/api/workflows/:id/schedules",
      {
        schema: {
          tags: ["schedules"],
          summary: "Run the workflow on a cron schedule (5 fields, or 6 with seconds) in a time zone",
          security,
          params: workflowParams,
          body: scheduleBody,
          response: { 201: dataEnvelope(scheduleView), ...errors },
        },
      },
      async (request, reply) =>
        reply.code(201).send({ data: await c.schedules.create(actorOf(request), request.params.id, request.body) }),
    );
    app.put(
      "/api/workflows/:id/schedules/:sid",
      {
        schema: {
          tags: ["schedules"],
          summary: "Change a schedule",
          security,
          params: scheduleParams,
          body: scheduleBody,
          response: { 200: dataEnvelope(scheduleView), ...errors },
        },
      },
      async (request) => ({
        data: await c.schedules.update(actorOf(request), request.params.id, request.params.sid, request.body),
      }),
    );
    app.delete(
      "/api/workflows/:id/schedules/:sid",
      {
        schema: {
          tags: ["schedules"],
          summary: "Delete a schedule",
          security,
          params: scheduleParams,
          response: { 200: dataEnvelope(z.object({ id: z.string(), deleted: z.literal(true) })), ...errors },
        },
      },
      async (request) => {
        await c.schedules.delete(actorOf(request), request.params.id, request.params.sid);
        return { data: { id: request.params.sid, deleted: true as const } };
      },
    );
  };
