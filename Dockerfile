# Mostrador: multi-stage image. Build: docker build -t mostrador .
# Run one image per role: ROLE=web (PORT 3000) or ROLE=worker (WORKER_PORT 3001); see docs/operacion.md.

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY docs ./docs
COPY content ./content
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    WORKER_PORT=3001 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The embedded database (no DATABASE_URL) writes in DATA_DIR; the image runs as the unprivileged
# "node" user of the base image.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000 3001
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/src/healthcheck.js"]
# SIGTERM reaches node directly (exec form, PID 1): it drains and exits within SHUTDOWN_TIMEOUT_MS.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
