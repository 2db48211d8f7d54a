import { createDb } from "@kikitori/shared/db";
import {
  ConfigError,
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
  let config: ReturnType<typeof loadGatewayConfig>;
  try {
    config = loadGatewayConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger("gateway", config.LOG_LEVEL);
  const db = createDb(config.DATABASE_URL);
  const redis = createRedis(config.REDIS_URL, "producer");
  const subscriber = createRedis(config.REDIS_URL, "subscriber");
  const store = createObjectStore(config);
  const mailer = createMailer(config, logger);
  await store.ensureBucket();

  let shuttingDown = false;
  const gw = await buildGateway({ config, logger, db, redis, store, mailer, isShuttingDown: () => shuttingDown });
  const unsubscribe = await subscribeProgress(
    subscriber,
    config.REDIS_PREFIX,
    (env) => gw.hub.deliver(env),
    (raw, err) => logger.warn({ err, raw: raw.slice(0, 200) }, "invalid progress message dropped"),
  );

  const { isShuttingDown } = onShutdown(logger, [
    [
      "stop intake",
      () => {
        shuttingDown = true;
      },
    ],
    ["unsubscribe", unsubscribe],
    ["close sockets", () => gw.hub.closeAll()],
    ["close http", () => gw.app.close()],
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
  void isShuttingDown;

  await gw.app.listen({ host: config.HOST, port: config.PORT });
  logger.info({ url: config.PUBLIC_URL }, `${config.APP_NAME} gateway listening`);
}

main().catch((err) => {
  console.error("gateway failed to start:", err);
  process.exit(1);
});
