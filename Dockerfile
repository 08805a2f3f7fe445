# Runtime image for the service:
#   docker build -t dcfs .
#   docker run --ulimit nofile=65536:65536 -p 8000:8000 dcfs
#
# Every open connection holds a file descriptor, idle ones included, and Deno's server sets
# no idle or header timeout. Deno raises its soft open-file limit to the hard limit at
# start-up, so the hard limit is what counts; some Docker engines give containers 1024.
# `--ulimit nofile=65536:65536` (compose: `ulimits: { nofile: 65536 }`) raises it. The image
# cannot raise it itself: a container may not lift its own hard limit. The service survives
# running out (it logs and serves again), but a reverse proxy in front must still bound idle
# connections: see docs/operations.md, "Running it on the internet".
#
# Official image pinned to exactly Deno 2.9.6. The Debian variant is used on purpose: the
# distroless/alpine variants lack a shell and tools. The tag could not be verified offline;
# the official tag scheme is `denoland/deno:<variant>-<version>`.
FROM denoland/deno:debian-2.9.6

# No network call to check for newer Deno releases (on start-up or on every health check).
ENV DENO_NO_UPDATE_CHECK=1

WORKDIR /app

# The KV store lives outside the image, in a volume the unprivileged `deno` user
# (created by the base image) can write to, including SQLite's -wal/-shm side files.
# Owner and mode must be set before VOLUME: changes made after it are discarded.
RUN mkdir /data && chown deno:deno /data
VOLUME /data
ENV KV_PATH=/data/kv.sqlite3

# Everything from here runs as `deno`, so the dependency cache the base image puts in
# DENO_DIR (/deno-dir, owned by `deno`) is written by the same user that later reads it.
# The app files below stay owned by root: readable by `deno`, but not writable.
USER deno

# Dependencies first, so this layer is reused while only src/ changes. deno.json's import map
# and deno.lock hold only the packages the service runs (zod, the MCP server and the
# OpenTelemetry API: about 15 MB), not the test suite's, which deno.dev.lock holds and the
# image never sees. --frozen: fail the build if deno.lock does not match deno.json.
COPY deno.json deno.lock ./
RUN deno install --frozen

# The catalog imports data/*.json as modules (and reads data/places.v3.bin at start), so data/
# must be present before the module graphs of src/main.ts and of the review CLI
# (`docker exec … deno task review`) are cached.
COPY src/ src/
COPY data/ data/
RUN deno install --frozen --entrypoint src/main.ts src/review/cli.ts

# Docker exports HOSTNAME=<container id> into every container, and src/config.ts reads
# HOSTNAME as the listen address. Pin it, or the server would not listen on 127.0.0.1
# (health check) or on all interfaces.
ENV HOSTNAME=0.0.0.0
ENV PORT=8000
EXPOSE 8000

# curl is not in the image; use Deno's fetch. `deno eval` runs with all permissions.
# --no-config: do not load deno.json/deno.lock for this one-liner.
# Exec form: no shell needed; PORT is read from the container environment at run time.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["deno", "eval", "--no-config", "const r = await fetch('http://127.0.0.1:' + (Deno.env.get('PORT') ?? '8000') + '/healthz', { signal: AbortSignal.timeout(4000) }); Deno.exit(r.ok ? 0 : 1)"]

# The base image's ENTRYPOINT (`/tini -- docker-entrypoint.sh`) execs its arguments, so
# this is `deno task start`: the permission flags live only in deno.json. tini forwards SIGTERM to `deno task`, which passes it on to the
# server for its graceful drain.
CMD ["deno", "task", "start"]
