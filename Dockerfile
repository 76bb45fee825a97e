# syntax=docker/dockerfile:1
# Mailroom: multi-stage build (compile TypeScript and the dashboard, then a runtime image with
# production dependencies only), running as the unprivileged `node` user. docs/operations.md.

ARG NODE_IMAGE=node:20.20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary; the toolchain is the fallback when none matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# --ignore-scripts: the root `prepare` script builds, and the sources are not copied yet.
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM ${NODE_IMAGE} AS runtime
# Two malloc arenas instead of one per thread (src/cli.ts, docs/decisions.md D49).
ENV NODE_ENV=production \
    MAILROOM_DATA_DIR=/var/lib/mailroom \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The dashboard is served from web/dist next to dist/ (src/dashboard/dashboard.routes.ts).
COPY --from=build /app/web/dist ./web/dist
RUN mkdir -p /var/lib/mailroom && chown node:node /var/lib/mailroom
USER node
VOLUME ["/var/lib/mailroom"]
# HTTPS API and dashboard, SMTP, IMAP (implicit TLS). Map 25 -> 2525 on the host or load balancer.
EXPOSE 8443 2525 9993
# SIGTERM drains (docs/operations.md); give it the 15 s the process allows itself: `docker stop -t 20`.
STOPSIGNAL SIGTERM
# Liveness only: /healthz never touches the database, so a slow dependency does not restart the node.
# HTTPS with the node's own (possibly self-signed) certificate, or plain HTTP behind a TLS proxy.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const p=process.env.MAILROOM_TRUST_PROXY==='1';require(p?'node:http':'node:https').get({host:'127.0.0.1',port:Number(process.env.MAILROOM_HTTP_PORT||8443),path:'/healthz',rejectUnauthorized:false,timeout:4000},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
# The young generation the bin's shebang asks for (src/cli.ts, docs/decisions.md D41, D49).
CMD ["node", "--max-semi-space-size=2", "dist/cli.js", "serve"]
