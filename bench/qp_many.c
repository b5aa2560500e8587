// SPDX-License-Identifier: GPL-2.0-only
/*
 * qp_many - hold many idle RC queue pairs open on one RDMA device, for
 * benchmarks of tools that list QPs (bench/qp_show.sh).
 *
 *	qp_many [-p PORT] [-r] [-i] DEV N
 *
 * Opens DEV, allocates one PD and one CQ, creates N RC QPs with the
 * smallest queues (one work request, one SGE each way) and moves each to
 * INIT on PORT (default 1), so that the QPs carry a port and a port filter
 * ("rdma res show qp link DEV/PORT") sees them too; -r leaves them in
 * RESET.  Then prints "ready N" on stdout and waits for SIGTERM, SIGINT or
 * SIGHUP (with -i also for the end of stdin) before destroying everything.
 * No traffic is sent.  Exit status: 0 on success, 1 when a verb failed
 * (the message names the verb, the QP index and the error), 2 on bad usage.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static volatile sig_atomic_t qpm_stop;

static void qpm_on_signal(int sig)
{
	(void)sig;
	qpm_stop = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: qp_many [-p PORT] [-r] [-i] DEV N\n"
		"  -p PORT  port of the QPs in INIT (default 1)\n"
		"  -r       leave the QPs in RESET (not visible to port filters)\n"
		"  -i       also stop at the end of stdin\n");
	exit(2);
}

static double qpm_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

static struct ibv_context *qpm_open(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "qp_many: ibv_get_device_list: %s\n",
			strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			fprintf(stderr, "qp_many: ibv_open_device %s: %s\n",
				name, strerror(errno));
		break;
	}
	if (i == n)
		fprintf(stderr, "qp_many: no RDMA device %s\n", name);
	ibv_free_device_list(list);
	return ctx;
}

/* Block until a stop signal arrives (or, with use_stdin, stdin ends). */
static void qpm_wait(const sigset_t *unblocked, int use_stdin)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char buf[256];

	while (!qpm_stop) {
		if (ppoll(&pfd, use_stdin ? 1 : 0, NULL, unblocked) < 0) {
			if (errno != EINTR) {
				fprintf(stderr, "qp_many: ppoll: %s\n",
					strerror(errno));
				return;
			}
			continue;
		}
		if (pfd.revents) {
			ssize_t r = read(STDIN_FILENO, buf, sizeof(buf));

			if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
				return;
		}
	}
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = 1, .max_recv_wr = 1,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_device_attr dattr;
	struct ibv_context *ctx;
	struct ibv_qp **qps;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct sigaction sa;
	struct timespec t0;
	sigset_t stopset, old;
	unsigned long n, i, made = 0;
	int opt, reset = 0, use_stdin = 0, ret = 1, err;
	char *end;

	while ((opt = getopt(argc, argv, "p:rih")) != -1) {
		switch (opt) {
		case 'p':
			n = strtoul(optarg, &end, 10);
			if (*end || n < 1 || n > 255)
				usage();
			attr.port_num = n;
			break;
		case 'r':
			reset = 1;
			break;
		case 'i':
			use_stdin = 1;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2)
		usage();
	errno = 0;
	n = strtoul(argv[optind + 1], &end, 10);
	if (errno || *end || !n || n > 1UL << 24)
		usage();

	/* Stop signals stay blocked except while waiting in ppoll(). */
	sigemptyset(&stopset);
	sigaddset(&stopset, SIGTERM);
	sigaddset(&stopset, SIGINT);
	sigaddset(&stopset, SIGHUP);
	sigprocmask(SIG_BLOCK, &stopset, &old);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = qpm_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigdelset(&old, SIGTERM);
	sigdelset(&old, SIGINT);
	sigdelset(&old, SIGHUP);

	qps = calloc(n, sizeof(*qps));
	if (!qps) {
		fprintf(stderr, "qp_many: no memory for %lu QP pointers\n", n);
		return 1;
	}
	ctx = qpm_open(argv[optind]);
	if (!ctx)
		goto out_free;
	err = ibv_query_device(ctx, &dattr);
	if (err) {
		fprintf(stderr, "qp_many: ibv_query_device: %s\n", strerror(err));
		goto out_close;
	}
	fprintf(stderr, "qp_many: %s max_qp %d max_cq %d\n", argv[optind],
		dattr.max_qp, dattr.max_cq);
	if (n > (unsigned long)dattr.max_qp) {
		fprintf(stderr, "qp_many: %lu QPs asked, %s allows %d\n", n,
			argv[optind], dattr.max_qp);
		goto out_close;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		fprintf(stderr, "qp_many: ibv_alloc_pd: %s\n", strerror(errno));
		goto out_close;
	}
	/* One CQ for every QP: nothing is ever posted, so nothing completes. */
	cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	if (!cq) {
		fprintf(stderr, "qp_many: ibv_create_cq: %s\n", strerror(errno));
		goto out_pd;
	}
	init.send_cq = cq;
	init.recv_cq = cq;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		qps[i] = ibv_create_qp(pd, &init);
		if (!qps[i]) {
			fprintf(stderr, "qp_many: ibv_create_qp of QP #%lu (of %lu): %s (errno %d)\n",
				i, n, strerror(errno), errno);
			goto out_qps;
		}
		made++;
		if (reset)
			continue;
		err = ibv_modify_qp(qps[i], &attr, IBV_QP_STATE |
				    IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS);
		if (err) {
			fprintf(stderr, "qp_many: ibv_modify_qp to INIT of QP #%lu (qpn %" PRIu32 "): %s (errno %d)\n",
				i, qps[i]->qp_num, strerror(err), err);
			goto out_qps;
		}
	}
	fprintf(stderr, "qp_many: %lu RC QPs (qpn %" PRIu32 "..%" PRIu32 ") in %s on %s port %u in %.0f ms\n",
		n, qps[0]->qp_num, qps[n - 1]->qp_num, reset ? "RESET" : "INIT",
		argv[optind], attr.port_num, qpm_ms_since(&t0));
	printf("ready %lu\n", n);
	fflush(stdout);

	qpm_wait(&old, use_stdin);
	ret = 0;

out_qps:
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = made; i-- > 0;) {
		err = ibv_destroy_qp(qps[i]);
		if (err) {
			fprintf(stderr, "qp_many: ibv_destroy_qp of QP #%lu: %s (errno %d)\n",
				i, strerror(err), err);
			ret = 1;
		}
	}
	if (made)
		fprintf(stderr, "qp_many: %lu QPs destroyed in %.0f ms\n", made,
			qpm_ms_since(&t0));
	err = ibv_destroy_cq(cq);
	if (err) {
		fprintf(stderr, "qp_many: ibv_destroy_cq: %s\n", strerror(err));
		ret = 1;
	}
out_pd:
	err = ibv_dealloc_pd(pd);
	if (err) {
		fprintf(stderr, "qp_many: ibv_dealloc_pd: %s\n", strerror(err));
		ret = 1;
	}
out_close:
	if (ibv_close_device(ctx))
		ret = 1;
out_free:
	free(qps);
	return ret;
}
