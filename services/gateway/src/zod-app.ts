import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";

/** The Fastify instance a route plugin receives, with the Zod type provider. */
export type ZodApp = Parameters<FastifyPluginAsyncZod>[0];
