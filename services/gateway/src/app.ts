import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import type http from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import fastifyMultipart from "@fastify/multipart";
import fastifyRateLimit from "@fastify/rate-limit";
import fastifyStatic from "@fastify/static";
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import fastifyWebsocket from "@fastify/websocket";
import { AppError, MAX_UPLOAD_BYTES, WS_CLOSE_UNAUTHENTICATED } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { pingDb } from "@kikitori/shared/db";
import {
  type Check,
  createJobQueues,
  instrumentHttp,
  type JobQueues,
  type Logger,
  type Mailer,
  type ObjectStore,
  objectStoreCheck,
  pingRedis,
  type Redis,
  readSpeechStatus,
  startOpsServer,
  UPLOAD_EXPIRY_MS,
} from "@kikitori/shared/server";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController, type RawServerDefault } from "fastify";
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from "fastify-type-provider-zod";
import client from "prom-client";
import { accountRepository } from "./account/repository.ts";
import { accountRoutes } from "./account/routes.ts";
import { AccountService } from "./account/usecases.ts";
import { EmailRateLimiter, LoginThrottle } from "./auth/limits.ts";
import { authRepository } from "./auth/repository.ts";
import { TokenRevocations } from "./auth/revocation.ts";
import { authRoutes } from "./auth/routes.ts";
import { TokenSigner } from "./auth/tokens.ts";
import { AuthService } from "./auth/usecases.ts";
import { billingServiceRepository } from "./billing/repository.ts";
import { billingRoutes } from "./billing/routes.ts";
import { BillingService } from "./billing/usecases.ts";
import type { GatewayConfig } from "./config.ts";
import { clientErrorHandler, frameworkErrorHandler, installErrorHandler } from "./errors.ts";
import { glossaryRepository } from "./glossary/repository.ts";
import { glossaryRoutes } from "./glossary/routes.ts";
import { GlossaryService } from "./glossary/usecases.ts";
import { refuseUnstorableBody } from "./input.ts";
import type { AudioHandoff } from "./jobs/audio-handoff.ts";
import { exportRoutes } from "./jobs/export-routes.ts";
import { JobExport } from "./jobs/export-usecases.ts";
import { manageRoutes } from "./jobs/manage-routes.ts";
import { jobReadRoutes } from "./jobs/read-routes.ts";
import { jobRepository } from "./jobs/repository.ts";
import { createAudioHandoff, createUploadService } from "./jobs/upload-adapters.ts";
import { uploadRoutes } from "./jobs/upload-routes.ts";
import { usageRoutes } from "./jobs/usage-routes.ts";
import { JobService } from "./jobs/usecases.ts";
import { requestLogSerializers } from "./lib/log-redact.ts";
import { quoteRoutes } from "./quotes/routes.ts";
import { createQuoteService } from "./quotes/usecases.ts";
import { shareRoutes } from "./shares/routes.ts";
import { createShareService } from "./shares/usecases.ts";
import { systemRoutes } from "./system/routes.ts";
import { createTextRunService } from "./text/adapters.ts";
import { textRoutes } from "./text/routes.ts";
import { PartsDataStore, RESUMABLE_PART_BYTES } from "./uploads/data-store.ts";
import { resumableUploadRoutes } from "./uploads/routes.ts";
import { ResumableUploads } from "./uploads/usecases.ts";
import { loadPageRenderer } from "./web/page-meta.ts";
import { securityHeadersHook } from "./web/security-headers.ts";
import { createWorkspace } from "./workspace/adapters.ts";
import { workspaceRoutes } from "./workspace/routes.ts";
import { SocketHub } from "./ws/hub.ts";
import { wsRoutes } from "./ws/routes.ts";

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  db: Db;
  /** Fail-fast connection for commands (rate limits, enqueueing). */
  redis: Redis;
  store: ObjectStore;
  mailer: Mailer;
  /** The registry's queues (producers); by default made on `redis` and closed with the app. */
  jobs?: JobQueues;
  isShuttingDown?: () => boolean;
  now?: () => Date;
}

/**
 * How accepted recordings reach the store (audio-handoff.ts): a failing store is retried for 10
 * minutes; a running hand-off touches its marker every 10 s (one untouched for UPLOAD_HANDOFF_STALE_MS
 * is taken over, checked at start and every minute); a stopping gateway waits up to 20 s for the
 * running ones.
 */
const HANDOFF_TIMINGS = { retryForMs: 10 * 60_000, heartbeatMs: 10_000, drainMs: 20_000 };

export interface Gateway {
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;
  hub: SocketHub;
  auth: AuthService;
  signer: TokenSigner;
  registry: client.Registry;
  /** Readiness checks (database, redis, objectStore); objectStore is in `optionalChecks`. */
  checks: Record<string, Check>;
  optionalChecks: readonly string[];
  isShuttingDown: () => boolean;
}

/**
 * An object-store outage fails uploads and audio downloads with their own errors, but does not take
 * the gateway out of service: sign-in, transcripts and text tools work without it.
 */
export const GATEWAY_OPTIONAL_CHECKS = ["objectStore"] as const;

/** The gateway's ops server: /healthz, the detailed /readyz and /metrics, on OPS_HOST:OPS_PORT. */
export function startGatewayOps(gw: Gateway, opts: { port: number; host: string }): Promise<http.Server> {
  return startOpsServer({
    port: opts.port,
    host: opts.host,
    checks: gw.checks,
    optionalChecks: gw.optionalChecks,
    registry: gw.registry,
    isShuttingDown: gw.isShuttingDown,
  });
}

// biome-ignore lint/suspicious/noExplicitAny: any server type
type AnyApp = FastifyInstance<any, any, any, FastifyBaseLogger, any>;

/**
 * The Fastify instance with what every route relies on: request ids and logging, the error shape,
 * security headers, metrics, OpenAPI, the per-IP rate limit, WebSockets and multipart bodies.
 */
async function createServer(deps: GatewayDeps): Promise<{ app: Gateway["app"]; registry: client.Registry }> {
  const { config } = deps;
  const app = Fastify({
    // Request lines without share tokens or e-mail link tokens in their URL (lib/log-redact.ts).
    loggerInstance: deps.logger.child({}, { serializers: requestLogSerializers }) as FastifyBaseLogger,
    trustProxy: config.TRUST_PROXY,
    // Not taken as sent: genReqId below accepts a caller's x-request-id only when short and safe.
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: "correlationId" }),
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    bodyLimit: 1024 * 1024,
    // Node would answer a missing Host with a bare 400; the hook below answers it in the error shape.
    http: { requireHostHeader: false },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest("auth", null);
  installErrorHandler(app);
  app.addHook("onRequest", async (req) => {
    if (!req.headers.host && req.raw.httpVersion !== "1.0") {
      throw new AppError("VALIDATION_FAILED", "The Host header is required (HTTP/1.1)");
    }
  });
  // No NUL byte or lone surrogate reaches a database, queue or worker (they would fail with a 5xx).
  app.addHook("preValidation", refuseUnstorableBody);
  app.addHook("onSend", securityHeadersHook(config.PUBLIC_URL));
  app.addHook("onSend", async (req, reply) => {
    reply.header("x-request-id", req.id);
  });

  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  instrumentHttp(app, registry);

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: `${config.APP_NAME} API`, version: "1.0.0" },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: "/api/docs" });

  await app.register(fastifyRateLimit, {
    global: false,
    redis: deps.redis,
    nameSpace: `${config.REDIS_PREFIX}:rl-ip:`,
    skipOnError: true,
    errorResponseBuilder: (_req, ctx) =>
      new AppError("RATE_LIMITED", "Too many requests. Please wait and try again.", {
        details: { retryAfterSeconds: Math.ceil(ctx.ttl / 1000) },
      }),
  });
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(fastifyMultipart, {
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 12, fieldSize: 16 * 1024, parts: 16 },
  });
  return { app, registry };
}

export async function buildGateway(deps: GatewayDeps): Promise<Gateway> {
  const { config } = deps;
  const { app, registry } = await createServer(deps);

  // Every queue the gateway adds to, from one place (services/shared/src/jobs.ts), for the use cases below.
  const jobs =
    deps.jobs ?? createJobQueues({ connection: deps.redis, prefix: config.REDIS_PREFIX, logger: deps.logger });
  // Accepted recordings on their way to the store are queued through `jobs`: they go first.
  const handoff = createAudioHandoff(
    { db: deps.db, redis: deps.redis, redisPrefix: config.REDIS_PREFIX, store: deps.store, jobs, logger: deps.logger },
    { ...HANDOFF_TIMINGS, staleMs: config.UPLOAD_HANDOFF_STALE_MS, tmpDir: config.UPLOAD_TMP_DIR },
  );
  handoff.watch(60_000);
  app.addHook("onClose", async () => {
    await handoff.close(HANDOFF_TIMINGS.drainMs);
    if (!deps.jobs) await jobs.close();
  });

  const hub = new SocketHub();
  const revocations = new TokenRevocations(deps.redis, config.REDIS_PREFIX, config.ID_TOKEN_TTL_SECONDS);
  const signer = new TokenSigner(config.JWT_SECRET, config.ID_TOKEN_TTL_SECONDS, revocations);
  const auth = new AuthService({
    repo: authRepository(deps.db),
    signer,
    mailer: deps.mailer,
    store: deps.store,
    logger: deps.logger,
    config,
    now: deps.now,
    onAccountDeleted: (uid) => hub.closeUser(uid),
    revocations,
    onSessionsEnded: (uid, sid) => hub.closeUser(uid, WS_CLOSE_UNAUTHENTICATED, "session ended", sid),
  });
  const socketsGauge = new client.Gauge({
    name: "websocket_open_sockets",
    help: "Authenticated WebSockets open on this gateway",
    registers: [registry],
    collect() {
      this.set(hub.size);
    },
  });
  void socketsGauge;

  const checks: Record<string, Check> = {
    database: () => pingDb(deps.db),
    redis: () => pingRedis(deps.redis),
    objectStore: objectStoreCheck(deps.store),
  };
  const isShuttingDown = deps.isShuttingDown ?? (() => false);
  await app.register(systemRoutes, {
    checks,
    optionalChecks: GATEWAY_OPTIONAL_CHECKS,
    isShuttingDown,
    publicConfig: {
      appName: config.APP_NAME,
      howToUseUrl: config.HOW_TO_USE_URL,
      contactUrl: config.CONTACT_URL,
      termsUrl: config.TERMS_URL,
      privacyUrl: config.PRIVACY_URL,
    },
  });

  // The user's jobs once they exist: read, deleted, retried, exported; and the month's usage.
  const jobService = new JobService({
    repo: jobRepository(deps.db, config.quotas),
    objects: deps.store,
    queues: jobs,
    quotas: config.quotas,
    now: deps.now,
  });
  await registerAccountFeatures(app, deps, { auth, signer, jobs, jobService });
  await registerJobFeatures(app, deps, { signer, jobs, jobService, handoff });
  await app.register(wsRoutes, { signer, hub, maxPerUser: config.WS_MAX_SOCKETS_PER_USER });

  registerWebApp(app, path.resolve(config.WEB_DIST_DIR), config);
  return { app, hub, auth, signer, registry, checks, optionalChecks: GATEWAY_OPTIONAL_CHECKS, isShuttingDown };
}

/** Sign-in and the account, its glossary, usage and plan, and the text tools. */
async function registerAccountFeatures(
  app: Gateway["app"],
  deps: GatewayDeps,
  ctx: { auth: AuthService; signer: TokenSigner; jobs: JobQueues; jobService: JobService },
): Promise<void> {
  const { config } = deps;
  const { auth, signer, jobs, jobService } = ctx;
  await app.register(authRoutes, {
    prefix: "/api/auth",
    auth,
    signer,
    emailLimiter: new EmailRateLimiter(deps.redis, config.REDIS_PREFIX, config.RATE_LIMIT_AUTH_PER_EMAIL_PER_15_MIN),
    loginThrottle: new LoginThrottle(deps.redis, config.REDIS_PREFIX, {
      perSource: config.LOGIN_FAILURES_PER_SOURCE,
      perAccountSource: config.LOGIN_FAILURES_PER_ACCOUNT_SOURCE,
      slowdownAfter: config.LOGIN_SLOWDOWN_AFTER,
      maxDelayMs: config.LOGIN_SLOWDOWN_MAX_MS,
    }),
    perIpPerMinute: config.RATE_LIMIT_AUTH_PER_IP_PER_MINUTE,
  });
  await app.register(accountRoutes, {
    prefix: "/api/auth",
    account: new AccountService({
      repo: accountRepository(deps.db),
      auth,
      signer,
      mailer: deps.mailer,
      logger: deps.logger,
      config,
      now: deps.now,
    }),
    signer,
    perIpPerMinute: config.RATE_LIMIT_AUTH_PER_IP_PER_MINUTE,
  });
  await app.register(glossaryRoutes, {
    prefix: "/api",
    signer,
    glossary: new GlossaryService(glossaryRepository(deps.db)),
  });
  await app.register(usageRoutes, { prefix: "/api", signer, jobs: jobService });
  await app.register(billingRoutes, {
    prefix: "/api",
    signer,
    billing: new BillingService(
      billingServiceRepository({
        billingUrl: config.BILLING_URL,
        internalToken: config.INTERNAL_TOKEN,
        timeoutMs: config.BILLING_TIMEOUT_MS,
      }),
    ),
  });
  await app.register(textRoutes, {
    prefix: "/api",
    signer,
    textRuns: await createTextRunService({
      db: deps.db,
      store: deps.store,
      jobs,
      quotas: config.quotas,
      timeoutMs: config.TEXT_JOB_TIMEOUT_MS,
      publicUrl: config.PUBLIC_URL,
      contactUrl: config.CONTACT_URL,
      logger: deps.logger,
    }),
  });
}

/** The transcriptions: both ways of uploading, reading, exporting, managing and editing a job, quotes and shares. */
async function registerJobFeatures(
  app: Gateway["app"],
  deps: GatewayDeps,
  ctx: { signer: TokenSigner; jobs: JobQueues; jobService: JobService; handoff: AudioHandoff },
): Promise<void> {
  const { config } = deps;
  const { signer, jobs, jobService, handoff } = ctx;
  // One upload use case for both ways in: POST /api/upload and the resumable /api/uploads.
  const uploadService = createUploadService({
    db: deps.db,
    redis: deps.redis,
    redisPrefix: config.REDIS_PREFIX,
    store: deps.store,
    handoff,
    quotas: config.quotas,
    publicUrl: config.PUBLIC_URL,
    retentionDays: config.AUDIO_RETENTION_DAYS,
    decodesPerGateway: config.DECODES_PER_GATEWAY,
  });
  await app.register(uploadRoutes, {
    prefix: "/api",
    redis: deps.redis,
    signer,
    redisPrefix: config.REDIS_PREFIX,
    tmpDir: config.UPLOAD_TMP_DIR,
    uploadLimits: {
      idleMs: config.UPLOAD_IDLE_TIMEOUT_MS,
      totalMs: config.UPLOAD_TIMEOUT_MS,
      perUser: config.UPLOADS_IN_FLIGHT_PER_USER,
    },
    uploads: uploadService,
    speechStatus: () => readSpeechStatus(deps.redis, config.REDIS_PREFIX),
  });
  await app.register(jobReadRoutes, { prefix: "/api", signer, jobs: jobService, store: deps.store });
  await app.register(resumableUploadRoutes, {
    prefix: "/api",
    signer,
    publicUrl: config.PUBLIC_URL,
    idleMs: config.UPLOAD_IDLE_TIMEOUT_MS,
    dataStore: new PartsDataStore({
      db: deps.db,
      store: deps.store,
      partBytes: RESUMABLE_PART_BYTES,
      expiryMs: UPLOAD_EXPIRY_MS,
      logger: deps.logger,
      now: deps.now,
    }),
    resumable: new ResumableUploads({
      db: deps.db,
      store: deps.store,
      uploads: uploadService,
      tmpDir: config.UPLOAD_TMP_DIR,
      now: deps.now,
    }),
  });
  const quotes = createQuoteService({ db: deps.db });
  await app.register(exportRoutes, {
    prefix: "/api",
    signer,
    exports: new JobExport(jobRepository(deps.db, config.quotas), quotes),
  });
  await app.register(quoteRoutes, { prefix: "/api", signer, quotes });
  await app.register(manageRoutes, { prefix: "/api", signer, jobs: jobService });
  await app.register(workspaceRoutes, {
    prefix: "/api",
    signer,
    workspace: createWorkspace({ db: deps.db, redis: deps.redis, redisPrefix: config.REDIS_PREFIX, jobs }),
  });
  await app.register(shareRoutes, {
    prefix: "/api",
    signer,
    store: deps.store,
    shares: createShareService({ db: deps.db, publicUrl: config.PUBLIC_URL, secret: config.JWT_SECRET, now: deps.now }),
    perIpPerMinute: config.RATE_LIMIT_SHARED_PER_IP_PER_MINUTE,
  });
}

/**
 * Serves the built web app when it exists: any other GET outside /api and /ws gets index.html
 * (client-side routing) with the page's title, description and Open Graph tags in its language.
 * Everything else unmatched is a 404 in the contract's error shape.
 */
function registerWebApp(app: AnyApp, dist: string, config: { APP_NAME: string; PUBLIC_URL: string }): void {
  const hasWeb = existsSync(path.join(dist, "index.html"));
  const pages = hasWeb ? loadPageRenderer(dist, config.APP_NAME, config.PUBLIC_URL) : null;
  if (hasWeb) void app.register(fastifyStatic, { root: dist, wildcard: false, index: false });
  else app.log.warn({ dist }, "web app not built: only the API is served (run `npm run build`)");
  app.setNotFoundHandler((req, reply) => {
    const p = req.url.split("?")[0];
    // /metrics lives on the ops port only; here it is a plain 404, not the app's page.
    const isApi = p.startsWith("/api/") || p === "/api" || p === "/ws" || p === "/metrics";
    const isAsset = p.startsWith("/assets/") || /\.[a-z0-9]{2,5}$/i.test(p);
    if (pages && req.method === "GET" && !isApi && !isAsset) {
      // A shared interview's page (/{lang}/shared/{token}) is never indexed.
      if (/^\/[^/]+\/shared\//.test(p)) reply.header("x-robots-tag", "noindex, nofollow");
      return reply.header("cache-control", "no-cache").type("text/html; charset=utf-8").send(pages.render(p));
    }
    return reply.status(404).send(new AppError("NOT_FOUND", `No route for ${req.method} ${p}`).toBody());
  });
}
