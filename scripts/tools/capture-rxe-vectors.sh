#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Capture RoCEv2 frames that upstream rdma_rxe puts on the wire (two bpo
# guests), as the known-good ICRC vectors of kunit/icrc_test.c. Prints the
# frames ("<ipver> <hex>") on stdout.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
keep=$(mktemp -d)
trap 'rm -rf "$keep"' EXIT
"$SROCE_TOP/scripts/vm.sh" --keep "$keep" --timeout 600 "${1:-bpo}" pair \
	'sh $SROCE_SRC/scripts/tools/rxe-capture.sh' >&2
cat "$keep/rxe-frames.txt"
