# syntax=docker/dockerfile:1
# Multi-stage image: dependencies installed with npm (Bun comes pinned from the npm registry),
# then a slim oven/bun runtime running as an unprivileged user with a data volume.

FROM oven/bun:1.4.5-debian AS deps
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM oven/bun:1.4.5-debian AS runtime
# util-linux supplies unshare, setpriv and prlimit for the executor sandbox (DESIGN §10).
RUN apt-get update && apt-get install -y --no-install-recommends util-linux tini && rm -rf /var/lib/apt/lists/* \
 && groupadd --system platform && useradd --system --gid platform --home /app --shell /usr/sbin/nologin platform \
 && mkdir -p /data && chown platform:platform /data && chmod 0700 /data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY runtime ./runtime
# MIMALLOC_PURGE_DELAY=-1: Bun's allocator keeps freed pages for reuse instead of handing them
# back to the kernel (the npm start scripts set the same; README, Configuration).
ENV NODE_ENV=production \
    DATA_DIR=/data \
    DATABASE_URL=sqlite:/data/platform.db \
    PORT=8080 \
    RUNTIME_PORT=8081 \
    MIMALLOC_PURGE_DELAY=-1
VOLUME ["/data"]
EXPOSE 8080 8081
# Process isolation fails closed: the server refuses to start when a sandbox layer is missing
# (README, Security). Full isolation in a container needs the server as root inside it (each host
# drops to an unprivileged user, in its own pid, network, IPC and mount namespaces, under its own
# seccomp filter) and a container allowed to make namespaces and mounts:
#   docker run --cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined …
# (or a seccomp profile that permits unshare, clone with namespace flags, mount and pivot_root).
# Without them, start with COMPONENT_ISOLATION_DEGRADED=allow (/readyz names what is missing), or
# COMPONENT_ISOLATION=worker for trusted code only; with --user platform, the private-/tmp layer
# is missing (it needs root).
USER root
HEALTHCHECK --interval=15s --timeout=3s CMD bun -e "fetch('http://127.0.0.1:8080/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["bun", "--max-http-header-size=131072", "src/main.ts"]
