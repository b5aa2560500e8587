// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: finding the RoCE NICs of the host in sysfs
 * and the DCQCN interface of each (see rt_nic.h).
 */
#define _GNU_SOURCE		/* reallocarray(), secure_getenv() */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_util.h"
#include "rt_ccfile.h"
#include "rt_ethtool.h"
#include "rt_nic.h"

const char *rt_sysfs_root(void)
{
	const char *s = secure_getenv("ROCETUNE_SYSFS");

	return s && *s ? s : "/sys";
}

/* The first line of @path without its newline; 0 or a negative errno. */
static int rt_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		err = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (!err)
		buf[strcspn(buf, "\n")] = '\0';
	return err;
}

static bool rt_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The driver a netdev's device is bound to, from sysfs (no ethtool ops). */
static void rt_sysfs_driver(const char *netdev, char *buf, size_t len)
{
	char path[512], link[512];
	ssize_t n;
	char *base;

	rt_fmt(path, sizeof(path), "%s/class/net/%s/device/driver",
		 rt_sysfs_root(), netdev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	base = strrchr(link, '/');
	rt_fmt(buf, len, "%s", base ? base + 1 : link);
}

/*
 * Software RoCE: rxe shows the netdev it runs on in "parent" (siw does
 * not), and is a channel adapter (node type 1), where siw is an RNIC.
 */
static bool rt_nic_is_rxe(const char *ibdev)
{
	char path[512], val[64];

	rt_fmt(path, sizeof(path), "%s/class/infiniband/%s/parent",
		 rt_sysfs_root(), ibdev);
	if (access(path, F_OK))
		return false;
	rt_fmt(path, sizeof(path), "%s/class/infiniband/%s/node_type",
		 rt_sysfs_root(), ibdev);
	return !rt_read_line(path, val, sizeof(val)) && !strncmp(val, "1:", 2);
}

static void rt_nic_cc(struct rt_nic *nic)
{
	const char *dfs = rt_debugfs_root();
	const char *drv = nic->id.driver;
	char path[512];

	if (nic->id.bus_info[0]) {
		rt_fmt(nic->cc_dir, sizeof(nic->cc_dir), "%s/mlx5/%s/cc_params",
			 dfs, nic->id.bus_info);
		if (rt_is_dir(nic->cc_dir)) {
			nic->cc = RT_CC_MLX5;
			return;
		}
		rt_fmt(nic->cc_dir, sizeof(nic->cc_dir),
			 "%s/bnxt_re/%s/cc_config", dfs, nic->id.bus_info);
		if (rt_is_dir(nic->cc_dir)) {
			nic->cc = RT_CC_BNXT_RE;
			return;
		}
	}
	nic->cc = RT_CC_NONE;
	nic->cc_dir[0] = '\0';
	if (rt_nic_is_rxe(nic->id.rdma_dev)) {
		nic->cc = RT_CC_RXE;
		return;
	}
	rt_fmt(path, sizeof(path), "%s/class/infiniband/%s/parent",
		 rt_sysfs_root(), nic->id.rdma_dev);
	if (!strcmp(drv, "mlx5_core"))
		rt_fmt(nic->cc_why, sizeof(nic->cc_why),
			 "mlx5 shows no %s/mlx5/%s/cc_params (is debugfs mounted there? otherwise the firmware does not allow congestion control changes)",
			 dfs, nic->id.bus_info);
	else if (!strcmp(drv, "bnxt_en"))
		rt_fmt(nic->cc_why, sizeof(nic->cc_why),
			 "bnxt_re has no congestion control interface in this kernel (debugfs cc_config appeared after 6.12)");
	else if (!strcmp(drv, "ice") || !strcmp(drv, "i40e"))
		rt_fmt(nic->cc_why, sizeof(nic->cc_why),
			 "irdma has no DCQCN interface upstream (its DCQCN is hard-coded off)");
	else if (!access(path, F_OK))
		rt_fmt(nic->cc_why, sizeof(nic->cc_why),
			 "%s is software RoCE, which has no DCQCN interface",
			 nic->id.rdma_dev);
	else
		rt_fmt(nic->cc_why, sizeof(nic->cc_why),
			 "driver %s has no DCQCN interface that rocetune knows",
			 drv[0] ? drv : "(unknown)");
}

static void rt_nic_fill(struct rt_nic *nic, const char *ibdev, uint32_t port,
			const char *netdev)
{
	memset(nic, 0, sizeof(*nic));
	rt_fmt(nic->id.netdev, sizeof(nic->id.netdev), "%s", netdev);
	rt_fmt(nic->id.rdma_dev, sizeof(nic->id.rdma_dev), "%s", ibdev);
	nic->port = port;
	nic->ifindex = (int)if_nametoindex(netdev);
	if (rt_ethtool_drvinfo(netdev, nic->id.driver, sizeof(nic->id.driver),
			       nic->id.bus_info, sizeof(nic->id.bus_info),
			       NULL, 0))
		rt_sysfs_driver(netdev, nic->id.driver,
				sizeof(nic->id.driver));
	rt_nic_cc(nic);
}

static int rt_nic_cmp(const void *a, const void *b)
{
	const struct rt_nic *x = a, *y = b;

	return strcmp(x->id.netdev, y->id.netdev);
}

/* The NICs found so far: as many as the host has. */
struct rt_nic_vec {
	struct rt_nic *v;
	unsigned int n, cap;
	bool nomem;
};

/* Add the RoCE ports of RDMA device @ibdev to @l. */
static void rt_nic_scan_dev(const char *ibdev, struct rt_nic_vec *l)
{
	struct rt_nic *v;
	char path[512], val[64];
	struct dirent *de;
	unsigned int i;
	DIR *d;

	rt_fmt(path, sizeof(path), "%s/class/infiniband/%s/ports",
		 rt_sysfs_root(), ibdev);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		unsigned long port = strtoul(de->d_name, &end, 10);
		bool dup = false;

		if (de->d_name[0] < '1' || de->d_name[0] > '9' || *end)
			continue;
		rt_fmt(path, sizeof(path),
			 "%s/class/infiniband/%s/ports/%lu/link_layer",
			 rt_sysfs_root(), ibdev, port);
		if (rt_read_line(path, val, sizeof(val)) ||
		    strcmp(val, "Ethernet"))
			continue;
		rt_fmt(path, sizeof(path),
			 "%s/class/infiniband/%s/ports/%lu/gid_attrs/ndevs/0",
			 rt_sysfs_root(), ibdev, port);
		if (rt_read_line(path, val, sizeof(val)) || !val[0])
			continue;
		for (i = 0; i < l->n; i++)
			dup |= !strcmp(l->v[i].id.netdev, val);
		if (dup)
			continue;
		if (l->n == l->cap) {
			v = reallocarray(l->v, l->cap ? 2 * l->cap : 16,
					 sizeof(*v));
			if (!v) {
				l->nomem = true;
				break;
			}
			l->v = v;
			l->cap = l->cap ? 2 * l->cap : 16;
		}
		memset(&l->v[l->n], 0, sizeof(l->v[0]));
		rt_nic_fill(&l->v[l->n++], ibdev, (uint32_t)port, val);
	}
	closedir(d);
}

int rt_nic_list(struct rt_nic **nics, char *msg, size_t len)
{
	struct rt_nic_vec l = { 0 };
	char path[512];
	struct dirent *de;
	DIR *d;
	int err;

	*nics = NULL;
	rt_fmt(path, sizeof(path), "%s/class/infiniband", rt_sysfs_root());
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			return 0;	/* no RDMA core: no RoCE NIC */
		err = errno;
		if (msg)
			rt_fmt(msg, len, "cannot list %s: %s", path,
				 strerror(err));
		return -err;
	}
	while (!l.nomem && (de = readdir(d)))
		if (de->d_name[0] != '.')
			rt_nic_scan_dev(de->d_name, &l);
	closedir(d);
	if (l.nomem) {
		free(l.v);
		if (msg)
			rt_fmt(msg, len, "listing the RoCE NICs: %s",
				 strerror(ENOMEM));
		return -ENOMEM;
	}
	qsort(l.v, l.n, sizeof(*l.v), rt_nic_cmp);
	*nics = l.v;
	return (int)l.n;
}

int rt_nic_lookup(const char *netdev, struct rt_nic *nic, char *msg,
		  size_t len)
{
	struct rt_nic *all;
	int n, i, err = -ENODEV;

	n = rt_nic_list(&all, msg, len);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (!strcmp(all[i].id.netdev, netdev)) {
			*nic = all[i];
			err = 0;
			break;
		}
	}
	free(all);
	if (err && msg) {
		if (!if_nametoindex(netdev))
			rt_fmt(msg, len, "%s: no such network interface",
				 netdev);
		else
			rt_fmt(msg, len,
				 "%s carries no RoCE port (no RDMA device with an Ethernet port on it)",
				 netdev);
	}
	return err;
}
