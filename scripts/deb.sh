#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# deb.sh [-l] - build the Debian packages rocetune and rocetune-dkms from
# the working tree into build/deb/ (binary packages only, unsigned), with
# debhelper and dh-dkms.  The package version is the VERSION file's: the
# tree is copied to build/deb/src/rocetune-VERSION/ and debian/changelog is
# written there.  With -l, also run lintian on the result and fail on any
# error or warning.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
lint=0
[ "${1:-}" = -l ] && lint=1
version=$(cat "$top/VERSION")
out=$top/build/deb
src=$out/src/rocetune-$version

rm -rf "$out"
mkdir -p "$src"
# The tree as it is (tracked and new files), without build products.
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		[ ! -e "$f" ] || printf '%s\0' "$f"
	done | cpio --null -pdm --quiet "$src")

# A native package: VERSION is the version; the date is the last commit's.
date=$(git -C "$top" log -1 --format=%aD 2> /dev/null || date -R)
cat > "$src/debian/changelog" << EOF
rocetune ($version) unstable; urgency=medium

  * Built from the rocetune tree (see its git history).

 -- rocetune maintainers <maintainers@users.noreply.a-seed-fba47173.example>  $date
EOF

(cd "$src" && dpkg-buildpackage -b -us -uc --no-pre-clean > "$out/build.log" 2>&1) || {
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed, see ${out#"$top"/}/build.log" >&2
	exit 1
}
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
rm -rf "$out/src"
ls -1 "$out"/*.deb

if [ "$lint" = 1 ]; then
	# --fail-on warning: errors and warnings fail; info and pedantic are
	# shown only.
	lintian --fail-on error,warning --info "$out"/*.changes
fi
