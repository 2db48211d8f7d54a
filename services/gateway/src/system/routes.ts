import { type AppConfig, appConfigSchema } from "@kikitori/shared";
import { type Check, readiness } from "@kikitori/shared/server";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";

export interface SystemRoutesOptions {
  checks: Record<string, Check>;
  /** Checks that do not make the gateway unready (see readiness()). */
  optionalChecks: readonly string[];
  isShuttingDown: () => boolean;
  publicConfig: AppConfig;
}

export const systemRoutes: FastifyPluginAsyncZod<SystemRoutesOptions> = async (app, opts) => {
  app.get("/healthz", { logLevel: "warn", schema: { tags: ["health"], summary: "Process alive" } }, async () => ({
    status: "ok",
  }));

  // Public: ready or not, nothing about the dependencies. The detailed answer and /metrics are on the
  // ops port (OPS_PORT), which the Ingress does not reach.
  app.get(
    "/readyz",
    { logLevel: "warn", schema: { tags: ["health"], summary: "Ready to serve (database and Redis reachable)" } },
    async (_req, reply) => {
      const r = await readiness(opts.checks, opts.isShuttingDown, opts.optionalChecks);
      return reply.code(r.code).send({ status: r.code === 200 ? "ok" : "unavailable" });
    },
  );

  app.get(
    "/api/config",
    {
      schema: {
        tags: ["system"],
        summary: "Public runtime settings for the web app",
        response: { 200: appConfigSchema },
      },
    },
    async () => opts.publicConfig,
  );
};
