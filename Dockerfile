# syntax=docker/dockerfile:1
# The Parapet gateway as a container (docs/deployment.md "Containers"). Three stages:
#   build   - every dependency (TypeScript, Vite), compiles src/ to dist/ and the console to dist/console;
#   deps    - production dependencies only (npm ci --omit=dev), the native SQLite binding built here;
#   runtime - dist/, the shipped data files and deps' node_modules, as the unprivileged user `node`.
# Build from the repository root: docker build -t parapet .
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 falls back to compiling when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would compile before the sources are copied; the one native
# dependency is built explicitly.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY console ./console
# The gateway, then the console into dist/console (what `npm run build` does).
RUN npx tsc -p tsconfig.build.json && npx vite build --config console/vite.config.ts

FROM ${NODE_IMAGE} AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm rebuild better-sqlite3 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    PARAPET_DATA_DIR=/var/lib/parapet
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# What package.json "files" ships: the CLI shim, protobuf definitions, packs, models, catalogues, schemas.
COPY package.json parapet.example.yaml README.md CHANGELOG.md ./
COPY bin ./bin
COPY proto ./proto
COPY packs ./packs
COPY models ./models
COPY catalogue ./catalogue
COPY schemas ./schemas
# The data directory (evidence files, a minted admin token, a generated secret key when
# PARAPET_SECRET_KEY is unset) belongs to the runtime user; mount a volume here.
RUN mkdir -p /var/lib/parapet && chown node:node /var/lib/parapet
USER node
EXPOSE 8080
VOLUME ["/var/lib/parapet"]
# Liveness as CONTRACT.md defines it: GET /health without a credential answers {"status":"ok"} or 503.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations run at start under a lock, so replicas may start together; SIGTERM drains.
CMD ["node", "bin/parapet.js", "serve"]
