#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make lint`: the static gates. Each prints what it found; any finding
# fails. checkpatch.pl and kernel-doc come from Debian's linux-source-7.3
# (the newest rules of the matrix), extracted once into the cache.
#   scripts/lint.sh [structure|checkpatch|kernel-doc|sparse|w1|upstream]...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tools="$SROCE_CACHE/src/lint-7.3"
ensure_tools() {
	[ -f "$tools/.done" ] && return 0
	local tarball
	tarball=$(sroce_linux_source)
	log "extracting checkpatch and kernel-doc from $(basename "$tarball")"
	rm -rf "$tools"
	mkdir -p "$tools"
	tar -xJf "$tarball" -C "$tools" --strip-components=1 \
		linux-source-7.3/scripts/checkpatch.pl \
		linux-source-7.3/scripts/spelling.txt \
		linux-source-7.3/scripts/const_structs.checkpatch \
		linux-source-7.3/tools/docs/kernel-doc \
		linux-source-7.3/tools/lib/python
	touch "$tools/.done"
}

cd "$SROCE_TOP"
mapfile -t srcs < <(find drivers include kunit -name '*.[ch]' 2>/dev/null | sort)

# findings TEXT: print what a tool found; succeed only if it found nothing.
findings() {
	[ -z "$1" ] && return 0
	printf '%s\n' "$1"
	return 1
}

gate_checkpatch() {
	ensure_tools
	# --no-tree: we are not a kernel tree; --strict: the CHECKs count too.
	findings "$(perl "$tools/scripts/checkpatch.pl" --no-tree --strict --terse \
		--no-summary --show-types -f "${srcs[@]}" 2>&1)"
}

gate_kernel_doc() {
	ensure_tools
	# -Wall: missing parameters, return values and members count.
	findings "$(python3 "$tools/tools/docs/kernel-doc" -none -Wall "${srcs[@]}" 2>&1)"
}

# The driver's shape: file and function lengths, calls between files,
# locks asserted (scripts/structure.py, Documentation/design.rst).
gate_structure() {
	local out
	out=$(python3 "$SROCE_TOP/scripts/structure.py" drivers/sroce 2>&1) && return 0
	# The findings and any error, without the table of file lengths.
	printf '%s\n' "$out" | grep -v '^  '
	return 1
}

gate_sparse() {
	"$SROCE_TOP/scripts/setup-targets.sh" deb12
	"$SROCE_TOP/scripts/build.sh" --sparse deb12
}

# W=1 on the chroot-built targets (deb12's W=1 ran with sparse); set
# SROCE_LINT_TARGETS to limit them to the targets that are set up.
gate_w1() {
	local t list=()
	for t in ${SROCE_LINT_TARGETS:-$SROCE_TARGETS_ALL}; do
		[ "$t" = deb12 ] || list+=("$t")
	done
	[ ${#list[@]} -eq 0 ] || "$SROCE_TOP/scripts/build.sh" --w1 "${list[@]}"
}

# The upstream form (scripts/upstream.sh): the in-tree builds and the
# series' checkpatch.
gate_upstream() {
	"$SROCE_TOP/scripts/setup-targets.sh" debug
	"$SROCE_TOP/scripts/upstream.sh"
}

gates=${*:-structure checkpatch kernel-doc sparse w1 upstream}
rc=0
for g in $gates; do
	if "gate_${g//-/_}"; then
		echo "ok - lint: $g"
	else
		echo "not ok - lint: $g"
		rc=1
	fi
done
exit $rc
