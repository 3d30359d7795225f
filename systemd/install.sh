#!/bin/sh
# Install sowboard as a systemd service on Raspberry Pi OS (run from a checkout, as root):
#
#   sudo systemd/install.sh [pi|serial|sim]     (the load-cell source; default: pi)
#
# Creates the `sowboard` system user (groups gpio, spi, dialout), the data directory
# /var/lib/sowboard, a copy of the source in /opt/sowboard/src with its own venv in
# /opt/sowboard/venv (the board files and the Pico protocol are read from the source tree),
# /etc/sowboard/config.toml (kept if it exists), and the unit sowboard.service.
# Running it again upgrades the code and keeps the configuration and the data.
set -eu

SOURCE_KIND=${1:-pi}
PREFIX=/opt/sowboard
DATA=/var/lib/sowboard
CONF=/etc/sowboard/config.toml
UNIT=/etc/systemd/system/sowboard.service
SRC=$(cd "$(dirname "$0")/.." && pwd)

case "$SOURCE_KIND" in
  pi) EXTRA="[pi]" ;;
  serial) EXTRA="[pi]" ;;
  sim) EXTRA="" ;;
  *) echo "usage: $0 [pi|serial|sim]" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then
  echo "run as root: sudo $0 $SOURCE_KIND" >&2
  exit 1
fi
if [ ! -f "$SRC/pyproject.toml" ] || [ ! -f "$SRC/systemd/sowboard.service" ]; then
  echo "$SRC does not look like a sowboard checkout" >&2
  exit 1
fi

echo "== user and groups"
for group in gpio spi dialout; do
  getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id sowboard >/dev/null 2>&1; then
  useradd --system --user-group --home-dir "$DATA" --no-create-home \
    --shell /usr/sbin/nologin --comment "sowboard board daemon" sowboard
fi
usermod --append --groups gpio,spi,dialout sowboard

echo "== data directory $DATA"
install -d -o sowboard -g sowboard -m 0750 "$DATA"

echo "== code in $PREFIX"
install -d -m 0755 "$PREFIX" "$PREFIX/src"
# A copy, not the checkout itself: the service must not run code a user can still edit.
tar -C "$SRC" --exclude=.git --exclude=.venv --exclude='*.pyc' --exclude=__pycache__ \
  --exclude=.mypy_cache --exclude=.pytest_cache --exclude=.ruff_cache -cf - . \
  | tar -C "$PREFIX/src" -xf -
chown -R root:root "$PREFIX/src"
if [ ! -x "$PREFIX/venv/bin/python" ]; then
  python3 -m venv "$PREFIX/venv"
fi
"$PREFIX/venv/bin/python" -m pip install --quiet --upgrade pip
"$PREFIX/venv/bin/python" -m pip install --quiet -e "$PREFIX/src$EXTRA"
"$PREFIX/venv/bin/python" -m compileall -q "$PREFIX/src/controller" "$PREFIX/src/web_ui" \
  "$PREFIX/src/firmware" >/dev/null || true

echo "== configuration $CONF"
install -d -m 0755 /etc/sowboard
if [ ! -f "$CONF" ]; then
  "$PREFIX/venv/bin/sowboard" run --example-config \
    | sed -e "s/^source = \"sim\"/source = \"$SOURCE_KIND\"/" \
          -e 's/^host = "127.0.0.1"/host = "0.0.0.0"/' > "$CONF.new"
  chmod 0640 "$CONF.new"
  chgrp sowboard "$CONF.new"
  mv "$CONF.new" "$CONF"
  echo "   written (set web.admin_pin to use the admin page)"
else
  echo "   kept"
fi
# Refuse to install a configuration the daemon would refuse at start.
"$PREFIX/venv/bin/python" -c "
import sys
from controller.daemon.config import ConfigError, load_config
try:
    load_config('$CONF', explicit=True)
except ConfigError as err:
    sys.exit(str(err))
"

if [ "$SOURCE_KIND" = pi ] && [ ! -e /dev/spidev0.0 ]; then
  echo "   note: SPI is off, the LEDs on GPIO 10 need dtparam=spi=on in /boot/firmware/config.txt"
fi

echo "== service"
install -m 0644 "$SRC/systemd/sowboard.service" "$UNIT"
systemctl daemon-reload
systemctl enable sowboard.service
systemctl restart sowboard.service
echo "done: systemctl status sowboard; journalctl -u sowboard -f"
