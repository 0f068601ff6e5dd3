# syntax=docker/dockerfile:1.7-labs@sha256:b99fecfe00268a8b556fad7d9c37ee25d716ae08a5d7320e6d51c4dd83246894
#
# One image for the whole platform: the `flotilla` CLI starts every piece.
#
#   docker build -t flotilla .
#   docker run --rm -p 8080:8080 -e FLOTILLA_ARGOCD_TOKEN=dev-token flotilla sim argocd
#   docker run --rm -p 8091:8091 -e FLOTILLA_ARGOCD_URL=... -e FLOTILLA_ARGOCD_TOKEN=... flotilla mcp argocd
#   docker run --rm -e FLOTILLA_COMPONENT='mcp argocd' ... flotilla     # piece from the environment instead
#
# The 1.7-labs syntax is for `COPY --parents` (below); it needs BuildKit (the default builder since Docker 23). That
# frontend is an image too, pinned by digest like the base image below (update it the same way, with
# docker/dockerfile:1.7-labs as the name).

# The base image of both stages, pinned by digest: a tag moves (every rebuild would take whatever it names that day,
# a poisoned push included), a digest names exactly one image. The tag is kept for people, the digest is what is
# pulled. To update (monthly, and for every Node or Debian security release): run
#   docker buildx imagetools inspect node:20-bookworm-slim     (the "Digest:" line)
# or `crane digest node:20-bookworm-slim`, put the new sha256 here, rebuild and run the tests. A test
# (packages/observability/src/chart.test.ts) fails when a FROM is not pinned by a sha256 digest.
ARG NODE_IMAGE=node:20-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0

# ---------------------------------------------------------------------------------------------------------------
# build: install everything, compile every package, then cut a production-only tree for @flotilla/cli.
# ---------------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
ENV CI=true
# Not corepack: its signature check fails on registry mirrors that re-sign packages.
RUN npm install --global pnpm@10.34.8
WORKDIR /src

# Manifests first, so the dependency layer is rebuilt only when a manifest or the lockfile changes, not on
# every source edit. A plain COPY cannot glob across directories and keep the structure (it would flatten every
# package.json into one), hence `COPY --parents`, which keeps packages/<name>/package.json etc. in place.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
# The dependency patches pnpm applies at install (pnpm-workspace.yaml: patchedDependencies).
COPY patches ./patches
COPY --parents packages/*/package.json agents/*/package.json test/package.json ./
RUN --mount=type=cache,id=flotilla-pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile --store-dir /pnpm/store

# Then the sources (.dockerignore keeps node_modules, dist and local state out), the build, and the bundle the image
# runs: packages/cli/dist/bundle/flotilla.mjs, the CLI and every package it imports as one minified ES module (a
# chunk for each part only some commands load). A piece then loads a few dozen files instead of ~1,350 and an idle
# agent holds ~12 MB less heap; see packages/cli/src/bundle.ts.
COPY . .
RUN pnpm build && node packages/cli/dist/bundle.js

# A self-contained production tree of the CLI: its package.json and dist (the bundle included), and a node_modules
# holding only production dependencies, workspace packages copied in (their `files`: dist only) rather than
# symlinked. The bundle needs only js-tiktoken's rank files from it; dist/main.js (unbundled) runs from it too.
# --legacy because the workspace does not use inject-workspace-packages; third-party versions still come from
# pnpm-lock.yaml.
RUN --mount=type=cache,id=flotilla-pnpm-store,target=/pnpm/store \
    pnpm --filter @flotilla/cli deploy --prod --legacy --store-dir /pnpm/store /prod/cli \
 && test -f /prod/cli/dist/bundle/flotilla.mjs

# ---------------------------------------------------------------------------------------------------------------
# runtime: node + tini + the production tree; runs as uid 10001; only /var/lib/flotilla is written to.
# ---------------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime

# tini as PID 1: forwards SIGTERM/SIGINT to node (a bare node as PID 1 gets no default signal handlers, so
# Kubernetes' SIGTERM would be ignored until SIGKILL) and reaps zombies.
# The package managers of the base image (npm, npx, corepack, yarn) are never used at run time: removed, so the
# image carries less code and fewer CVEs.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*

RUN groupadd --system --gid 10001 flotilla \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/flotilla --no-create-home \
      --shell /usr/sbin/nologin flotilla \
 && install -d -o 10001 -g 10001 -m 0750 /var/lib/flotilla

# Application files stay owned by root and are not writable by the runtime user, so the image runs unchanged
# with readOnlyRootFilesystem: true. (Commands that need a scratch directory, such as `flotilla demo`, use
# os.tmpdir(): mount an emptyDir at /tmp in that case.)
COPY --from=build /prod/cli /app/packages/cli
COPY --chmod=0755 deploy/docker/docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh

# Defaults for a container; every one can be overridden with -e or the pod spec.
#   FLOTILLA_HOST: listen on all interfaces (the CLI's default is loopback, right for a laptop, wrong here).
#   FLOTILLA_DATA_DIR: spilled tool results go to the data volume (read by the domain agents and the MCP servers;
#     the supervisor and the Slack bot ignore it).
#   FLOTILLA_HEAP_PERCENT: share of the memory limit given to the V8 heap (see docker-entrypoint.sh).
ENV NODE_ENV=production \
    FLOTILLA_HOST=0.0.0.0 \
    FLOTILLA_DATA_DIR=/var/lib/flotilla/results \
    FLOTILLA_HEAP_PERCENT=75

# The working directory is the data directory, so any relative path a piece writes lands on the volume and
# never in the read-only application tree.
WORKDIR /var/lib/flotilla
VOLUME ["/var/lib/flotilla"]
USER 10001:10001

# Default ports, each also serving /metrics, /healthz and /readyz: 8090 supervisor (`supervisor`), 8092 Argo CD agent
# (`agent argocd`) and 8094 NetBox agent (`agent netbox`), all A2A; 8095 Slack bot (`slack`: /slack/events in HTTP
# mode, only the probes and /metrics in Socket Mode); 8091 and 8093 the Argo CD and NetBox MCP servers
# (`mcp argocd|netbox`: /mcp). 8080 and 8000: the Argo CD and NetBox simulators (`sim argocd|netbox`).
EXPOSE 8090 8091 8092 8093 8094 8095 8080 8000

# No HEALTHCHECK: the image runs under Kubernetes, whose liveness/readiness probes (defined in the Helm chart)
# decide health and restarts; Docker's HEALTHCHECK is ignored there. Different pieces also serve different
# endpoints, so one image-wide check command would be wrong for some of them.

ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/docker-entrypoint.sh"]
# No CMD: the piece comes from the arguments (`docker run IMAGE mcp argocd`) or FLOTILLA_COMPONENT; with
# neither, the CLI prints its help.
