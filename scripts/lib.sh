# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the sroce scripts. Source it; do not run it.

SROCE_TOP=${SROCE_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SROCE_CACHE=${SROCE_CACHE:-/var/cache/sroce}
SROCE_TARGETS_ALL="deb12 deb13 bpo debug"
export SROCE_TOP SROCE_CACHE

die() { echo "sroce: error: $*" >&2; exit 1; }
log() { echo "sroce: $*" >&2; }

# sroce_need_gnuplot: gnuplot-nox installed (the plots of make bench and
# scripts/incast.sh), from the host's apt sources.
sroce_need_gnuplot() {
	dpkg-query -W -f='${Status}\n' gnuplot-nox 2>/dev/null | grep -q 'ok installed' && return
	log "installing gnuplot-nox"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		gnuplot-nox >&2 || { apt-get update -qq >&2 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends gnuplot-nox >&2; }
}

# Serialise the setup steps that write to the cache: two make invocations
# (or a CI run next to a developer's) must not debootstrap into one dir.
sroce_lock() {
	mkdir -p "$SROCE_CACHE"
	exec 9>"$SROCE_CACHE/.lock"
	flock 9
}

# The Debian mirror the host's apt already uses, read from its sources
# (deb822 or one-line format); never written into any file of the repo.
sroce_mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk '
			/^[[:space:]]*$/ { if (u != "" && s ~ /(^| )(bookworm|trixie|stable)( |$)/) { print u; exit } u = ""; s = "" }
			/^URIs:/ { u = $2 }
			/^Suites:/ { $1 = ""; s = $0 " " }
			END { if (u != "" && s ~ /(^| )(bookworm|trixie|stable)( |$)/) print u }' "$f" | head -n 1)
		[ -n "$uri" ] && { echo "${uri%/}"; return 0; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		uri=$(awk '$1 == "deb" && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; exit } }' "$f" | head -n 1)
		[ -n "$uri" ] && { echo "${uri%/}"; return 0; }
	done
	return 1
}

# apt-get/apt-cache against a private state dir that knows the trixie
# suites, so the host's own apt configuration is never touched.
SROCE_APT_DIR="$SROCE_CACHE/apt"
sroce_apt_private_init() {
	local mirror
	mirror=$(sroce_mirror) || die "cannot read the Debian mirror from the host's apt sources"
	mkdir -p "$SROCE_APT_DIR/lists/partial" "$SROCE_APT_DIR/archives/partial" "$SROCE_APT_DIR/etc"
	cat >"$SROCE_APT_DIR/etc/sources.list" <<-EOF
	deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main
	deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie-backports main
	EOF
	if [ -z "$(find "$SROCE_APT_DIR/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null)" ]; then
		log "apt-get update (private state for trixie, trixie-backports)"
		sroce_apt_get update -qq >&2 || die "private apt-get update failed"
	fi
}

sroce_apt_opts() {
	echo "-o Dir::Etc::SourceList=$SROCE_APT_DIR/etc/sources.list" \
	     "-o Dir::Etc::SourceParts=/dev/null" \
	     "-o Dir::State::Lists=$SROCE_APT_DIR/lists" \
	     "-o Dir::Cache::archives=$SROCE_APT_DIR/archives" \
	     "-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=" \
	     "-o APT::Default-Release=trixie -o APT::Sandbox::User=root"
}
# shellcheck disable=SC2046
sroce_apt_get() { apt-get $(sroce_apt_opts) "$@"; }
# shellcheck disable=SC2046
sroce_apt_cache() { apt-cache $(sroce_apt_opts) "$@"; }

# Names of the packages a package depends on, filtered by a regex.
sroce_pkg_deps() { # cache-cmd pkg[/suite|=ver] regex
	"$1" show "$2" 2>/dev/null | awk '/^Depends:/ { sub(/^Depends: */, ""); print; exit }' |
		tr ',' '\n' | sed 's/^ *//; s/ .*//; s/|.*//' | grep -E "$3" || true
}

# Debian's linux-source-7.3 tarball (trixie-backports), for the lint tools
# and the debug kernel, with its package version beside it in
# TARBALL.version. Prints the tarball's path.
sroce_linux_source() {
	local dir="$SROCE_CACHE/src" tarball="$SROCE_CACHE/src/linux-source-7.3.tar.xz" deb
	if [ ! -f "$tarball" ]; then
		sroce_apt_private_init
		mkdir -p "$dir"
		log "downloading linux-source-7.3"
		(cd "$dir" && sroce_apt_get download linux-source-7.3 >/dev/null) ||
			die "apt-get download linux-source-7.3 failed"
		deb=$(ls -t "$dir"/linux-source-7.3_*.deb | head -n 1)
		dpkg-deb -f "$deb" Version >"$tarball.version"
		dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-7.3.tar.xz >"$tarball.tmp"
		mv "$tarball.tmp" "$tarball"
		rm -f "$deb"
	fi
	if [ ! -s "$tarball.version" ]; then
		# A tarball from before the version was kept: its size and date.
		stat -c 'unknown-%s-%Y' "$tarball" >"$tarball.version"
	fi
	echo "$tarball"
}

# Paths of one target, from the env file its setup wrote. Sets KVER, ROOT
# (guest root), MODROOT (extra lower layer holding usr/lib/modules, or
# empty), VMLINUZ, BUILDROOT (chroot for the build, empty for the host),
# KDIR (kernel build dir as the build sees it), CCVAR (compiler) and, for
# some targets, APPEND (kernel parameters for the guests).
sroce_target_env() {
	local t=$1 d="$SROCE_CACHE/targets/$1"
	[ -f "$d/env" ] || die "target $t is not set up: run scripts/setup-targets.sh $t"
	# shellcheck disable=SC1091
	. "$d/env"
}
