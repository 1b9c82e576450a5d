# SPDX-License-Identifier: GPL-2.0
# Shared settings and helpers for the ci/ scripts; source it, don't run it.
#
# Re-pinning the base tree is one edit: BASE_VERSION and BASE_SHA256.

BASE_PACKAGE=linux-source-7.2
BASE_VERSION=7.2.13-1
BASE_SHA256=30a8c5fc63f9028a62e6d7b3f7f43bee67425dbce2a05fceba83f9b87c92083d

# sparse that understands __typeof_unqual__ (bookworm's 0.6.4 does not),
# built from Debian sid's source package
SPARSE_VERSION=0.6.5~rc1
SPARSE_SHA256=3ac8855ec7f3ab92f325be0f64347ccc2b10f8b4d7c2906783ee8e2bdab3f0de

CI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$CI_DIR")
# Everything a run makes goes to WORK; CACHE outlives the clone.
WORK=${WORK:-$TOP/build}
CACHE=${CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/coresight-ci}
KSRC=$WORK/linux
KOUT=${KOUT:-$WORK/kernel-out}
LOGS=$WORK/logs

export ARCH=arm64
export CROSS_COMPILE=aarch64-linux-gnu-
JOBS=${JOBS:-$(nproc)}

mkdir -p "$WORK" "$CACHE" "$LOGS"

log() { printf '[%s] %s\n' "$(basename "$0" .sh)" "$*"; }
die() { printf '[%s] ERROR: %s\n' "$(basename "$0" .sh)" "$*" >&2; exit 1; }

# The compiler, through ccache when it is installed. Kbuild maps the
# absolute source path out of __FILE__ with the prefix-map options: leave
# them out of the hash so that a clone in another directory hits the cache.
if command -v ccache >/dev/null; then
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	export CCACHE_BASEDIR=$WORK CCACHE_NOHASHDIR=1
	export CCACHE_IGNOREOPTIONS='-fmacro-prefix-map=* -ffile-prefix-map=*'
	KERNEL_CC="ccache ${CROSS_COMPILE}gcc"
else
	KERNEL_CC="${CROSS_COMPILE}gcc"
fi

# Run a host tool (a decoder, checker or reader) for at most $1 seconds:
# bounded SECONDS WHAT CMD... If it hangs, print "WHAT timed out after
# SECONDSs" and fail with timeout's status. The limits are many times
# the tool's time on a slow 2-core machine: they are for hangs only. Not
# --foreground, so that the children of CMD (etedec, perf, objdump) are
# signalled too; KILL 30 s after TERM.
bounded() {
	local secs=$1 what=$2 start=$SECONDS rc=0
	shift 2
	timeout --kill-after=30 "$secs" "$@" || rc=$?
	# 124: ended by TERM; 137: by KILL, which may also be the tool's own death
	if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ $((SECONDS - start)) -ge "$secs" ]; }; then
		echo "$what timed out after ${secs}s" >&2
	fi
	return $rc
}

# The tests that fail in the KTAP logs $@, one per line, sorted, for
# the checks of expected failures (ci/prove-tests-fail.sh). A skip with
# a reason of a machine or kernel without a feature is not a failure.
# Options of ktap-results.py (--allow-skip, --summary) may come first.
failed_tests() {
	{ bounded 300 "ktap-results.py on $*" python3 "$CI_DIR/ktap-results.py" \
		"${EXPECTED_SKIPS[@]}" "$@" || true; } | sed -n 's/^FAILED: //p' | sort -u
}

kmake() {
	make -C "$KSRC" O="$KOUT" -j"$JOBS" CC="$KERNEL_CC" "$@"
}

# Run the command $2... in the series tree with the mutation
# ci/negative/$1.patch applied; the tree is clean again afterwards, also
# when the command fails. Returns the command's status.
with_mutation() {
	local rc=0

	# Called where set -e is off (cmd || die): each step checks itself
	git -C "$KSRC" checkout -q series || return
	git -C "$KSRC" apply "$CI_DIR/negative/$1.patch" || return
	"${@:2}" || rc=$?
	git -C "$KSRC" checkout -q -- .
	return $rc
}

# Append the files of directory $2 to the initramfs $WORK/$1.cpio.gz that
# ci/make-initramfs.sh made: the kernel unpacks concatenated archives
initramfs_append() {
	(cd "$2" && find . | cpio -o -H newc --quiet | gzip -9) >> "$WORK/$1.cpio.gz"
}

# A private apt configuration for Debian sid, so that the machine's own
# sources stay untouched. Only for apt-get download/source, never install.
sid_apt() {
	local d=$CACHE/apt-sid uri
	mkdir -p "$d/lists/partial"
	uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list)
	cat > "$d/sources.list" <<EOT
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri sid main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri sid main
EOT
	SID_APT=(-o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=/dev/null
		 -o Dir::State::Lists="$d/lists" -o APT::Sandbox::User=root)
	[ -n "${SID_UPDATED:-}" ] || apt-get "${SID_APT[@]}" -qq update || die "apt-get update (sid) failed"
	SID_UPDATED=1
}

# The reason the series' perf test gives for its skip on a machine without
# a per-CPU sink (tools/perf/tests/shell/coresight/aux_sample.sh)
PERF_TEST_NO_SINK="no per-CPU sink (TRBE): AUX area sampling needs one"

# The reasons the series' kselftests (tools/testing/selftests/coresight)
# give for their skips: on a machine without a per-CPU sink, every test
# but those of sink_share and aux_pause_orphan; on one without a shared
# sink (the model with TRBEs), those of sink_share; with TRBEs, the one
# test that takes CPU 3 offline, on a kernel without CPU hotplug (the
# debug kernel has it)
KSELFTEST_NO_SINK="no per-CPU sink: no /sys/bus/coresight/devices/trbe*"
KSELFTEST_NO_SHARED_SINK="no shared sink: no /sys/bus/event_source/devices/cs_etm/sinks/{tmc_etr,tmc_etf,etb}*"
KSELFTEST_NO_HOTPLUG="no /sys/devices/system/cpu/cpu3/online: no CPU 3, or no CPU hotplug"
# ... and the tests of AUX sampling, on a kernel that refuses an
# aux_sample_size under a cs_etm leader (the base kernel)
KSELFTEST_NO_AUX_SAMPLING="no AUX area sampling of cs_etm: the kernel refuses an aux_sample_size under a cs_etm leader"
# The skips that failed_tests allows
EXPECTED_SKIPS=(--allow-skip "no CPU hotplug" --allow-skip "$KSELFTEST_NO_HOTPLUG"
		--allow-skip "$KSELFTEST_NO_SINK" --allow-skip "$KSELFTEST_NO_SHARED_SINK")
# The tests that only a machine with a shared sink runs: the kselftest
# stage on the ETR counts them, the one with TRBEs counts the others
KSELFTEST_SHARED_SINK_TESTS='^sink_share\.'

# A private apt configuration for the arm64 packages of the machine's own
# Debian release: static libraries and busybox for the guest's perf
# (ci/fetch-arm64-debs.sh). Only for apt-get download, never install.
arm64_apt() {
	local d=$CACHE/apt-arm64 uri suite
	mkdir -p "$d/lists/partial"
	uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
	suite=$(awk '/^Suites:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list)
	[ -n "$suite" ] || suite=$(awk '$1 == "deb" {print $3; exit}' /etc/apt/sources.list)
	echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
		> "$d/sources.list"
	ARM64_APT=(-o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=/dev/null
		   -o Dir::State::Lists="$d/lists" -o APT::Architecture=arm64
		   -o APT::Architectures::=arm64 -o APT::Sandbox::User=root)
	apt-get "${ARM64_APT[@]}" -qq update || die "apt-get update (arm64) failed"
}

# The postings of ./series, in order, one line each: NAME PATCHES. A
# "# posting: NAME" line starts a posting; a patch before the first one
# is listed as posting "-", which the callers refuse.
series_postings() {
	awk '/^# posting: / {name[++n] = $3; count[n] = 0; next}
	     /^(#|$)/ {next}
	     !n {name[0] = "-"; count[0]++; next}
	     {count[n]++}
	     END {for (i = (0 in name) ? 0 : 1; i <= n; i++) print name[i], count[i]}' "$TOP/series"
}
