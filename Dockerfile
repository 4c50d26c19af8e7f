# syntax=docker/dockerfile:1
# The deployable image: the standalone folder (.next/standalone) and Node, nothing else.
# Each step is a command CI runs outside a container (.ci/run → npm test → npm run test:deploy):
#   npm ci → npm run build (next build + server/build-standalone.ts) → node keyhook-start.mjs
# from a copy of .next/standalone. Not built here: these machines have no container engine.

# The runtime: Node 24 LTS, the release in .node-version (a guard test keeps the two equal; dev, CI
# and the tests run on it too, docs/decisions/0017-one-node-runtime.md). Node 20 is past its end of life, and
# 24 spends a fifth less CPU per ingested event (docs/decisions/0015-node-24-runtime.md).
ARG NODE_VERSION=24.22.3

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# Dependencies first (cached while only sources change); postinstall runs `prisma generate`.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000
# V8's young generation kept small, as `npm start` runs the server (server/server-node-options.ts
# says why; a guard test keeps this equal to it).
ENV NODE_OPTIONS=--max-semi-space-size=8
# The traced node_modules, .next, static files, migrations, the wasm schema engine and the two
# entries; owned by root and only readable by the user the server runs as.
COPY --from=build /app/.next/standalone ./
# Next's only writable place (its cache); everything else stays read-only for the server.
RUN mkdir -p .next/cache && chown node:node .next/cache
USER node
EXPOSE 3000
# keyhook-start drains requests in flight on SIGTERM (SHUTDOWN_DRAIN_MS, default 10 s):
# give the container longer than that before a SIGKILL (compose: stop_grace_period).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Applies pending migrations (through DIRECT_DATABASE_URL when set), then serves.
# The worker uses the same image: command ["node", "keyhook-worker.mjs"].
CMD ["node", "keyhook-start.mjs"]
