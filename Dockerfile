# The studio as a container image. Three stages on one base image (a build argument, so that a
# machine without Docker Hub can pass a locally built one: scripts/build-base-image.sh):
#   build   every dependency (npm ci), then the backend (tsc) and the UI (vite);
#   deps    the backend's production dependencies only;
#   runtime those dependencies, the compiled backend and the built UI, run as a non-root user.
# `docker run IMAGE` serves the API and UI (`superstep start`); `docker run IMAGE worker` runs a
# worker (`superstep worker`). See docs/en/deploy.md.
ARG BASE_IMAGE=node:24-bookworm-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /src
# Manifests first: the install layer is reused until the lockfile changes.
COPY package.json package-lock.json ./
COPY backend/package.json backend/
COPY frontend/package.json frontend/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY backend backend
COPY frontend frontend
RUN npm run build -w backend && npm run build -w frontend

FROM ${BASE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY backend/package.json backend/
COPY frontend/package.json frontend/
# The backend's runtime dependencies alone: no compilers, test tools or UI libraries.
RUN npm ci --omit=dev --workspace backend --no-audit --no-fund && npm cache clean --force

FROM ${BASE_IMAGE} AS docker-cli
# The Docker CLI alone, for repo import (the sandbox drives the host's engine through its socket):
# taken out of Debian's docker.io package, without the daemon and the packages it needs.
RUN apt-get update -qq \
 && cd /tmp && apt-get download -qq docker.io \
 && dpkg-deb -x docker.io_*.deb /tmp/docker.io \
 && cp /tmp/docker.io/usr/bin/docker /usr/local/bin/docker \
 && /usr/local/bin/docker --version

FROM ${BASE_IMAGE} AS runtime
# Listen on every interface of the container (the default, 127.0.0.1, is unreachable through a
# published port); the database and encryption key live under /data unless DATABASE_URL says.
ENV NODE_ENV=production \
    STUDIO_HOST=0.0.0.0 \
    STUDIO_PORT=8080 \
    STUDIO_WORKER_HEALTH_PORT=8081 \
    STUDIO_DATA_DIR=/data
# git clones an imported repository in the API process (repo import, off unless enabled).
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends git >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
COPY --from=docker-cli /usr/local/bin/docker /usr/local/bin/docker
RUN groupadd --system --gid 10001 superstep \
 && useradd --system --uid 10001 --gid superstep --home-dir /data --no-create-home --shell /usr/sbin/nologin superstep \
 && mkdir -p /data && chown superstep:superstep /data
WORKDIR /app
COPY --from=deps /app /app
COPY backend/bin backend/bin
COPY --from=build /src/backend/dist backend/dist
COPY --from=build /src/frontend/dist frontend/dist
COPY docker/healthcheck.mjs docker/healthcheck.mjs
RUN ln -s /app/backend/bin/superstep.js /usr/local/bin/superstep
USER superstep:superstep
VOLUME /data
EXPOSE 8080 8081
# One check for both roles: /api/health for `start`, the worker's liveness port for `worker`.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/app/docker/healthcheck.mjs"]
ENTRYPOINT ["superstep"]
CMD ["start"]
