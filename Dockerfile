# ddz: the Dou Dizhu referee and online service (`ddz serve`) in a container.
#
# Two stages, both Debian 12 (bookworm): the first builds ddz with cmake, the
# second holds only the binary, the browser client and the runtime libraries.
#
# The base images are build arguments. Where an image registry is reachable:
#   docker build --build-arg BASE_BUILD=debian:12 --build-arg BASE_RUN=debian:12-slim -t ddz .
# Where none is (as on this project's machines), make them locally first with
# `bash deploy/podman-setup.sh` (debootstrap + `podman import`), then:
#   podman build --format docker -t ddz .
# (--format docker keeps the HEALTHCHECK, which the OCI format has no field for.)
#
# Run:  docker run -d -p 8080:8080 -v ddz-data:/data ddz
# See docs/deploy.md and deploy/README.md.

ARG BASE_BUILD=localhost/debian:12
ARG BASE_RUN=localhost/debian:12-slim

# ---- build ----
FROM ${BASE_BUILD} AS build
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      gcc libc6-dev cmake ninja-build pkg-config \
      libsodium-dev libjansson-dev libwebsockets-dev libssl-dev libsqlite3-dev libpq-dev \
      libev-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Only what the binary is built from (see .dockerignore), so that a change to
# the tests or the docs does not invalidate the build layer.
COPY CMakeLists.txt ./
COPY rules/ rules/
COPY proto/ proto/
COPY ai/ ai/
COPY service/ service/
COPY web/ web/
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DDDZ_TESTS=OFF \
      -DDDZ_WEB_INSTALL_DIR=/usr/share/ddz/web \
 && ninja -C /build ddz \
 && install -D -m 0755 -s /build/ddz /usr/local/bin/ddz \
 && /usr/local/bin/ddz rules deal --seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f >/dev/null

# ---- run ----
FROM ${BASE_RUN}
ARG DEBIAN_FRONTEND=noninteractive
# libwebsockets17 is Debian 12's libwebsockets 4.1.6; libwebsockets-evlib-ev
# is its libev plugin, the epoll loop (without it ddz falls back to poll()
# and says so). curl is only for the HEALTHCHECK (it also speaks HTTPS when
# DDZ_TLS_CERT is set).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libsodium23 libjansson4 libwebsockets17 libwebsockets-evlib-ev libev4 libsqlite3-0 libpq5 \
      libssl3 ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
# A fixed numeric uid, so that Kubernetes can check runAsNonRoot and a host
# directory mounted at /data can be chowned to it (chown 10001:10001 DIR).
RUN groupadd --system --gid 10001 ddz \
 && useradd --uid 10001 --gid ddz --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin ddz \
 && mkdir -p /data \
 && chown ddz:ddz /data
COPY --from=build /usr/local/bin/ddz /usr/local/bin/ddz
COPY --from=build /src/web/ /usr/share/ddz/web/

LABEL org.opencontainers.image.title="ddz" \
      org.opencontainers.image.description="Dou Dizhu (CAAI 1.0) referee and online service" \
      org.opencontainers.image.documentation="docs/deploy.md"

ENV DDZ_DB=/data/ddz.db DDZ_BIND=0.0.0.0 DDZ_PORT=8080
VOLUME /data
WORKDIR /data
EXPOSE 8080
USER 10001:10001
# ddz serve stops cleanly on SIGTERM: it tells every client `bye`, records
# games in progress as aborted, drains for up to 2 s and closes the database.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD scheme=http; [ -z "$DDZ_TLS_CERT" ] || scheme=https; \
      curl -fsSk --max-time 4 -o /dev/null "$scheme://127.0.0.1:${DDZ_PORT:-8080}/healthz" || exit 1
ENTRYPOINT ["ddz"]
CMD ["serve"]
