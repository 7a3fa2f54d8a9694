import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { AppError } from "../../core/errors.js";
import type { Container } from "../deps.js";

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
