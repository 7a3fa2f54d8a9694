#!/bin/sh
# `postgres [ARGS]`: the official image's first start (a cluster for POSTGRES_USER with
# POSTGRES_PASSWORD, the database POSTGRES_DB, password logins from the network), then the server.
# `redis-server ARGS`: as the official image, protected mode off unless ARGS set it (otherwise Redis
# refuses clients from other containers when no password is set). Anything else runs as given.
set -eu
if [ "${1:-}" = "postgres" ]; then
  shift
  user="${POSTGRES_USER:-postgres}"
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile="$(mktemp)"
    printf '%s' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >"$pwfile"
    initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    if [ "${POSTGRES_DB:-$user}" != "postgres" ]; then
      echo "CREATE DATABASE \"${POSTGRES_DB:-$user}\" OWNER \"$user\";" | postgres --single -D "$PGDATA" postgres >/dev/null
    fi
  fi
  exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
if [ "${1:-}" = "redis-server" ]; then
  case " $* " in
    *" --protected-mode "*) ;;
    *) set -- "$@" --protected-mode no ;;
  esac
fi
exec "$@"
