# syntax=docker/dockerfile:1.7
#
# One image for every Rota process. The image holds the whole built workspace;
# which process a container runs is decided by its command:
#
#   gateway  node apps/gateway/dist/main.js   (the default CMD, HTTP on $PORT)
#   search   node apps/search/dist/main.js
#   session  node apps/session/dist/main.js
#   router   node apps/router/dist/main.js
#   worker   node apps/worker/dist/main.js
#   migrate  node packages/db/dist/migrate-cli.js
#   seed     node packages/db/dist/seed-cli.js
#
#   docker build -t rota .
#   docker run --rm rota node apps/search/dist/main.js
#
# Stages:
#   base       Node 20 on Debian bookworm (slim) with a pinned pnpm
#   manifests  only the files that decide what pnpm installs
#   deps       full install (dev dependencies included) for building
#   build      Prisma client generation and `turbo run build`
#   prod-deps  production-only install of the same lockfile
#   runtime    prod node_modules + compiled dist + migrations, non-root

ARG NODE_IMAGE=node:20.18.1-bookworm-slim

# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS base
ENV CI=true \
    PNPM_STORE=/pnpm/store \
    TURBO_TELEMETRY_DISABLED=1 \
    DO_NOT_TRACK=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    CHECKPOINT_DISABLE=1
RUN npm i -g pnpm@10.34.9 && npm cache clean --force
WORKDIR /app

# ---------------------------------------------------------------------------
# Pull the lockfile, the workspace file and every package.json out of the
# context. This stage re-runs whenever any source file changes, but its output
# is byte-identical unless a manifest changed, so the install layers that
# COPY from it stay cached across ordinary code edits. New workspace packages
# under apps/ or packages/ are picked up without touching this file.
FROM base AS manifests
COPY . /src
RUN mkdir -p /manifests \
 && cd /src \
 && cp package.json pnpm-lock.yaml pnpm-workspace.yaml /manifests/ \
 && find apps packages -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# ---------------------------------------------------------------------------
FROM base AS deps
COPY --from=manifests /manifests/ ./
# The store lives in a cache mount so repeated builds do not download again;
# files are copied out of it, so nothing points outside the layer.
RUN --mount=type=cache,id=rota-pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile --store-dir "$PNPM_STORE"

# ---------------------------------------------------------------------------
FROM deps AS build
COPY . .
# `prisma generate` looks for a schema engine even though it never uses one
# to generate; any executable path keeps it from trying to download it.
ENV PRISMA_SCHEMA_ENGINE_BINARY=/bin/false
RUN bash scripts/prisma-generate.sh
RUN pnpm build
# Gather just what the runtime needs, keeping the repository layout: each
# workspace package's dist/ plus the Prisma folder (schema and migrations;
# the migration runner finds them relative to packages/db/dist).
RUN mkdir -p /out \
 && for d in apps/* packages/*; do \
      if [ -d "$d/dist" ]; then mkdir -p "/out/$d" && cp -a "$d/dist" "/out/$d/"; fi; \
    done \
 && cp -a prisma /out/prisma \
 && test -f /out/apps/gateway/dist/main.js \
 && test -f /out/packages/db/dist/migrate-cli.js \
 && test -d /out/prisma/migrations

# ---------------------------------------------------------------------------
FROM base AS prod-deps
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,id=rota-pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile --prod --store-dir "$PNPM_STORE"

# ---------------------------------------------------------------------------
# No pnpm and no sources here: production node_modules (with the workspace
# symlinks pnpm created) and compiled JavaScript only.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=prod-deps /app/ ./
COPY --from=build /out/ ./
# Files stay owned by root and read-only for the process; the built-in `node`
# user (uid 1000) runs it.
USER node
EXPOSE 3000
STOPSIGNAL SIGTERM
CMD ["node", "apps/gateway/dist/main.js"]
