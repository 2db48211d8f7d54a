import { createDb } from "@kikitori/shared/db";
import {
  configOrExit,
  createLogger,
  createMailer,
  createObjectStore,
  createRedis,
  onShutdown,
  subscribeProgress,
} from "@kikitori/shared/server";
import { buildGateway } from "./app.ts";
import { loadGatewayConfig } from "./config.ts";

async function main(): Promise<void> {
  const config = configOrExit(() => loadGatewayConfig());
  const logger = createLogger("gateway", config.LOG_LEVEL);
  const db = createDb(config.DATABASE_URL);
  const redis = createRedis(config.REDIS_URL, "producer");
  const subscriber = createRedis(config.REDIS_URL, "subscriber");
  const store = createObjectStore(config);
  const mailer = createMailer(config, logger);
  await store.ensureBucket();

  let gw: Awaited<ReturnType<typeof buildGateway>> | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  // /readyz answers 503 from the first signal on (stop intake); then the steps run in order.
  const lifecycle = onShutdown(logger, [
    ["unsubscribe", () => unsubscribe?.()],
    ["close sockets", () => gw?.hub.closeAll()],
    ["close http", () => gw?.app.close()],
    ["close mailer", () => mailer.close()],
    [
      "disconnect redis",
      async () => {
        subscriber.disconnect();
        await redis.quit();
      },
    ],
    ["disconnect db", () => db.$disconnect()],
  ]);
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

  await app.listen({ host: config.HOST, port: config.PORT });
  logger.info({ url: config.PUBLIC_URL }, `${config.APP_NAME} gateway listening`);
}

main().catch((err) => {
  console.error("gateway failed to start:", err);
  process.exit(1);
});
