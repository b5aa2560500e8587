// SPDX-License-Identifier: GPL-2.0-only
/*
 * port_read - read every RoCE port's counters in-process, ITER times, one
 * way, and print what one full read costs:
 *
 *	port_read { lib | sysfs | sysfs-pread | rdma } ITER [MAX_SEC]
 *
 *   lib          rocetune's library: one ROCETUNE_CMD_PORT_GET dump over
 *                the socket opened once, every message parsed into a
 *                struct rt_port (normalized counters, rates, raw driver
 *                counters, PFC), as "rocetune -j -s port show" does minus
 *                printing.  The module answers from its last sample.
 *   sysfs        every /sys/class/infiniband/DEV/ports/N/hw_counters/NAME
 *                file (found once): open, read, close, strtoull, as
 *                node_exporter-style collectors do.  Each read calls the
 *                driver.
 *   sysfs-pread  the same files kept open, re-read with pread() at 0: the
 *                cheapest way through sysfs.
 *   rdma         iproute2's "rdma statistic show" in-process: the ports
 *                found once (RDMA_NLDEV_CMD_GET dump), then per port one
 *                RDMA_NLDEV_CMD_STAT_GET request and its hw counters nest,
 *                over a NETLINK_RDMA socket opened once.  Each request
 *                calls the driver.
 *
 * One untimed read comes first, then ITER timed reads, or fewer (at least
 * 3) when they take more than MAX_SEC seconds.  Output, one line:
 *	MODE ports=P values=V iter=N mean_us=M median_us=D min_us=L
 * where V is the number of counter values one read returns and N the
 * number of timed reads.  ITER 0: the untimed read only (a process that
 * reads once).  Exit 1 if a
 * read fails or returns a different number of ports or values than the
 * first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "rt_model.h"
#include "rt_nl.h"

struct result {
	unsigned int ports;
	unsigned int values;
};

/* lib --------------------------------------------------------------- */

static struct rt_nl lib_nl;

static int lib_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct result *r = arg;
	struct rt_port p;
	unsigned int i;
	int err;

	err = rt_port_parse(nlh, &p);
	if (!err) {
		r->ports++;
		r->values += __builtin_popcount(p.counters.present) +
			     (unsigned int)p.nhwc;
		for (i = 0; i < p.pfc.nprio; i++)
			r->values += __builtin_popcountll(p.pfc.prio[i].attrs) - 1;
	}
	rt_port_free(&p);
	return err;
}

static int lib_open(void)
{
	return rt_nl_open(&lib_nl);
}

static int lib_read(struct result *r)
{
	struct nl_msg *msg = rt_nl_msg(&lib_nl, ROCETUNE_CMD_PORT_GET);

	if (!msg)
		return -ENOMEM;
	return rt_nl_dump(&lib_nl, msg, lib_cb, r);
}

/* sysfs ------------------------------------------------------------- */

static glob_t sysfs_files;
static int *sysfs_fds;

static int sysfs_open(bool keep)
{
	size_t i;

	if (glob("/sys/class/infiniband/*/ports/*/hw_counters/*", 0, NULL,
		 &sysfs_files))
		return -ENOENT;
	if (!keep)
		return 0;
	sysfs_fds = calloc(sysfs_files.gl_pathc, sizeof(*sysfs_fds));
	if (!sysfs_fds)
		return -ENOMEM;
	for (i = 0; i < sysfs_files.gl_pathc; i++) {
		sysfs_fds[i] = open(sysfs_files.gl_pathv[i], O_RDONLY);
		if (sysfs_fds[i] < 0)
			return -errno;
	}
	return 0;
}

/* "lifespan" is a setting of the hw_counters directory, not a counter. */
static bool sysfs_is_counter(const char *path)
{
	const char *base = strrchr(path, '/');

	return strcmp(base ? base + 1 : path, "lifespan") != 0;
}

/* The port directory of a counter file, to count ports. */
static size_t sysfs_port_len(const char *path)
{
	const char *hw = strstr(path, "/hw_counters/");

	return hw ? (size_t)(hw - path) : strlen(path);
}

static int sysfs_read(struct result *r)
{
	const char *prev = NULL;
	size_t prev_len = 0, i;
	char buf[64];
	ssize_t n;
	int fd;

	for (i = 0; i < sysfs_files.gl_pathc; i++) {
		const char *path = sysfs_files.gl_pathv[i];

		if (!sysfs_is_counter(path))
			continue;
		fd = sysfs_fds ? sysfs_fds[i] : open(path, O_RDONLY);
		if (fd < 0)
			return -errno;
		n = sysfs_fds ? pread(fd, buf, sizeof(buf) - 1, 0) :
				read(fd, buf, sizeof(buf) - 1);
		if (!sysfs_fds)
			close(fd);
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf[n] = '\0';
		(void)strtoull(buf, NULL, 10);
		r->values++;
		if (!prev || sysfs_port_len(path) != prev_len ||
		    strncmp(path, prev, prev_len)) {
			r->ports++;
			prev = path;
			prev_len = sysfs_port_len(path);
		}
	}
	return 0;
}

/* rdma (NETLINK_RDMA, as iproute2's rdma tool) ------------------------ */

struct rdma_port {
	uint32_t dev;
	uint32_t port;
};

static struct mnl_socket *rdma_sk;
static struct rdma_port *rdma_ports;
static unsigned int rdma_nports;
static unsigned int rdma_seq;
static char rdma_buf[65536];

static struct nlmsghdr *rdma_msg(uint16_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(rdma_buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++rdma_seq;
	return nlh;
}

/* Send @nlh and run @cb on every reply until the end of the answer. */
static int rdma_talk(struct nlmsghdr *nlh, mnl_cb_t cb, void *arg)
{
	unsigned int portid = mnl_socket_get_portid(rdma_sk);
	int ret;

	if (mnl_socket_sendto(rdma_sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		ret = mnl_socket_recvfrom(rdma_sk, rdma_buf, sizeof(rdma_buf));
		if (ret <= 0)
			return ret < 0 ? -errno : -EIO;
		ret = mnl_cb_run(rdma_buf, ret, rdma_seq, portid, cb, arg);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static int rdma_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type >= 0 && type < RDMA_NLDEV_ATTR_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static int rdma_dev_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	struct rdma_port *v;
	uint32_t dev, n, p;

	(void)arg;
	mnl_attr_parse(nlh, 0, rdma_attr_cb, tb);
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return MNL_CB_ERROR;
	dev = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	n = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);	/* last port */
	v = realloc(rdma_ports, (rdma_nports + n) * sizeof(*v));
	if (!v)
		return MNL_CB_ERROR;
	rdma_ports = v;
	for (p = 1; p <= n; p++)
		rdma_ports[rdma_nports++] = (struct rdma_port){ dev, p };
	return MNL_CB_OK;
}

static int rdma_open(void)
{
	rdma_sk = mnl_socket_open(NETLINK_RDMA);
	if (!rdma_sk || mnl_socket_bind(rdma_sk, 0, MNL_SOCKET_AUTOPID) < 0)
		return -errno;
	return rdma_talk(rdma_msg(RDMA_NLDEV_CMD_GET, NLM_F_DUMP), rdma_dev_cb,
			 NULL);
}

static int rdma_stat_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	const struct nlattr *entry, *a;
	struct result *r = arg;

	mnl_attr_parse(nlh, 0, rdma_attr_cb, tb);
	if (!tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return MNL_CB_OK;	/* a port without hw counters */
	r->ports++;
	mnl_attr_for_each_nested(entry, tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]) {
		mnl_attr_for_each_nested(a, entry) {
			if (mnl_attr_get_type(a) ==
			    RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE) {
				(void)mnl_attr_get_u64(a);
				r->values++;
			}
		}
	}
	return MNL_CB_OK;
}

static int rdma_read(struct result *r)
{
	struct nlmsghdr *nlh;
	unsigned int i;
	int err;

	for (i = 0; i < rdma_nports; i++) {
		nlh = rdma_msg(RDMA_NLDEV_CMD_STAT_GET, NLM_F_ACK);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, rdma_ports[i].dev);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, rdma_ports[i].port);
		err = rdma_talk(nlh, rdma_stat_cb, r);
		if (err)
			return err;
	}
	return 0;
}

/* main -------------------------------------------------------------- */

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int (*read_all)(struct result *r);
	struct result first = { 0 }, r;
	double *t, sum = 0, t0, start, max_us = 0;
	long i, iter;
	int err;

	if (argc < 3 || argc > 4 || (iter = strtol(argv[2], NULL, 10)) < 0) {
		fprintf(stderr, "usage: port_read { lib | sysfs | sysfs-pread | rdma } ITER [MAX_SEC]\n");
		return 2;
	}
	if (argc == 4)
		max_us = strtod(argv[3], NULL) * 1e6;
	if (!strcmp(argv[1], "lib")) {
		err = lib_open();
		read_all = lib_read;
	} else if (!strcmp(argv[1], "sysfs")) {
		err = sysfs_open(false);
		read_all = sysfs_read;
	} else if (!strcmp(argv[1], "sysfs-pread")) {
		err = sysfs_open(true);
		read_all = sysfs_read;
	} else if (!strcmp(argv[1], "rdma")) {
		err = rdma_open();
		read_all = rdma_read;
	} else {
		fprintf(stderr, "port_read: unknown mode \"%s\"\n", argv[1]);
		return 2;
	}
	if (err) {
		fprintf(stderr, "port_read %s: cannot open: %s\n", argv[1],
			strerror(-err));
		return 1;
	}
	t = calloc(iter ? iter : 1, sizeof(*t));
	if (!t || read_all(&first)) {
		fprintf(stderr, "port_read %s: the first read failed\n", argv[1]);
		return 1;
	}
	start = now_us();
	for (i = 0; i < iter; i++) {
		if (max_us > 0 && i >= 3 && now_us() - start > max_us)
			break;
		r = (struct result){ 0 };
		t0 = now_us();
		err = read_all(&r);
		t[i] = now_us() - t0;
		if (err || r.ports != first.ports || r.values != first.values) {
			fprintf(stderr, "port_read %s: read %ld: %s, %u ports %u values (first: %u, %u)\n",
				argv[1], i, strerror(-err), r.ports, r.values,
				first.ports, first.values);
			return 1;
		}
		sum += t[i];
	}
	iter = i;
	if (!iter) {
		printf("%s ports=%u values=%u iter=0\n", argv[1], first.ports,
		       first.values);
		return 0;
	}
	qsort(t, iter, sizeof(*t), cmp_double);
	printf("%s ports=%u values=%u iter=%ld mean_us=%.1f median_us=%.1f min_us=%.1f\n",
	       argv[1], first.ports, first.values, iter, sum / iter,
	       t[iter / 2], t[0]);
	return 0;
}
