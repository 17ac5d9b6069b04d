#!/usr/bin/env bash
# Follows the install section of keydeck-exporter.service line by line, as root, in a fresh Debian 12
# chroot, then checks what it made: `systemd-analyze verify` accepts the installed unit, and the
# program of its ExecStart= prints keydeck's version. Opt-in (it needs root, a debootstrap of
# Debian 12 and the network to Debian's and npm's registries; about 3 minutes with the base cached):
#
#   contrib/systemd/install-check.sh BASE TARBALL
#
# BASE: a `debootstrap --variant=minbase bookworm BASE` made once (copied afresh for each run, never
# changed); TARBALL: the packed keydeck (`npm run pack`), which replaces the registry's `keydeck` in
# the npm install line. Exit 0 when every line worked and both checks pass; the line that failed
# otherwise. test/package/install.test.ts runs it where KEYDECK_DEBOOTSTRAP_BASE names a base.
set -euo pipefail
base=${1:?usage: install-check.sh BASE TARBALL}
tarball=$(realpath "${2:?usage: install-check.sh BASE TARBALL}")
here=$(cd "$(dirname "$0")" && pwd)
unit="$here/keydeck-exporter.service"
[ "$(id -u)" = 0 ] || { echo "install-check: run it as root (chroot, mount)" >&2; exit 2; }
[ -x "$base/bin/bash" ] || { echo "install-check: $base is not a debootstrap of Debian" >&2; exit 2; }

root=$(mktemp -d /tmp/keydeck-install-XXXXXX)
cleanup() {
  for m in proc dev/pts dev; do umount -l "$root/$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
cp -a "$base/." "$root/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# This machine's own trust, as its name resolution: extra CA certificates (a TLS-inspecting egress)
# go where Debian's ca-certificates takes them up, and Node.js is told to trust that bundle too.
mkdir -p "$root/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
extra_ca=()
[ -n "${NODE_EXTRA_CA_CERTS:-}" ] && extra_ca=(NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t proc proc "$root/proc"

# A Debian server runs systemd; a minbase debootstrap has none: installed first, as Debian has it.
if [ ! -x "$root/usr/bin/systemctl" ]; then
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive /bin/bash -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends systemd systemd-sysv >/dev/null'
fi

# No systemd runs in a chroot (it is not PID 1 there): systemctl's verbs that talk to it are said
# and skipped (daemon-reload, --now), and enable is done offline (--root=/), as on a stopped system.
cat > "$root/usr/local/sbin/systemctl" <<'SHIM'
#!/bin/sh
[ "$1" = daemon-reload ] && { echo "install-check: no systemd runs in a chroot: daemon-reload skipped"; exit 0; }
args=""
for a in "$@"; do [ "$a" = --now ] && echo "install-check: no systemd runs in a chroot: --now skipped" || args="$args $a"; done
exec /usr/bin/systemctl --root=/ $args
SHIM
chmod 0755 "$root/usr/local/sbin/systemctl"

# What the lines read from their working directory: the unit, a config, one profile's token.
work="$root/root/install"
mkdir -p "$work"
cp "$unit" "$work/"
cp "$tarball" "$work/"
printf '{ "version": 1, "profiles": { "prod": { "baseUrl": "https://api.example.com" } } }\n' > "$work/config.json"
printf 'mk_%s\n' "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" > "$work/prod.token"

# The install section: the comment lines indented by three spaces after "# Install, as root", to the next "#".
mapfile -t lines < <(awk '/^# Install, as root/ { on = 1; next } on && /^#$/ { exit } on && /^#   / { print substr($0, 5) }' "$unit")
[ "${#lines[@]}" -gt 5 ] || { echo "install-check: no install section found in $unit" >&2; exit 1; }
n=0
for line in "${lines[@]}"; do
  n=$((n + 1))
  # The registry's keydeck is the packed one here.
  line=${line/% keydeck/ \/root\/install\/$(basename "$tarball")}
  echo "install-check: line $n: $line"
  if ! chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "${extra_ca[@]}" /bin/bash -c "cd /root/install && $line"; then
    echo "install-check: line $n failed: $line" >&2
    exit 1
  fi
done

installed="$root/etc/systemd/system/keydeck-exporter.service"
[ -f "$installed" ] || { echo "install-check: the unit is not in /etc/systemd/system" >&2; exit 1; }
[ -L "$root/etc/systemd/system/multi-user.target.wants/keydeck-exporter.service" ] || { echo "install-check: the unit is not enabled" >&2; exit 1; }
echo "install-check: systemd-analyze verify"
out=$(systemd-analyze verify --root="$root" /etc/systemd/system/keydeck-exporter.service 2>&1) || { echo "$out" >&2; exit 1; }
[ -z "$out" ] || { echo "$out" >&2; exit 1; }
# ExecStart='s program and script, with --version in place of its arguments.
read -r program script _ < <(sed -n 's/^ExecStart=//p' "$installed")
version=$(chroot "$root" "$program" "$script" --version)
echo "install-check: ExecStart prints $version"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || exit 1
echo "install-check: ok"
