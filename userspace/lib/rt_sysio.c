// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the real backend, which reads and writes a
 * NIC's settings on the system: DCB rtnetlink (rt_dcb.c), the ethtool PFC
 * storm tunable (rt_ethtool.c), the vendor DCQCN files (rt_ccfile.c) and,
 * for software RoCE, rocetune.ko (rt_rxecc.c).  What a profile wants is
 * rt_want.c's, which touches nothing on the system.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <unistd.h>

#include "rt_util.h"
#include "rt_sysio.h"
#include "rt_want.h"
#include "rt_ccfile.h"
#include "rt_dcb.h"
#include "rt_rxecc.h"
#include "rt_ethtool.h"

void rt_sys_ctx_close(struct rt_sys_ctx *ctx)
{
	if (ctx->dcb)
		rt_dcb_close(ctx->dcb);
	ctx->dcb = NULL;
}

static int rt_sys_dcb(struct rt_sys_ctx *ctx, char *msg, size_t len)
{
	int err;

	if (ctx->dcb)
		return 0;
	err = rt_dcb_open(&ctx->dcb);
	if (err && msg)
		rt_fmt(msg, len, "cannot open a DCB netlink socket: %s",
			 strerror(-err));
	return err;
}

static void rt_read_dcb(struct rt_sys_ctx *ctx, const struct rt_nic *nic,
			struct rt_nic_state *ns)
{
	struct rt_dcb_state ds;
	struct rt_setting *s;
	unsigned int i;

	if (rt_sys_dcb(ctx, ns->dcb_err, sizeof(ns->dcb_err)))
		return;
	if (rt_dcb_get(ctx->dcb, nic->id.netdev, &ds, ns->dcb_err,
		       sizeof(ns->dcb_err)))
		return;
	ns->dcb_ok = true;
	ns->has_ets = ds.has_ets;
	ns->has_pfc = ds.has_pfc;
	ns->has_maxrate = ds.has_maxrate;
	ns->has_buffer = ds.has_buffer;
	ns->has_apptrust = ds.has_apptrust;
	ns->ets_cap = ds.ets.ets_cap;
	ns->buf_total = ds.has_buffer ? ds.buffer.total_size : 0;
	ns->dcbx = ds.dcbx;
	if (ds.has_ets && (s = rt_state_add(&ns->st, RT_SK_ETS, 0))) {
		s->n = 24;
		for (i = 0; i < RT_NTC; i++) {
			s->v[i] = ds.ets.prio_tc[i];
			s->v[8 + i] = ds.ets.tc_tsa[i];
			s->v[16 + i] = ds.ets.tc_tx_bw[i];
		}
	}
	if (ds.has_pfc && (s = rt_state_add(&ns->st, RT_SK_PFC, 0))) {
		s->n = 4;
		s->v[0] = ds.pfc.pfc_en;
		s->v[1] = ds.pfc.delay;
		s->v[2] = ds.pfc.mbc;
		s->v[3] = ds.pfc.pfc_cap;
	}
	if (ds.has_maxrate && (s = rt_state_add(&ns->st, RT_SK_MAXRATE, 0))) {
		s->n = 8;
		for (i = 0; i < RT_NTC; i++)
			s->v[i] = ds.maxrate.tc_maxrate[i];
	}
	if (ds.has_buffer && (s = rt_state_add(&ns->st, RT_SK_BUFFER, 0))) {
		s->n = 16;
		for (i = 0; i < RT_NBUF; i++) {
			s->v[i] = ds.buffer.prio2buffer[i];
			s->v[8 + i] = ds.buffer.buffer_size[i];
		}
	}
	for (i = 0; i < RT_NDSCP; i++) {
		s = rt_state_add(&ns->st, RT_SK_DSCP, i);
		if (!s)
			break;
		s->n = 2;
		s->absent = ds.dscp_prio[i] < 0;
		s->v[0] = s->absent ? 0 : (uint64_t)ds.dscp_prio[i];
		s->v[1] = ds.dscp_mask[i];
	}
	if (ds.has_apptrust && (s = rt_state_add(&ns->st, RT_SK_APPTRUST, 0))) {
		s->n = ds.napptrust < 8 ? ds.napptrust : 8;
		for (i = 0; i < s->n; i++)
			s->v[i] = ds.apptrust[i];
	}
}

/* Software RoCE: the module's state; -ENODEV when the device is gone. */
static int rt_read_rxe(const struct rt_nic *nic, struct rt_nic_state *ns,
		       char *msg, size_t len)
{
	char path[512];
	int err;

	err = rt_rxe_read(nic->id.rdma_dev, &ns->st, ns->cc_err,
			  sizeof(ns->cc_err));
	if (!err) {
		ns->cc_ok = true;
		return 0;
	}
	rt_fmt(path, sizeof(path), "%s/class/infiniband/%s", rt_sysfs_root(),
	       nic->id.rdma_dev);
	if (err == -ENODEV && access(path, F_OK)) {
		rt_fmt(msg, len, "%s is gone (the RDMA device %s was removed)",
		       nic->id.netdev, nic->id.rdma_dev);
		return -ENODEV;
	}
	return 0;
}

static void rt_read_cc(const struct rt_nic *nic, struct rt_nic_state *ns)
{
	char path[1024], msg[512];
	struct rt_setting *s;
	unsigned int i;
	uint32_t v;

	if (nic->cc == RT_CC_NONE) {
		rt_fmt(ns->cc_err, sizeof(ns->cc_err), "%s: %s",
			 nic->id.netdev, nic->cc_why);
		return;
	}
	for (i = 0; i < RT_CC_KEY_MAX; i++) {
		const char *file = rt_cc_file(nic->cc, i);

		if (!file)
			continue;
		rt_fmt(path, sizeof(path), "%s/%s", nic->cc_dir, file);
		if (rt_ccfile_read(path, &v, msg, sizeof(msg))) {
			rt_fmt(ns->cc_err, sizeof(ns->cc_err), "%s", msg);
			return;
		}
		s = rt_state_add(&ns->st, RT_SK_CC, i);
		if (!s)
			return;
		s->n = 1;
		s->v[0] = v;
	}
	ns->cc_ok = true;
}

/*
 * Does @nic's name still lead to its ifindex?  0; -ENODEV when the NIC is
 * gone; -ESTALE when it lives on under another name, or another device
 * has its name: then nothing may be written by the name.
 */
static int rt_sys_same_nic(const struct rt_nic *nic, char *msg, size_t len)
{
	char now[IF_NAMESIZE] = "";
	unsigned int idx = if_nametoindex(nic->id.netdev);
	bool alive;

	if (nic->ifindex > 0 && (int)idx == nic->ifindex)
		return 0;
	alive = nic->ifindex > 0 &&
		if_indextoname((unsigned int)nic->ifindex, now);
	if (alive)
		rt_fmt(msg, len,
		       "%s (ifindex %d) was renamed to %s%s", nic->id.netdev,
		       nic->ifindex, now, idx ? "; its old name is another device's" : "");
	else if (idx)
		rt_fmt(msg, len,
		       "%s is another device now (ifindex %u, was %d): the NIC was removed or replaced",
		       nic->id.netdev, idx, nic->ifindex);
	else
		rt_fmt(msg, len, "%s is gone (the network interface was removed or renamed)",
		       nic->id.netdev);
	return alive ? -ESTALE : -ENODEV;
}

static int rt_sys_read(void *ctxp, const struct rt_nic *nic,
		       unsigned int need, struct rt_nic_state *ns, char *msg,
		       size_t len)
{
	struct rt_sys_ctx *ctx = ctxp;
	uint16_t ms;
	struct rt_setting *s;
	int err = rt_sys_same_nic(nic, msg, len);

	if (err)
		return err;
	if (need & RT_NEED_DCB)
		rt_read_dcb(ctx, nic, ns);
	if (need & RT_NEED_STORM) {
		if (!rt_ethtool_get_pfc_storm(nic->id.netdev, &ms,
					      ns->storm_err,
					      sizeof(ns->storm_err)) &&
		    (s = rt_state_add(&ns->st, RT_SK_PFC_STORM, 0))) {
			s->n = 1;
			s->v[0] = ms;
			ns->storm_ok = true;
		}
	}
	if ((need & RT_NEED_CC) && nic->cc == RT_CC_RXE)
		return rt_read_rxe(nic, ns, msg, len);
	if (need & RT_NEED_CC)
		rt_read_cc(nic, ns);
	return 0;
}

static int rt_sys_write_one(void *ctxp, const struct rt_nic *nic,
			    const struct rt_setting *want,
			    const struct rt_setting *cur, char *msg, size_t len)
{
	struct rt_sys_ctx *ctx = ctxp;
	const char *ifname = nic->id.netdev;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buf;
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	uint8_t sel[8];
	char path[1024];
	unsigned int i;
	int err;

	if (want->kind != RT_SK_PFC_STORM && want->kind != RT_SK_CC) {
		err = rt_sys_dcb(ctx, msg, len);
		if (err)
			return err;
	}
	switch (want->kind) {
	case RT_SK_ETS:
		memset(&ets, 0, sizeof(ets));
		ets.ets_cap = RT_NTC;
		for (i = 0; i < RT_NTC; i++) {
			ets.prio_tc[i] = (uint8_t)want->v[i];
			ets.tc_tsa[i] = (uint8_t)want->v[8 + i];
			ets.tc_tx_bw[i] = (uint8_t)want->v[16 + i];
			ets.tc_rx_bw[i] = ets.tc_tx_bw[i];
		}
		return rt_dcb_set_ets(ctx->dcb, ifname, &ets, msg, len);
	case RT_SK_PFC:
		memset(&pfc, 0, sizeof(pfc));
		pfc.pfc_en = (uint8_t)want->v[0];
		pfc.delay = (uint16_t)want->v[1];
		pfc.mbc = (uint8_t)want->v[2];
		pfc.pfc_cap = (uint8_t)want->v[3];
		return rt_dcb_set_pfc(ctx->dcb, ifname, &pfc, msg, len);
	case RT_SK_MAXRATE:
		memset(&maxrate, 0, sizeof(maxrate));
		for (i = 0; i < RT_NTC; i++)
			maxrate.tc_maxrate[i] = want->v[i];
		return rt_dcb_set_maxrate(ctx->dcb, ifname, &maxrate, msg,
					  len);
	case RT_SK_BUFFER:
		memset(&buf, 0, sizeof(buf));
		for (i = 0; i < RT_NBUF; i++) {
			buf.prio2buffer[i] = (uint8_t)want->v[i];
			buf.buffer_size[i] = (uint32_t)want->v[8 + i];
		}
		return rt_dcb_set_buffer(ctx->dcb, ifname, &buf, msg, len);
	case RT_SK_DSCP:
		if (want->absent)
			return cur->absent ? 0 :
			       rt_dcb_app_del(ctx->dcb, ifname,
					      (uint8_t)want->key,
					      (uint8_t)cur->v[0], msg, len);
		return rt_dcb_app_add(ctx->dcb, ifname, (uint8_t)want->key,
				      (uint8_t)want->v[0], msg, len);
	case RT_SK_APPTRUST:
		for (i = 0; i < want->n && i < 8; i++)
			sel[i] = (uint8_t)want->v[i];
		return rt_dcb_set_apptrust(ctx->dcb, ifname, sel, i, msg, len);
	case RT_SK_PFC_STORM:
		return rt_ethtool_set_pfc_storm(ifname, (uint16_t)want->v[0],
						msg, len);
	case RT_SK_CC:
		if (nic->cc == RT_CC_RXE)
			return rt_rxe_write(nic->id.rdma_dev, want, cur, msg,
					    len);
		rt_fmt(path, sizeof(path), "%s/%s", nic->cc_dir,
			 rt_cc_file(nic->cc, want->key));
		return rt_ccfile_write(path, (uint32_t)want->v[0], msg, len);
	}
	rt_fmt(msg, len, "unknown setting");
	return -EINVAL;
}

/*
 * Every write addresses the NIC by its name (DCB netlink and the ethtool
 * ioctl take nothing else), so the name is checked to lead to the NIC's
 * ifindex before each write, and again after it: a rename racing the
 * write itself is reported, not taken for success.
 */
static int rt_sys_write(void *ctxp, const struct rt_nic *nic,
			const struct rt_setting *want,
			const struct rt_setting *cur, char *msg, size_t len)
{
	char name[64], why[512];
	int err;

	err = rt_sys_same_nic(nic, msg, len);
	if (err)
		return err;
	err = rt_sys_write_one(ctxp, nic, want, cur, msg, len);
	if (rt_sys_same_nic(nic, why, sizeof(why))) {
		rt_setting_name(want, name, sizeof(name));
		rt_fmt(msg, len,
		       "%s changed during the write of %s, which may have reached another device: %s",
		       nic->id.netdev, name, why);
		return -ESTALE;
	}
	return err;
}

const struct rt_backend_ops rt_backend_sys = {
	.read = rt_sys_read,
	.write = rt_sys_write,
};
