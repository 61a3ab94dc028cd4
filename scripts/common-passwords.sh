#!/usr/bin/env bash
# Writes dynamic/accounts/common-passwords.txt: the passwords of zxcvbn's
# frequency list (npm package zxcvbn, MIT licence, pinned) that are long
# enough to pass the minimum length, one a line, most common first. Sign-up
# refuses them. Run by hand when the pin changes; the output is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=4.4.2
min=8
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "zxcvbn@$version" >/dev/null && tar xzf "zxcvbn-$version.tgz")
out=dynamic/accounts/common-passwords.txt
{
	echo "# Common passwords of at least $min characters, from zxcvbn $version (npm), most common first."
	sed -n 's/^ *passwords: "\([^"]*\)".*/\1/p' "$tmp/package/lib/frequency_lists.js" | tr ',' '\n' | awk -v m="$min" 'length($0) >= m'
	echo "#"
	sed 's/^/# /' "$tmp/package/LICENSE.txt"
} >"$out"
echo "wrote $out ($(grep -vc '^#' "$out") passwords)"
