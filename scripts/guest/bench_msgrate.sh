# SPDX-License-Identifier: GPL-2.0
# Section msgrate of scripts/guest/bench.sh (sourced there, after its
# helpers): the small-message rate. 64 B SEND and RDMA WRITE with perftest
# posting lists of BENCH_POST_LIST work requests a call (default 16), on
# 1 and 16 QPs (quick) or 1, 4 and 16 (full), BENCH_MSG_ITERS messages
# per QP (default 4000, a multiple of the list). Each run is a kind=msg
# line of bench.raw with post=LIST; its mpps is perftest's message rate.

msg_post=${BENCH_POST_LIST:-16}
msg_qpss="1 16"
[ "$mode" = full ] && msg_qpss="1 4 16"
[ -n "${BENCH_MSG_QPSS:-}" ] && msg_qpss=$BENCH_MSG_QPSS

msgrate_pass() {
	local tool q
	for tool in ib_send_bw ib_write_bw; do
		for q in $msg_qpss; do
			point_iters=${BENCH_MSG_ITERS:-4000} point_tag="post=$msg_post"
			point_args="--post_list=$msg_post"
			point "$1" "$2" "$3" "$4" msg "$tool" 64 "$q"
		done
	done
}
# Small messages fill no MTU: the first of the bench's only.
pass_mtus=${mtus%% *}
bench_passes msgrate_pass
point_iters='' point_tag='' point_args='' pass_mtus=''
