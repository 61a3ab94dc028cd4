#!/usr/bin/env bash
# chromium.sh prints the path of a headless-capable Chromium, installing
# Debian's chromium package first when none is on PATH (as root, or with
# sudo). The browser test of the approval page runs it.
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
export DEBIAN_FRONTEND=noninteractive
{
	"${sudo[@]}" apt-get update -qq
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium
} >&2
command -v chromium
