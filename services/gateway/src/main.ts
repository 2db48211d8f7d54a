import type http from "node:http";
import { createDb } from "@kikitori/shared/db";
import {
  closeHttpServer,
  configOrExit,
  createLogger,
  createMailer,
  createObjectStore,
  createRedis,
  onShutdown,
  subscribeProgress,
} from "@kikitori/shared/server";
import { buildGateway, startGatewayOps } from "./app.ts";
import { loadGatewayConfig } from "./config.ts";

async function main(): Promise<void> {
  const config = configOrExit(() => loadGatewayConfig());
  const logger = createLogger("gateway", config.LOG_LEVEL);
  const db = createDb(config.DATABASE_URL);
  const redis = createRedis(config.REDIS_URL, "producer");
  const subscriber = createRedis(config.REDIS_URL, "subscriber");
  const store = createObjectStore(config);
  const mailer = createMailer(config, logger);
  // An object store that is down at start does not stop the gateway: the readiness check creates the
  // bucket once the store answers (uploads fail with their own error meanwhile).
  await store.ensureBucket().catch((err) => logger.warn({ err: (err as Error).message }, "object store not ready yet"));

  let gw: Awaited<ReturnType<typeof buildGateway>> | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  let ops: http.Server | undefined;
  // /readyz answers 503 from the first signal on (stop intake); then the steps run in order.
  const lifecycle = onShutdown(
    logger,
    [
      ["unsubscribe", () => unsubscribe?.()],
      ["close sockets", () => gw?.hub.closeAll()],
      // Requests in flight (a text call waits up to TEXT_JOB_TIMEOUT_MS, a billing call up to
      // BILLING_TIMEOUT_MS) finish before the process exits; SHUTDOWN_TIMEOUT_MS bounds it all.
      ["close http", () => gw?.app.close()],
      ["close ops", () => closeHttpServer(ops)],
      ["close mailer", () => mailer.close()],
      [
        "disconnect redis",
        async () => {
          subscriber.disconnect();
          await redis.quit();
        },
      ],
      ["disconnect db", () => db.$disconnect()],
    ],
    { timeoutMs: config.SHUTDOWN_TIMEOUT_MS },
  );
  gw = await buildGateway({
    config,
    logger,
    db,
    redis,
    store,
    mailer,
    isShuttingDown: lifecycle.isShuttingDown,
  });
  const { app, hub } = gw;
  unsubscribe = await subscribeProgress(
    subscriber,
    config.REDIS_PREFIX,
    (env) => hub.deliver(env),
    (raw, err) => logger.warn({ err, raw: raw.slice(0, 200) }, "invalid progress message dropped"),
  );

  ops = await startGatewayOps(gw, { port: config.OPS_PORT, host: config.OPS_HOST });
  await app.listen({ host: config.HOST, port: config.PORT });
  logger.info({ url: config.PUBLIC_URL }, `${config.APP_NAME} gateway listening`);
}

main().catch((err) => {
  console.error("gateway failed to start:", err);
  process.exit(1);
});
