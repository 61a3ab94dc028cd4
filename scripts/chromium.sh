#!/usr/bin/env bash
# chromium.sh prints the path of a headless-capable Chromium, installing
# Debian's chromium package first when none is on PATH (as root, or with
# sudo). The browser tests run it (internal/chromiumtest).
set -euo pipefail
for c in chromium chromium-browser google-chrome; do
	if p=$(command -v "$c"); then
		printf '%s\n' "$p"
		exit 0
	fi
done
sudo=()
if [[ $(id -u) -ne 0 ]]; then
	sudo=(sudo -n)
fi
# Test packages run at once (go test ./...), and on a fresh machine each
# one's first browser test comes here: one installs while the others wait
# for it, then find what it installed. (Without the lock the second
# apt-get found apt's lists lock taken and failed with status 100.) apt
# waits for dpkg's lock too, should any other apt hold it.
exec 9>"${TMPDIR:-/tmp}/chromium-install.lock"
flock 9
if p=$(command -v chromium); then
	printf '%s\n' "$p"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
{
	"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 update -qq
	"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends chromium
} >&2
command -v chromium
