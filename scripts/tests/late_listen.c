// SPDX-License-Identifier: GPL-2.0
/*
 * An LD_PRELOAD shim for ud.sh: the second rdma_listen() of the process
 * (perftest -R's listener for the test's QPs; the first is for its own
 * parameter exchange) comes 3 s late, once: only while the file named by
 * $LATE_LISTEN_ONCE exists, which the shim removes. It makes certain the
 * race the harness answers in pair_cmd ($pair_again), which otherwise
 * takes a slow moment of TCG to show.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

struct rdma_cm_id;

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	static int calls;
	int (*next)(struct rdma_cm_id *, int);
	const char *once = getenv("LATE_LISTEN_ONCE");

	next = (int (*)(struct rdma_cm_id *, int))dlsym(RTLD_NEXT, "rdma_listen");
	if (!next)
		return -1;
	if (++calls == 2 && once && unlink(once) == 0)
		sleep(3);
	return next(id, backlog);
}
