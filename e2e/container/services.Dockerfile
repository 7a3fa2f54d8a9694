# Test stand-in for the postgres:17 and redis:7 images on a machine without Docker Hub: Debian's
# PostgreSQL and Redis on the locally built base image, with an entrypoint that accepts what
# compose.yaml gives the official images (POSTGRES_* variables, `redis-server ...` commands).
ARG BASE_IMAGE=superstep-base:local
FROM ${BASE_IMAGE}
# No cluster from the package's post-install script: the entrypoint makes one in PGDATA.
RUN mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/no-main.conf \
 && apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends postgresql-15 redis-server >/dev/null \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql /data \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql /data
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
COPY services-entrypoint.sh /usr/local/bin/services-entrypoint.sh
USER postgres
WORKDIR /data
ENTRYPOINT ["/bin/sh", "/usr/local/bin/services-entrypoint.sh"]
CMD ["postgres"]
