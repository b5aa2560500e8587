// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: what tells it of NICs and storms.  The scan of the host's
 * RoCE NICs (a new one is tracked and its profile applied, one gone
 * forgotten), rocetune.ko's event socket (hotplug, pause storms) and the
 * rtnetlink socket (RTNLGRP_LINK for NICs that appear without the module,
 * RTNLGRP_DCB for DCB drift).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "ag_state.h"
#include "rt_nl.h"

#define AG_DCB_SETTLE_MS	20	/* DCB notifications coalesced */

/* NIC scans ------------------------------------------------------------- */

/*
 * A NIC found: track it and apply its profile, with the storm action in it
 * if a storm lasts (one that a previous agent acted on, or that began
 * before the agent came).
 */
static void ag_add(struct ag *ag, const struct rt_nic *nic,
		   uint64_t origin_ns, const char *why)
{
	struct ag_nic *an, **v;

	an = calloc(1, sizeof(*an));
	v = realloc(ag->nics, (ag->n + 1) * sizeof(*v));
	if (!an || !v) {
		free(an);
		if (v)
			ag->nics = v;
		ag_log(AG_ERR, "%s: out of memory", nic->id.netdev);
		return;
	}
	ag->nics = v;
	ag->nics[ag->n++] = an;
	an->nic = *nic;
	an->seen = true;
	an->st.last_action_latency_s = -1;
	snprintf(an->st.netdev, sizeof(an->st.netdev), "%s", nic->id.netdev);
	snprintf(an->st.rdma_dev, sizeof(an->st.rdma_dev), "%s",
		 nic->id.rdma_dev);
	an->st.port = nic->port;
	ag_wd_init(&an->wd, 0);
	ag_nic_profile(ag, an);
	if (!an->prof) {
		ag_log(AG_INFO, "%s (%s/%u, %s): no profile matches; left alone",
		       nic->id.netdev, nic->id.rdma_dev, nic->port,
		       nic->id.driver);
		an->last_result = RT_RES_NO_PROFILE;
		return;
	}
	ag_log(AG_INFO, "%s (%s/%u, %s): profile %s (%s)", nic->id.netdev,
	       nic->id.rdma_dev, nic->port, nic->id.driver, an->prof->path,
	       why);
	if (an->prof->wd_action != RT_WD_ALERT)
		ag_storm_recall(an);
	ag_storm_resync(ag, an, why);
	ag_apply_profile(ag, an, why, origin_ns);
	ag_storm_ms(ag, an);
}

/*
 * Scan the host's RoCE NICs: apply the profile of each new one, forget
 * those gone.  @origin_ns: when what led here happened (for the hotplug
 * latency), 0 if unknown.  Returns the number of new NICs.
 */
int ag_rescan(struct ag *ag, uint64_t origin_ns, const char *why)
{
	struct rt_nic *list;
	struct ag_nic *an;
	char msg[512] = "";
	int n, i, added = 0;
	size_t j;

	ag->g.rescans++;
	n = rt_nic_list(&list, msg, sizeof(msg));
	if (n < 0) {
		ag_log(AG_ERR, "cannot list the RoCE NICs: %s", msg);
		return 0;
	}
	for (j = 0; j < ag->n; j++)
		ag->nics[j]->seen = false;
	for (i = 0; i < n; i++) {
		an = ag_find(ag, list[i].id.netdev);
		if (an && an->nic.ifindex == list[i].ifindex &&
		    !strcmp(an->nic.id.rdma_dev, list[i].id.rdma_dev)) {
			an->nic = list[i];
			an->seen = true;
			continue;
		}
		if (an) {
			/* Another device under that name: start afresh. */
			for (j = 0; ag->nics[j] != an; j++)
				;
			ag_remove(ag, j, "replaced by a new device");
		}
		ag_add(ag, &list[i], origin_ns, why);
		added++;
	}
	for (j = ag->n; j-- > 0;)
		if (!ag->nics[j]->seen)
			ag_remove(ag, j, "no longer a RoCE NIC");
	free(list);
	return added;
}

/* Module events --------------------------------------------------------- */

/*
 * A device appeared but is no RoCE NIC yet (its port has no netdev, or
 * the RDMA core has not yet added the netdev's GID, which its workqueue
 * does when it gets to it): look again, first after AG_RESCAN_RETRY_MS,
 * then less and less often, for AG_RESCAN_WINDOW_MS.  The periodic scan
 * catches what comes later still.
 */
static void ag_rescan_soon(struct ag *ag, uint64_t origin_ns)
{
	uint64_t now = ag_now_ms();

	if (!ag->rescan_due_ms || !ag->rescan_origin_ns)
		ag->rescan_origin_ns = origin_ns;
	ag->rescan_step_ms = AG_RESCAN_RETRY_MS;
	ag->rescan_due_ms = now + ag->rescan_step_ms;
	ag->rescan_until_ms = now + AG_RESCAN_WINDOW_MS;
}

static void ag_on_event(struct ag *ag, const struct rt_event *ev)
{
	const char *name = rt_event_name(ev->type);
	uint64_t origin;
	size_t i;

	ag->g.events++;
	ag_log(AG_DEBUG, "event %s %s/%u %s", name ? name : "?", ev->dev,
	       ev->port, ev->netdev);
	switch (ev->type) {
	case ROCETUNE_EVENT_DEV_ADD:
	case ROCETUNE_EVENT_PORT_NETDEV:
	case ROCETUNE_EVENT_DEV_RENAME:
		origin = rt_has(ev->attrs, ROCETUNE_A_EVENT_TIME_NS) &&
			 ev->time_ns ? ev->time_ns : ag_now_ns();
		if (!ag_rescan(ag, origin, "hotplug"))
			ag_rescan_soon(ag, origin);
		/* Found before the module knew it: its threshold now. */
		for (i = 0; i < ag->n; i++)
			if (!strcmp(ag->nics[i]->nic.id.rdma_dev, ev->dev))
				ag_storm_ms(ag, ag->nics[i]);
		break;
	case ROCETUNE_EVENT_DEV_DEL:
		ag_rescan(ag, 0, "hotplug");
		break;
	case ROCETUNE_EVENT_STORM_START:
	case ROCETUNE_EVENT_STORM_END:
		ag_storm_event(ag, ev);
		break;
	default:
		break;
	}
}

static int ag_event_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_event ev;

	if (rt_event_parse(nlh, &ev)) {
		ag_log(AG_WARNING, "malformed event from rocetune.ko; skipped");
		return 0;
	}
	ag_on_event(arg, &ev);
	return 0;
}

static void ag_check_all(struct ag *ag, const char *why)
{
	size_t i;

	for (i = 0; i < ag->n; i++)
		ag_check(ag, ag->nics[i], why);
}

void ag_module_open(struct ag *ag, bool quiet)
{
	size_t i;
	int err;

	if (!ag->cmd_open && !rt_nl_open(&ag->cmd))
		ag->cmd_open = true;
	if (ag->ev_open)
		return;
	err = rt_nl_event_open(&ag->ev, ROCETUNE_MCGRP_EVENTS,
			       (int)ag->o.event_buffer);
	if (err) {
		if (!quiet)
			ag_log(AG_NOTICE, "rocetune.ko is not loaded: no hotplug or pause-storm events from it (new NICs are found from link notifications and polls; retrying every %u s)",
			       AG_MODULE_RETRY_MS / 1000);
		return;
	}
	nl_socket_set_nonblocking(ag->ev.sk);
	ag->ev_open = true;
	ag->g.module = true;
	ag_log(AG_INFO, "receiving rocetune.ko's events");
	for (i = 0; i < ag->n; i++) {
		ag->nics[i]->storm_ms_done = false;
		ag_storm_ms(ag, ag->nics[i]);
	}
	/* Storms may have begun or ended unseen. */
	ag_storm_resync_all(ag, "module events");
}

/*
 * A family that went away (module unloaded) or came back under another
 * id (loaded again) sends nothing to the old subscription: resubscribe.
 */
void ag_module_verify(struct ag *ag)
{
	struct rt_nl probe;
	int err;

	if (!ag->ev_open)
		return;
	err = rt_nl_open(&probe);
	if (!err && probe.family == ag->ev.family) {
		rt_nl_close(&probe);
		return;
	}
	if (!err)
		rt_nl_close(&probe);
	ag_log(AG_NOTICE, "rocetune.ko %s: resubscribing to its events",
	       err ? "was unloaded" : "was loaded again");
	rt_nl_close(&ag->ev);
	ag->ev_open = false;
	ag->g.module = false;
	if (ag->cmd_open) {
		rt_nl_close(&ag->cmd);
		ag->cmd_open = false;
	}
	ag_module_open(ag, true);
	ag->module_retry_ms = ag_now_ms() + AG_MODULE_RETRY_MS;
}

void ag_module_read(struct ag *ag)
{
	int err = rt_nl_event_recv(&ag->ev, ag_event_cb, ag);

	if (err == -ENOBUFS) {
		ag->g.events_lost++;
		ag_log(AG_WARNING, "events from rocetune.ko were lost (socket overrun): checking every NIC and its storm state");
		ag_rescan(ag, 0, "events lost");
		ag_storm_resync_all(ag, "events lost");
		ag_check_all(ag, "events lost");
	} else if (err && err != -EAGAIN) {
		ag_log(AG_WARNING, "rocetune.ko's event socket: %s; reopening",
		       strerror(-err));
		rt_nl_close(&ag->ev);
		ag->ev_open = false;
		ag->g.module = false;
		ag->module_retry_ms = ag_now_ms() + AG_MODULE_RETRY_MS;
	}
}

/* rtnetlink ------------------------------------------------------------- */

int ag_rtnl_open(struct ag *ag)
{
	int grp = RTNLGRP_DCB, buf = (int)ag->o.event_buffer, fd;

	ag->rtnl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!ag->rtnl)
		return -errno;
	fd = mnl_socket_get_fd(ag->rtnl);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (mnl_socket_bind(ag->rtnl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) ||
	    mnl_socket_setsockopt(ag->rtnl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)))
		return -errno;
	return 0;
}

static void ag_rtnl_msg(struct ag *ag, const struct ag_rtnl_msg *m)
{
	struct ag_nic *an;
	size_t i;

	switch (m->kind) {
	case AG_RTNL_NEWLINK:
		an = ag_find_ifindex(ag, m->ifindex);
		if (an && !strcmp(an->nic.id.netdev, m->ifname))
			return;
		/* A new netdev: its RDMA device may follow; look a few times. */
		ag_rescan_soon(ag, ag_now_ns());
		return;
	case AG_RTNL_DELLINK:
		for (i = 0; i < ag->n; i++)
			if (ag->nics[i]->nic.ifindex == m->ifindex) {
				ag_remove(ag, i, "netdev removed");
				return;
			}
		return;
	case AG_RTNL_DCB:
		an = ag_find(ag, m->ifname);
		if (!an || !ag_profile(an))
			return;
		ag_log(AG_DEBUG, "%s: DCB notification", m->ifname);
		if (!an->dcb_due_ms)
			an->dcb_due_ms = ag_now_ms() + AG_DCB_SETTLE_MS;
		return;
	default:
		return;
	}
}

void ag_rtnl_read(struct ag *ag)
{
	static char buf[65536] __attribute__((aligned(8)));
	const struct nlmsghdr *nlh;
	struct ag_rtnl_msg m;
	ssize_t n;
	int len;

	for (;;) {
		n = mnl_socket_recvfrom(ag->rtnl, buf, sizeof(buf));
		if (n < 0) {
			if (errno == ENOBUFS) {
				ag->g.events_lost++;
				ag_log(AG_WARNING, "rtnetlink notifications were lost (socket overrun): checking every NIC");
				ag_rescan(ag, 0, "notifications lost");
				ag_check_all(ag, "notifications lost");
				continue;
			}
			return;		/* EAGAIN */
		}
		len = (int)n;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len))
			if (!ag_rtnl_parse(nlh, (size_t)len, &m))
				ag_rtnl_msg(ag, &m);
	}
}
