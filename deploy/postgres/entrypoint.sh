#!/bin/sh
# Makes the cluster on first start (an empty $PGDATA), then runs postgres as PID 1, so that a stop's
# SIGTERM reaches it (a "smart" shutdown: it waits for clients to leave).
set -eu
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
user=${POSTGRES_USER:-flora}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  # The superuser is postgres, reached over the local socket as the OS user of that name only;
  # $user is an ordinary role that owns its database and logs in over TCP with its password.
  initdb --username=postgres --auth-local=peer --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 "$PGDATA" >/dev/null
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  psql -q -v ON_ERROR_STOP=1 -v user="$user" -v pw="$POSTGRES_PASSWORD" --dbname=postgres <<'SQL'
CREATE ROLE :"user" LOGIN PASSWORD :'pw';
CREATE DATABASE :"user" OWNER :"user";
SQL
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres-entrypoint: made the cluster, and the role and database $user"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
