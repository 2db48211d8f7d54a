import { type Check, readiness } from "@kikitori/shared/server";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type client from "prom-client";
import { z } from "zod";

export interface SystemRoutesOptions {
  checks: Record<string, Check>;
  isShuttingDown: () => boolean;
  registry: client.Registry;
  publicConfig: {
    appName: string;
    howToUseUrl: string;
    contactUrl: string;
    termsUrl: string;
    privacyUrl: string;
  };
}

export const systemRoutes: FastifyPluginAsyncZod<SystemRoutesOptions> = async (app, opts) => {
  app.get("/healthz", { logLevel: "warn", schema: { tags: ["health"], summary: "Process alive" } }, async () => ({
    status: "ok",
  }));

  app.get(
    "/readyz",
    { logLevel: "warn", schema: { tags: ["health"], summary: "Database, Redis and object store reachable" } },
    async (_req, reply) => {
      const r = await readiness(opts.checks, opts.isShuttingDown);
      return reply.code(r.code).send(r.body);
    },
  );

  app.get("/metrics", { logLevel: "warn", schema: { hide: true } }, async (_req, reply) => {
    reply.header("content-type", opts.registry.contentType);
    return opts.registry.metrics();
  });

  app.get(
    "/api/config",
    {
      schema: {
        tags: ["system"],
        summary: "Public runtime settings for the web app",
        response: {
          200: z.object({
            appName: z.string(),
            howToUseUrl: z.string(),
            contactUrl: z.string(),
            termsUrl: z.string(),
            privacyUrl: z.string(),
          }),
        },
      },
    },
    async () => opts.publicConfig,
  );
};
