// SPDX-License-Identifier: GPL-2.0-only
/*
 * rt_qpair - hold connected but idle queue pairs between two RDMA devices,
 * for the selftests: packets crafted by a test then reach QPs that
 * software RoCE (and rocetune.ko) takes packets for, from a known peer.
 *
 *	rt_qpair [-t rc|uc|ud] [-n N] [-g GIDX] DEV0 DEV1
 *
 * Opens DEV0 and DEV1 (port 1), creates N QPs of the type on each (default
 * 1, RC) and, for RC and UC, connects QP i of DEV0 to QP i of DEV1 through
 * the RoCE GID of index GIDX (default 1, the IPv4 RoCEv2 GID of a
 * software RoCE device on an IPv4-only netdev) and moves both to RTS; UD
 * QPs go to RTS with Q_Key 0x11111111.  No work request is posted: the
 * QPs stay idle.  Prints one line "QPN0 QPN1" per pair, then "ready", and
 * waits for SIGTERM or SIGINT before destroying everything.  Exit status:
 * 0, 1 when a verb failed (the message names it), 2 on bad usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define RTQ_QKEY	0x11111111
#define RTQ_MAX		64

struct rtq_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
	struct ibv_qp *qp[RTQ_MAX];
};

static void rtq_usage(void)
{
	fprintf(stderr, "usage: rt_qpair [-t rc|uc|ud] [-n N] [-g GIDX] DEV0 DEV1\n");
	exit(2);
}

static int rtq_fail(const char *what, const char *dev, int i, int err)
{
	fprintf(stderr, "rt_qpair: %s failed (%s, QP %d): %s\n", what, dev, i,
		strerror(err ? err : EIO));
	return 1;
}

static int rtq_open(struct rtq_dev *d, const char *name, int gidx)
{
	struct ibv_device **list;
	int i, n, err = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return rtq_fail("ibv_get_device_list", name, -1, errno);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n) {
		ibv_free_device_list(list);
		fprintf(stderr, "rt_qpair: no RDMA device %s\n", name);
		return 1;
	}
	d->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!d->ctx)
		return rtq_fail("ibv_open_device", name, -1, errno);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		return rtq_fail("ibv_alloc_pd", name, -1, errno);
	d->cq = ibv_create_cq(d->ctx, 2 * RTQ_MAX, NULL, NULL, 0);
	if (!d->cq)
		return rtq_fail("ibv_create_cq", name, -1, errno);
	err = ibv_query_gid(d->ctx, 1, gidx, &d->gid);
	if (err)
		return rtq_fail("ibv_query_gid", name, gidx, err);
	return 0;
}

static int rtq_create(struct rtq_dev *d, const char *name, int i,
		      enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = d->cq,
		.recv_cq = d->cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	int err;

	d->qp[i] = ibv_create_qp(d->pd, &ia);
	if (!d->qp[i])
		return rtq_fail("ibv_create_qp", name, i, errno);
	if (type == IBV_QPT_UD) {
		a.qkey = RTQ_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	err = ibv_modify_qp(d->qp[i], &a, mask);
	return err ? rtq_fail("modify to INIT", name, i, err) : 0;
}

/* RTR and RTS: @qp sends to @dqpn at @dgid through GID @gidx. */
static int rtq_connect(struct ibv_qp *qp, const char *name, int i,
		       enum ibv_qp_type type, uint32_t dqpn,
		       const union ibv_gid *dgid, int gidx)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int mask = IBV_QP_STATE;
	int err;

	if (type != IBV_QPT_UD) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dqpn;
		a.rq_psn = 0;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = *dgid;
		a.ah_attr.grh.sgid_index = gidx;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 1;
			a.min_rnr_timer = 12;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	err = ibv_modify_qp(qp, &a, mask);
	if (err)
		return rtq_fail("modify to RTR", name, i, err);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (type == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	err = ibv_modify_qp(qp, &a, mask);
	return err ? rtq_fail("modify to RTS", name, i, err) : 0;
}

static void rtq_close(struct rtq_dev *d, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (d->qp[i])
			ibv_destroy_qp(d->qp[i]);
	if (d->cq)
		ibv_destroy_cq(d->cq);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
}

int main(int argc, char **argv)
{
	enum ibv_qp_type type = IBV_QPT_RC;
	struct rtq_dev d[2] = { 0 };
	int opt, n = 1, gidx = 1, i, k, rc = 0, sig;
	sigset_t stop;

	while ((opt = getopt(argc, argv, "t:n:g:")) != -1) {
		switch (opt) {
		case 't':
			if (!strcmp(optarg, "rc"))
				type = IBV_QPT_RC;
			else if (!strcmp(optarg, "uc"))
				type = IBV_QPT_UC;
			else if (!strcmp(optarg, "ud"))
				type = IBV_QPT_UD;
			else
				rtq_usage();
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 'g':
			gidx = atoi(optarg);
			break;
		default:
			rtq_usage();
		}
	}
	if (argc - optind != 2 || n < 1 || n > RTQ_MAX || gidx < 0)
		rtq_usage();
	/* Taken by sigwait() below, never delivered. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);

	for (k = 0; k < 2 && !rc; k++)
		rc = rtq_open(&d[k], argv[optind + k], gidx);
	for (i = 0; i < n && !rc; i++)
		for (k = 0; k < 2 && !rc; k++)
			rc = rtq_create(&d[k], argv[optind + k], i, type);
	for (i = 0; i < n && !rc; i++)
		for (k = 0; k < 2 && !rc; k++)
			rc = rtq_connect(d[k].qp[i], argv[optind + k], i, type,
					 d[!k].qp[i]->qp_num, &d[!k].gid, gidx);
	if (!rc) {
		for (i = 0; i < n; i++)
			printf("%u %u\n", d[0].qp[i]->qp_num,
			       d[1].qp[i]->qp_num);
		printf("ready\n");
		fflush(stdout);
		sigwait(&stop, &sig);
	}
	for (k = 0; k < 2; k++)
		rtq_close(&d[k], n);
	return rc;
}
