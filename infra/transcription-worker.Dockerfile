# syntax=docker/dockerfile:1
# Transcription worker (speech to text; consumes the transcription and transcription-chunk queues).
# Build from the repository root:
#   docker build -f infra/transcription-worker.Dockerfile -t kikitori/transcription-worker .
ARG NODE_IMAGE=node:20-bookworm-slim

# --- deps: the whole workspace at the versions of package-lock.json; postinstall generates the Prisma
# client. `npm install` rather than `npm ci`: the lock carries only the linux-x64 builds of
# platform-split packages (Biome, SWC, esbuild), which `npm ci` refuses (see README, "The two commands").
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV CHECKPOINT_DISABLE=1 PRISMA_SCHEMA_ENGINE_BINARY=/bin/false npm_config_update_notifier=false
COPY package.json package-lock.json .npmrc prisma.config.ts ./
COPY prisma ./prisma
COPY services/shared/package.json services/shared/
COPY services/gateway/package.json services/gateway/
COPY services/transcription-worker/package.json services/transcription-worker/
COPY services/correction-worker/package.json services/correction-worker/
COPY services/billing/package.json services/billing/
COPY web/package.json web/
RUN npm install --no-audit --no-fund

# --- build: sources, then drop dev dependencies (tsx, the TypeScript loader the services run with, is a
# runtime dependency). infra/wait-for-migrations.ts is the init step of the Kubernetes pods.
FROM deps AS build
COPY tsconfig.base.json tsconfig.json ./
COPY scripts ./scripts
COPY infra/wait-for-migrations.ts ./infra/
COPY services ./services
RUN npm prune --omit=dev --no-audit --no-fund && rm -rf /root/.npm

# --- runtime: code owned by root (read-only for the app), process runs as `node` (uid 1000).
FROM ${NODE_IMAGE} AS runtime
# ffmpeg decodes and cuts the uploads; pocketsphinx (+ its US English model) is the on-box speech recogniser.
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg pocketsphinx pocketsphinx-en-us bzip2 \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production OPS_HOST=0.0.0.0 OPS_PORT=3101
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /app/var /models && chown node:node /app/var /models
USER node
EXPOSE 3101
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.OPS_PORT||3101)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "tsx", "services/transcription-worker/src/main.ts"]
