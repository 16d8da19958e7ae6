#!/bin/sh
# Installs this built checkout as the systemd service (docs/systemd.md): run as root from the checkout after
# `npm run build`. It copies the build and its dependencies to /opt/agent-gate, never a database, an env file or the
# git history (data/app.db of a checkout is the demo database, whose members share a known password); keeps the data
# of an earlier install; gives the service account its data directory and everything in it (a file root made there,
# such as a database log written by a command run as root, would stop the service); creates the env file once (0600,
# root's); and installs the unit. Nothing is started.
#
#   DESTDIR       a root to install under instead of / (tests use a temporary one)
#   SERVICE_USER  the account the service runs as (default agent-gate: useradd --system agent-gate)
#   APP_OWNER     the owner of the installed code (default root; the service cannot change its own code)
set -eu
cd "$(dirname "$0")/.."
DESTDIR="${DESTDIR:-}"
SERVICE_USER="${SERVICE_USER:-agent-gate}"
APP_OWNER="${APP_OWNER:-root}"
APP="$DESTDIR/opt/agent-gate"
ETC="$DESTDIR/etc/agent-gate"
UNITS="$DESTDIR/etc/systemd/system"

if [ ! -f .next/BUILD_ID ] || [ ! -f dist/server.mjs ]; then
  echo "install.sh: no production build here: run npm install && npm run build first" >&2
  exit 1
fi
mkdir -p "$APP/data" "$ETC" "$UNITS"
# A new build replaces the old one whole (no stale chunks); data/ stays.
find "$APP" -mindepth 1 -maxdepth 1 ! -name data -exec rm -rf {} +
tar -cf - --exclude=./data --exclude=./.git --exclude=./.tmp --exclude='./.env*' --exclude='*.db' --exclude='*.db-wal' \
  --exclude='*.db-shm' --exclude='*.db-journal' --exclude=./test-results --exclude=./playwright-report --exclude=./bench/results . |
  tar -xf - -C "$APP"
chown -R "$APP_OWNER:" "$APP"
chown -R "$SERVICE_USER:" "$APP/data"
chmod 0700 "$APP/data"
if [ ! -e "$ETC/env" ]; then
  install -m 0600 /dev/null "$ETC/env"
  chown "$APP_OWNER:" "$ETC/env"
fi
install -m 0644 deploy/agent-gate.service "$UNITS/agent-gate.service"
echo "install.sh: installed in $APP; next: edit $ETC/env, then systemctl daemon-reload && systemctl enable --now agent-gate"
