// What the HTTP layer attaches to a request: the authenticated caller.
import type { FastifyRequest } from "fastify";
import type { Actor } from "../core/authz.js";
import { AppError } from "../core/errors.js";

declare module "fastify" {
  interface FastifyRequest {
    actor: Actor | null;
  }
}

export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new AppError("AUTH_REQUIRED");
  return request.actor;
}
