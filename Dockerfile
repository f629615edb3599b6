# Build stage: compiles TypeScript and the better-sqlite3 native module.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

# Runtime stage: the compiled service and production dependencies only. NODE_ENV=production keeps
# the logs JSON even under `docker run -t`. The same image runs the CLI and the `follow` worker:
#   docker run … chaintags node dist/src/cli/main.js <command>
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
# On SIGTERM the server answers the requests in flight (up to 10 s), closes and exits 0; node is
# started directly (exec form), so the signal reaches it. Run with --init (compose: init: true) so
# that a second signal can end it at once.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
