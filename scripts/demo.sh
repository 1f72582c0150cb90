#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: two guests (topology "pair") of one target, sroce0 on each
# guest's end of their link; shows what rdma-core and iproute2 see.
#   scripts/demo.sh [TARGET]   (default bpo)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=${1:-${TARGET:-bpo}}
"$SROCE_TOP/scripts/deps.sh"
"$SROCE_TOP/scripts/setup-targets.sh" "$target"
"$SROCE_TOP/scripts/build.sh" "$target"
exec "$SROCE_TOP/scripts/vm.sh" --timeout 300 "$target" pair 'sh $SROCE_SRC/scripts/guest/demo.sh'
