# One image for the API (which serves the dashboard's build), the worker and the migration step; the
# command picks the role.
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN npm i -g pnpm@10.34.8
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY apps/api/package.json apps/api/
COPY apps/worker/package.json apps/worker/
COPY apps/dashboard/package.json apps/dashboard/
COPY packages/config/package.json packages/config/
COPY packages/core/package.json packages/core/
COPY packages/schemas/package.json packages/schemas/
COPY packages/db/package.json packages/db/
COPY packages/mail/package.json packages/mail/
COPY packages/providers/package.json packages/providers/
COPY packages/project-state/package.json packages/project-state/
COPY packages/fcm-emulator/package.json packages/fcm-emulator/
COPY packages/client/package.json packages/client/
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm build && pnpm prune --prod --ignore-scripts

FROM node:22-bookworm-slim
ENV NODE_ENV=production
# The worker's metrics listen on every interface of the container (loopback is the default outside one).
ENV METRICS_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 3000
CMD ["node", "apps/api/dist/main.js"]
