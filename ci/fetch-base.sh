#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch the pinned base tree: Debian's linux-source package, cached outside
# the clone and checked against its sha256. Debian sid drops old kernel
# versions every week or two; if the pinned one is gone, take the newest
# linux-source-7.2 sid has and say so loudly. Writes $WORK/base.env.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

deb_dir=$CACHE/base
mkdir -p "$deb_dir"
deb=$deb_dir/${BASE_PACKAGE}_${BASE_VERSION}_all.deb

if [ -f "$deb" ] && echo "$BASE_SHA256  $deb" | sha256sum -c --quiet 2>/dev/null; then
	version=$BASE_VERSION
	log "using cached $deb"
else
	sid_apt
	cd "$deb_dir"
	if apt-get "${SID_APT[@]}" -qq download "$BASE_PACKAGE=$BASE_VERSION" 2>/dev/null; then
		version=$BASE_VERSION
		echo "$BASE_SHA256  $deb" | sha256sum -c --quiet ||
			die "$deb does not match the pinned sha256 $BASE_SHA256"
	else
		version=$(apt-cache "${SID_APT[@]}" policy "$BASE_PACKAGE" |
			  awk '/Candidate:/ {print $2}')
		[ -n "$version" ] && [ "$version" != "(none)" ] ||
			die "sid has no $BASE_PACKAGE"
		apt-get "${SID_APT[@]}" -qq download "$BASE_PACKAGE=$version"
		deb=$deb_dir/${BASE_PACKAGE}_${version}_all.deb
	fi
fi

sha=$(sha256sum "$deb" | cut -d' ' -f1)
if [ "$version" != "$BASE_VERSION" ]; then
	echo "BASE DRIFT: pinned $BASE_VERSION unavailable, using $version ($sha)"
fi

# The tarball inside the package is the tree
tarball=$WORK/base/$BASE_PACKAGE.tar.xz
if [ ! -f "$WORK/base/.from-$sha" ]; then
	rm -rf "$WORK/base"
	mkdir -p "$WORK/base"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$BASE_PACKAGE.tar.xz" > "$tarball"
	touch "$WORK/base/.from-$sha"
fi

cat > "$WORK/base.env" <<EOT
BASE_USED_VERSION=$version
BASE_USED_SHA256=$sha
BASE_TARBALL=$tarball
EOT
log "base: $BASE_PACKAGE $version sha256 $sha"
