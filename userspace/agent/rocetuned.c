// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the agent that keeps every RoCE NIC as its profile says.
 *
 *	rocetuned [ --foreground ] [ --metrics-listen ADDR:PORT ]
 *		  [ --web.config.file FILE ] [ --metrics-qp-labels ]
 *		  [ --metrics-max-series N ]
 *		  [ --poll-interval SEC ] [ --event-buffer BYTES ] [ --verbose ]
 *
 * One poll() loop over: rocetune.ko's event socket (hotplug, pause
 * storms), an rtnetlink socket (RTNLGRP_LINK for NICs that appear
 * without the module, RTNLGRP_DCB for DCB drift), a timerfd (polls of
 * what sends no notification, storm restores, rescans), a signalfd
 * (SIGHUP reloads the profiles, SIGTERM/SIGINT stop), the status socket
 * and the /metrics server.  Applies go through the library's
 * transactional engine (rt_apply_nic()).  Documentation/agent.rst.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <systemd/sd-daemon.h>

#include "agent.h"
#include "rt_dcb.h"
#include "rt_ethtool.h"
#include "rt_model.h"
#include "rt_nic.h"
#include "rt_nl.h"
#include "rt_print.h"
#include "rt_prom.h"
#include "rt_util.h"

#define AG_DCB_SETTLE_MS	20	/* DCB notifications coalesced */
#define AG_EVENT_BUFFER		(4u << 20)	/* --event-buffer */
#define AG_MODULE_RETRY_MS	10000	/* retry opening rocetune's events */
#define AG_PORTS_MAX		64	/* port series per scrape */
#define AG_MAX_SERIES		1000	/* --metrics-max-series */
#define AG_RESCAN_RETRY_MS	50	/* a new device is no NIC yet: look */
#define AG_RESCAN_RETRY_MAX_MS	1000	/* again, backing off to 1 s, */
#define AG_RESCAN_WINDOW_MS	30000	/* for 30 s */
#define AG_LOCK_RETRY_MS	50	/* another apply holds a NIC's lock */

enum ag_drift_state {
	AG_DRIFT_NONE,		/* as the profile says */
	AG_DRIFT_REAPPLIED,	/* drift found and written back */
	AG_DRIFT_REPORTED,	/* drift found, OnDrift=report */
	AG_DRIFT_SUPPRESSED,	/* re-apply limit reached: left alone */
};

static const char *const ag_drift_names[] = {
	[AG_DRIFT_NONE] = "none",
	[AG_DRIFT_REAPPLIED] = "reapplied",
	[AG_DRIFT_REPORTED] = "reported",
	[AG_DRIFT_SUPPRESSED] = "suppressed",
};

struct ag_nic {
	struct rt_nic nic;
	bool seen;			/* found by the last rescan */
	const struct rt_profile *prof;	/* in ag.set, NULL: none matches */
	struct rt_profile *eff;		/* while a storm action holds */
	bool applied_once;
	enum rt_result last_result;
	char last_error[1024];
	double last_apply_wall;
	enum ag_drift_state drift;
	char drift_desc[512];		/* the settings of the last drift */
	uint64_t dcb_due_ms;		/* a DCB notification to check */
	uint64_t poll_due_ms;
	struct ag_ratelimit rl;
	struct ag_wd wd;
	struct ag_storm storm;		/* what the storm action read */
	uint64_t storm_retry_ms;	/* act again: the last one skipped */
	unsigned int storm_skips;	/* skipped in a row (logged once) */
	bool storm_ms_done;		/* StormMs= given to the module */
	/* [Tune]: the closed loop (ag_tune.c) */
	bool tune;			/* the profile has a rule */
	struct ag_tune_rule tr;
	struct ag_tune_state ts;
	uint64_t tune_due_ms;		/* the next sample */
	uint64_t tune_sample_ns;	/* the module's sample last used */
	enum ag_tune_reason tune_logged;	/* last hold reason logged */
	bool tune_unavailable;		/* logged: the metric is absent */
	bool journal_stuck;		/* at the last drift check */
	/*
	 * Another process (the CLI, a rocetune-apply@ unit) holds the NIC's
	 * lock: nothing waits for it in the loop; what found it held is
	 * tried again every AG_LOCK_RETRY_MS (ag_lock_retry()).
	 */
	uint64_t lock_retry_ms;		/* the next try, 0: nothing waits */
	uint64_t lock_since_ms;		/* found held since, 0: free */
	uint8_t storm_busy;		/* priorities whose action waits */
	uint64_t storm_busy_ns;		/* the event the first one answers */
	bool restore_busy;		/* the storm restore waits */
	bool apply_busy;		/* the profile's apply waits */
	char apply_busy_why[32];
	uint64_t apply_busy_origin_ns;	/* a hotplug's, for its latency */
	bool check_busy;		/* a drift check waits */
	struct ag_stats st;
};

struct ag_opts {
	bool foreground;
	const char *metrics_listen;
	const char *web_config;		/* --web.config.file */
	bool qp_labels;			/* --metrics-qp-labels */
	uint32_t max_series;		/* --metrics-max-series: QP series */
	uint32_t poll_interval_s;
	uint32_t event_buffer;		/* SO_RCVBUF of the event sockets */
	int verbose;
};

struct ag {
	struct ag_opts o;
	struct rt_profile_set set;
	struct ag_nic **nics;
	size_t n;
	struct rt_sys_ctx ctx;
	struct rt_dcb *dcb;		/* reads of a NIC's PFC */
	struct rt_apply_result *res;
	struct rt_nl ev;		/* rocetune.ko's events */
	bool ev_open;
	struct rt_nl cmd;		/* CONFIG_SET, PORT_GET */
	bool cmd_open;
	struct mnl_socket *rtnl;
	int tfd, sfd, lock_fd, ready_fd;
	struct ag_status *status;	/* "rocetune agent status" */
	struct ag_http *http;
	struct ag_web *web;		/* --web.config.file, NULL: none */
	struct ag_global g;
	uint64_t rescan_due_ms;
	uint64_t rescan_until_ms;	/* end of the look-again window */
	unsigned int rescan_step_ms;	/* current look-again period */
	uint64_t rescan_origin_ns;	/* what the rescan answers, 0: none */
	uint64_t module_retry_ms;
	uint64_t periodic_rescan_ms;
	char reload_error[RT_DIAG_LEN];
	bool ready;			/* READY=1 sent */
	uint64_t watchdog_ms;		/* WatchdogSec=, 0: none */
	uint64_t watchdog_due_ms;	/* the next WATCHDOG=1 */
	bool stop;
};

/* Time ------------------------------------------------------------------ */

static uint64_t ag_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t ag_now_ms(void)
{
	return ag_now_ns() / 1000000;
}

static double ag_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Profiles of a NIC ----------------------------------------------------- */

static uint32_t ag_poll_s(const struct ag *ag, const struct rt_profile *p)
{
	if (p && rt_profile_has(p, RT_PK_AGENT_POLL_INTERVAL_SEC))
		return p->poll_interval_s;
	return ag->o.poll_interval_s;
}

/*
 * The profile in force: the NIC's profile, or while a storm action holds,
 * that profile with the action's setting in it, so that the action is not
 * taken for drift.
 */
static const struct rt_profile *ag_profile(const struct ag_nic *an)
{
	return an->eff ? an->eff : an->prof;
}

static int ag_eff_build(struct ag_nic *an)
{
	const struct rt_profile *b = an->prof;
	bool storm = b && b->wd_action != RT_WD_ALERT && an->wd.acted &&
		     an->storm.saved && an->storm.action == b->wd_action;
	bool tune = b && an->tune && an->ts.value != an->tr.base;

	if (!storm && !tune) {
		free(an->eff);
		an->eff = NULL;
		return 0;
	}
	if (!an->eff) {
		an->eff = malloc(sizeof(*an->eff));
		if (!an->eff)
			return -ENOMEM;
	}
	*an->eff = *b;
	/* The rule's value in force is no drift (its line: Parameter=). */
	if (tune)
		an->eff->dcqcn[b->tune_param] = an->ts.value;
	/* The action in force: what it read, without the acted bits. */
	if (storm)
		ag_storm_eff(&an->storm, b, an->wd.acted, an->eff);
	return 0;
}

/*
 * @p with only [DCQCN] @param (and [Match]): what a [Tune] decision
 * writes, read back and, on failure, restored by the engine.
 */
static void ag_param_only(struct rt_profile *p, enum rt_dcqcn_param param)
{
	unsigned int k;

	for (k = RT_PK_MATCH_NUM; k < RT_PK_NUM; k++)
		if (k != RT_PK_DCQCN + param)
			p->line[k] = 0;
}

/* Applying -------------------------------------------------------------- */

static void ag_log_result(const struct ag_nic *an, const struct rt_profile *p,
			  const char *why, const struct rt_apply_result *res,
			  double ms)
{
	unsigned int i, n = res->diag.n < RT_DIAG_MAX ? res->diag.n :
			    RT_DIAG_MAX;
	const char *nd = an->nic.id.netdev;

	switch (res->result) {
	case RT_RES_APPLIED:
		ag_log(AG_NOTICE, "%s: profile %s applied (%s): %u write%s in %.1f ms",
		       nd, p->name, why, res->writes,
		       res->writes == 1 ? "" : "s", ms);
		break;
	case RT_RES_UNCHANGED:
		ag_log(AG_INFO, "%s: profile %s (%s): already in force, 0 writes",
		       nd, p->name, why);
		break;
	default:
		ag_log(AG_ERR, "%s: profile %s (%s): %s: %s", nd, p->name, why,
		       rt_result_name(res->result),
		       res->error[0] ? res->error : "?");
		if (res->state[0])
			ag_log(AG_ERR, "%s: %s", nd, res->state);
		for (i = 0; i < n; i++)
			ag_log(AG_ERR, "%s: %s", nd, res->diag.msg[i]);
	}
	if (res->recovered)
		ag_log(AG_WARNING, "%s: an interrupted apply was undone first (%u writes)",
		       nd, res->recovered_writes);
	if (res->warning[0])
		ag_log(AG_WARNING, "%s: %s", nd, res->warning);
}

/* systemd's watchdog (WatchdogSec=): WATCHDOG=1 at half its period. */
static void ag_watchdog(struct ag *ag)
{
	uint64_t now;

	if (!ag->watchdog_ms)
		return;
	now = ag_now_ms();
	if (now < ag->watchdog_due_ms)
		return;
	sd_notify(0, "WATCHDOG=1");
	ag->watchdog_due_ms = now + ag->watchdog_ms / 2;
}

/*
 * Another process holds @an's lock (@msg says who): try again in
 * AG_LOCK_RETRY_MS, never waiting in the loop.  Said once per hold.
 */
static void ag_lock_busy(struct ag_nic *an, const char *msg, const char *why)
{
	uint64_t now = ag_now_ms();

	an->st.lock_busy++;
	if (!an->lock_since_ms) {
		an->lock_since_ms = now;
		ag_log(AG_NOTICE, "%s: %s (%s): the agent does not wait; it tries again every %u ms",
		       an->nic.id.netdev, msg, why, AG_LOCK_RETRY_MS);
	}
	an->lock_retry_ms = now + AG_LOCK_RETRY_MS;
}

/* The lock was free for what tried it. */
static void ag_lock_free(struct ag_nic *an)
{
	if (!an->lock_since_ms)
		return;
	ag_log(AG_NOTICE, "%s: the NIC's lock is free again after %" PRIu64 " ms",
	       an->nic.id.netdev, ag_now_ms() - an->lock_since_ms);
	an->lock_since_ms = 0;
}

/* A start-up apply may take long (mlx5 flaps the link on a PFC change). */
#define AG_START_EXTEND_US	30000000u

/*
 * Apply @p to @an for real, without waiting for its lock; the result is
 * in ag->res.  0 when in force, -EBUSY when another process holds the
 * NIC's lock (nothing read or written: the caller tries again).
 */
static int ag_apply(struct ag *ag, struct ag_nic *an,
		    const struct rt_profile *p, const char *why)
{
	struct rt_apply_opts o = { .lock_wait_ms = 0 };
	struct rt_apply_result *res = ag->res;
	uint64_t t0 = ag_now_ns();
	int ret;

	ag_watchdog(ag);
	if (!ag->ready)
		sd_notifyf(0, "EXTEND_TIMEOUT_USEC=%u", AG_START_EXTEND_US);
	ret = rt_apply_nic_opts(&rt_backend_sys, &ag->ctx, &an->nic, p, &o,
				res);
	if (res->lock_busy) {
		ag_lock_busy(an, res->error, why);
		return -EBUSY;
	}
	ag_lock_free(an);
	an->st.applies[res->result]++;
	an->st.writes += res->writes + res->restore_writes +
			 res->recovered_writes;
	if (ret)
		an->st.failures++;
	an->last_result = res->result;
	snprintf(an->last_error, sizeof(an->last_error), "%s", res->error);
	an->last_apply_wall = ag_wall();
	an->st.last_apply_time_s = an->last_apply_wall;
	an->applied_once = true;
	ag_log_result(an, p, why, res, (double)(ag_now_ns() - t0) / 1e6);
	return ret;
}

/*
 * Apply the profile in force (@why: "start", "hotplug", ...); while
 * another process holds the NIC's lock it waits in @an, tried again by
 * ag_lock_retry().  @origin_ns: the hotplug it answers (its latency is
 * logged when applied), 0 if none.
 */
static void ag_apply_profile(struct ag *ag, struct ag_nic *an,
			     const char *why, uint64_t origin_ns)
{
	double lat;
	int ret;

	ret = ag_apply(ag, an, ag_profile(an), why);
	if (ret == -EBUSY) {
		if (!an->apply_busy || !an->apply_busy_origin_ns)
			an->apply_busy_origin_ns = origin_ns;
		an->apply_busy = true;
		snprintf(an->apply_busy_why, sizeof(an->apply_busy_why), "%s",
			 why);
		return;
	}
	an->apply_busy = false;
	if (an->apply_busy_origin_ns && !origin_ns)
		origin_ns = an->apply_busy_origin_ns;
	an->apply_busy_origin_ns = 0;
	if (origin_ns) {
		lat = (double)(ag_now_ns() - origin_ns) / 1e9;
		ag_hist_add(&ag->g.hotplug_latency, lat);
		ag_log(AG_NOTICE, "%s: hotplug -> profile applied in %.1f ms",
		       an->nic.id.netdev, lat * 1e3);
	}
}

/* The module's storm threshold for this NIC's device ([Watchdog] StormMs=). */
static void ag_storm_ms(struct ag *ag, struct ag_nic *an)
{
	const struct rt_profile *p = an->prof;
	struct nl_msg *msg;
	int err;

	if (!p || !rt_profile_has(p, RT_PK_WD_STORM_MS) || !ag->cmd_open ||
	    !an->nic.id.rdma_dev[0] || an->storm_ms_done)
		return;
	msg = rt_nl_msg_dev(&ag->cmd, ROCETUNE_CMD_CONFIG_SET,
			    an->nic.id.rdma_dev, 0);
	if (!msg || nla_put_u32(msg, ROCETUNE_A_STORM_MS, p->wd_storm_ms)) {
		nlmsg_free(msg);
		return;
	}
	err = rt_nl_do(&ag->cmd, msg, NULL, NULL);
	if (err == -ENODEV)
		ag_log(AG_INFO, "%s: rocetune.ko does not know %s yet: its storm threshold is set when the module reports it",
		       an->nic.id.netdev, an->nic.id.rdma_dev);
	else if (err)
		ag_log(AG_WARNING, "%s: cannot set the module's storm threshold of %s to %u ms (StormMs=): %s%s%s",
		       an->nic.id.netdev, an->nic.id.rdma_dev, p->wd_storm_ms,
		       strerror(-err), ag->cmd.ext_msg[0] ? ": " : "",
		       ag->cmd.ext_msg);
	else
		ag_log(AG_INFO, "%s: the module's storm threshold of %s is %u ms (StormMs=)",
		       an->nic.id.netdev, an->nic.id.rdma_dev, p->wd_storm_ms);
	an->storm_ms_done = !err;
}

/* The [Tune] rule of the NIC's profile: it starts from the profile's value. */
static void ag_tune_setup(struct ag_nic *an)
{
	const struct rt_profile *p = an->prof;

	an->tune = p && rt_profile_has(p, RT_PK_TUNE_PARAMETER);
	an->st.tune = an->tune;
	an->tune_sample_ns = 0;
	an->tune_logged = AG_TUNE_R_IDLE;
	an->tune_unavailable = false;
	if (!an->tune)
		return;
	ag_tune_rule_from(&an->tr, p);
	ag_tune_init(&an->ts, &an->tr);
	snprintf(an->st.tune_param, sizeof(an->st.tune_param), "%s",
		 rt_dcqcn_keys[p->tune_param].key);
	an->st.tune_value = an->ts.value;
	an->st.tune_stopped = an->ts.stopped;
	an->tune_due_ms = ag_now_ms() + p->tune_interval_ms;
}

static void ag_nic_profile(struct ag *ag, struct ag_nic *an)
{
	const struct rt_profile *p;

	an->prof = rt_profile_find(&ag->set, &an->nic.id);
	p = an->prof;
	an->storm_ms_done = false;
	snprintf(an->st.profile, sizeof(an->st.profile), "%s",
		 p ? p->name : "");
	ag_rl_init(&an->rl, p ? p->max_reapplies : 0,
		   p ? p->reapply_window_s : 1);
	an->st.suppressed = false;
	an->drift = AG_DRIFT_NONE;
	an->drift_desc[0] = '\0';
	an->wd.restore_after_ms = p ? p->wd_restore_after_ms : 0;
	an->poll_due_ms = ag_now_ms() + (uint64_t)ag_poll_s(ag, p) * 1000;
	ag_tune_setup(an);
}

/* NICs ------------------------------------------------------------------- */

static struct ag_nic *ag_find(struct ag *ag, const char *netdev)
{
	size_t i;

	for (i = 0; i < ag->n; i++)
		if (!strcmp(ag->nics[i]->nic.id.netdev, netdev))
			return ag->nics[i];
	return NULL;
}

static struct ag_nic *ag_find_ifindex(struct ag *ag, int ifindex)
{
	size_t i;

	for (i = 0; i < ag->n; i++)
		if (ag->nics[i]->nic.ifindex == ifindex)
			return ag->nics[i];
	return NULL;
}

static struct ag_nic *ag_find_port(struct ag *ag, const char *dev,
				   uint32_t port)
{
	size_t i;

	for (i = 0; i < ag->n; i++)
		if (!strcmp(ag->nics[i]->nic.id.rdma_dev, dev) &&
		    (!port || ag->nics[i]->nic.port == port))
			return ag->nics[i];
	return NULL;
}

static void ag_nic_free(struct ag_nic *an)
{
	free(an->eff);
	free(an);
}

static void ag_remove(struct ag *ag, size_t i, const char *why)
{
	struct ag_nic *an = ag->nics[i];

	ag_log(AG_NOTICE, "%s: gone (%s)", an->nic.id.netdev, why);
	ag_nic_free(an);
	memmove(ag->nics + i, ag->nics + i + 1,
		(ag->n - i - 1) * sizeof(ag->nics[0]));
	ag->n--;
}

static void ag_storm_recall(struct ag_nic *an);
static void ag_storm_resync(struct ag *ag, struct ag_nic *an,
			    const char *why);

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
static int ag_rescan(struct ag *ag, uint64_t origin_ns, const char *why)
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

/* Drift ----------------------------------------------------------------- */

/*
 * A stuck journal (rt_run.h) fails every apply to the NIC until it is
 * restored or discarded: said once; when it is gone the profile is
 * applied at once and re-applies start afresh.  1 when that apply ran.
 */
static int ag_journal_check(struct ag *ag, struct ag_nic *an)
{
	const struct rt_profile *p = ag_profile(an);
	char why[1024];
	bool stuck;

	stuck = rt_journal_status(&an->nic, why, sizeof(why)) ==
		RT_JOURNAL_STUCK;
	an->st.journal_stuck = stuck;
	if (stuck && !an->journal_stuck)
		ag_log(AG_ERR, "%s: a journal blocks applies until it is restored or discarded: %s",
		       an->nic.id.netdev, why);
	if (stuck || !an->journal_stuck) {
		an->journal_stuck = stuck;
		return 0;
	}
	an->journal_stuck = false;
	ag_log(AG_NOTICE, "%s: the journal that blocked applies is gone: applying profile %s",
	       an->nic.id.netdev, p->name);
	ag_rl_init(&an->rl, p->max_reapplies, p->reapply_window_s);
	an->drift = AG_DRIFT_NONE;
	ag_apply_profile(ag, an, "journal gone", 0);
	return 1;
}

static void ag_check(struct ag *ag, struct ag_nic *an, const char *why)
{
	struct rt_apply_opts o = { .dry_run = true, .dry_run_locked = true };
	const struct rt_profile *p = ag_profile(an);
	struct rt_apply_result *res = ag->res;
	char name[64], a[256], b[256], desc[sizeof(an->drift_desc)];
	uint64_t now = ag_now_ms();
	size_t off = 0;
	bool fresh, again;
	unsigned int i;
	int level;

	if (!p || ag_journal_check(ag, an))
		return;
	/*
	 * Under the NIC's lock, not waiting: while another process applies
	 * (the CLI, a rocetune-apply@ unit) the NIC is half-way between two
	 * states.  Then this round is skipped (no drift, nothing counted
	 * against MaxReapplies=) and the check runs when the lock is free.
	 */
	rt_apply_nic_opts(&rt_backend_sys, &ag->ctx, &an->nic, p, &o, res);
	if (res->lock_busy) {
		an->check_busy = true;
		an->st.drift_checks_skipped++;
		ag_lock_busy(an, res->error, why);
		return;
	}
	an->check_busy = false;
	ag_lock_free(an);
	an->st.drift_checks++;
	if (res->result == RT_RES_UNCHANGED) {
		if (an->drift == AG_DRIFT_REPORTED)
			ag_log(AG_NOTICE, "%s: as profile %s says again (%s)",
			       an->nic.id.netdev, p->name, why);
		if (an->drift != AG_DRIFT_SUPPRESSED)
			an->drift = AG_DRIFT_NONE;
		return;
	}
	if (res->result == RT_RES_VANISHED) {
		ag->rescan_due_ms = now;
		return;
	}
	if (res->result != RT_RES_DRY_RUN) {
		ag_log(AG_WARNING, "%s: cannot compare with profile %s (%s): %s",
		       an->nic.id.netdev, p->name, why, res->error);
		return;
	}

	for (i = 0; i < res->nchanges; i++) {
		rt_setting_name(&res->changes[i].want, name, sizeof(name));
		rt_setting_value(&res->changes[i].old, a, sizeof(a));
		rt_setting_value(&res->changes[i].want, b, sizeof(b));
		if (res->changes[i].old.absent)
			snprintf(a, sizeof(a), "absent");
		off += (size_t)snprintf(desc + off, off < sizeof(desc) ?
					sizeof(desc) - off : 0,
					"%s%s: %s -> %s", off ? "; " : "",
					name, a, b);
	}
	/*
	 * A drift left alone (reported, or re-applies stopped) that is
	 * still the same is not news: counted and logged once.
	 */
	again = (an->drift == AG_DRIFT_REPORTED ||
		 an->drift == AG_DRIFT_SUPPRESSED) &&
		!strcmp(desc, an->drift_desc);
	level = again || an->drift == AG_DRIFT_SUPPRESSED ? AG_DEBUG :
		AG_WARNING;
	for (i = 0; i < res->nchanges; i++) {
		rt_setting_name(&res->changes[i].want, name, sizeof(name));
		rt_setting_value(&res->changes[i].old, a, sizeof(a));
		rt_setting_value(&res->changes[i].want, b, sizeof(b));
		if (res->changes[i].old.absent)
			snprintf(a, sizeof(a), "absent");
		if (!again)
			ag_stats_drift(&an->st, name);
		ag_log(level, "%s: drift (%s): %s is %s, profile %s wants %s",
		       an->nic.id.netdev, why, name, a, p->name, b);
	}
	memcpy(an->drift_desc, desc, sizeof(desc));

	if (p->on_drift == RT_DRIFT_REPORT || !p->max_reapplies) {
		if (!again)
			ag_log(AG_NOTICE, "%s: drift reported only (%s)",
			       an->nic.id.netdev,
			       p->on_drift == RT_DRIFT_REPORT ?
			       "OnDrift=report" : "MaxReapplies=0");
		an->drift = AG_DRIFT_REPORTED;
		return;
	}
	fresh = !an->rl.suppressed;
	if (!ag_rl_allow(&an->rl, now)) {
		if (!again)
			an->st.suppressions++;
		an->st.suppressed = true;
		an->drift = AG_DRIFT_SUPPRESSED;
		if (fresh)
			ag_log(AG_WARNING, "%s: %u drift re-applies within %u s (MaxReapplies=%u, ReapplyWindowSec=%u): something keeps changing it; the agent stops re-applying %s and only reports drift until the profiles are reloaded (SIGHUP) or the NIC comes back",
			       an->nic.id.netdev, an->rl.n, p->reapply_window_s,
			       p->max_reapplies, p->reapply_window_s,
			       an->nic.id.netdev);
		return;
	}
	an->drift = AG_DRIFT_REAPPLIED;
	an->st.reapplies++;
	ag_apply_profile(ag, an, "drift", 0);
}

/* Pause storms ---------------------------------------------------------- */

#define AG_STORM_RETRY_MS	200	/* a skipped action: read again */

/* What the storm code (ag_storm.c) reads and writes through: this NIC. */
struct ag_storm_io {
	struct ag *ag;
	struct ag_nic *an;
};

static int ag_storm_read_pfc(void *arg, uint8_t *pfc_en, char *msg,
			     size_t len)
{
	struct ag_storm_io *io = arg;
	struct rt_dcb_state *ds;
	int err;

	if (!io->ag->dcb) {
		snprintf(msg, len, "no DCB netlink socket");
		return -ENOTCONN;
	}
	ds = calloc(1, sizeof(*ds));
	if (!ds) {
		snprintf(msg, len, "out of memory");
		return -ENOMEM;
	}
	err = rt_dcb_get(io->ag->dcb, io->an->nic.id.netdev, ds, msg, len);
	if (!err && !ds->has_pfc) {
		snprintf(msg, len, "the driver reported no PFC state");
		err = -ENODATA;
	}
	if (!err)
		*pfc_en = ds->pfc.pfc_en;
	free(ds);
	return err;
}

static int ag_storm_read_tout(void *arg, uint16_t *ms, char *msg, size_t len)
{
	struct ag_storm_io *io = arg;

	return rt_ethtool_get_pfc_storm(io->an->nic.id.netdev, ms, msg, len);
}

static int ag_storm_apply(void *arg, const struct rt_profile *p,
			  const char *why)
{
	struct ag_storm_io *io = arg;

	return ag_apply(io->ag, io->an, p, why);
}

static const struct ag_storm_ops ag_storm_sys = {
	.read_pfc = ag_storm_read_pfc,
	.read_tout = ag_storm_read_tout,
	.apply = ag_storm_apply,
};

/*
 * An action in force survives the agent: RUN_DIR/NETDEV.storm says what
 * it read and which priorities it covers, so that an agent started after
 * a crash keeps the action while the storm lasts and restores what was
 * there before it (not the state the action left).
 */
static int ag_storm_path(const struct ag_nic *an, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s.storm", rt_run_dir(),
			 an->nic.id.netdev);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void ag_storm_forget(struct ag_nic *an)
{
	char path[1024];

	if (!ag_storm_path(an, path, sizeof(path)) && unlink(path) &&
	    errno != ENOENT)
		ag_log(AG_WARNING, "%s: cannot remove %s: %s",
		       an->nic.id.netdev, path, strerror(errno));
}

static void ag_storm_persist(struct ag_nic *an)
{
	char path[1024], tmp[1100];
	FILE *f;

	if (ag_storm_path(an, path, sizeof(path)))
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (rt_run_dir_create(NULL, 0))
		goto fail;
	f = fopen(tmp, "we");
	if (!f)
		goto fail;
	fprintf(f, "rocetuned-storm 1 ifindex=%d action=%s pfc=0x%02x tout=%d acted=0x%02x\n",
		an->nic.ifindex, rt_wd_action_name(an->storm.action),
		an->storm.pfc_en, an->storm.tout_ok ? (int)an->storm.tout : -1,
		an->wd.acted);
	if (fclose(f) || rename(tmp, path))
		goto fail;
	return;
fail:
	ag_log(AG_WARNING, "%s: cannot record the storm action in %s: %s (an agent restarted during the storm would not know what to restore)",
	       an->nic.id.netdev, path, strerror(errno));
	unlink(tmp);
}

/* At start or hotplug: an action a previous agent left in force. */
static void ag_storm_recall(struct ag_nic *an)
{
	const struct rt_profile *p = an->prof;
	char path[1024], action[32];
	unsigned int pfc, acted;
	int ifindex, tout, n;
	FILE *f;

	if (ag_storm_path(an, path, sizeof(path)))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	n = fscanf(f, "rocetuned-storm 1 ifindex=%d action=%31s pfc=%x tout=%d acted=%x",
		   &ifindex, action, &pfc, &tout, &acted);
	fclose(f);
	if (n != 5 || pfc > 0xff || acted > 0xff || !acted || tout > 0xffff) {
		ag_log(AG_WARNING, "%s: %s is not a storm record: removed",
		       an->nic.id.netdev, path);
		ag_storm_forget(an);
		return;
	}
	if (ifindex != an->nic.ifindex || !p || p->wd_action == RT_WD_ALERT ||
	    strcmp(action, rt_wd_action_name(p->wd_action))) {
		ag_log(AG_NOTICE, "%s: %s is of %s (ifindex %d, Action=%s): removed",
		       an->nic.id.netdev, path,
		       ifindex != an->nic.ifindex ? "another device" :
		       "another profile", ifindex, action);
		ag_storm_forget(an);
		return;
	}
	an->storm.saved = true;
	an->storm.action = p->wd_action;
	an->storm.pfc_en = (uint8_t)pfc;
	an->storm.tout_ok = tout >= 0;
	an->storm.tout = tout >= 0 ? (uint16_t)tout : 0;
	an->storm.in_force = true;
	/* As the previous agent left it; the module's state follows. */
	an->wd.state = AG_WD_ACTIVE;
	an->wd.storming = (uint8_t)acted;
	an->wd.acted = (uint8_t)acted;
	an->st.action_active = true;
	ag_log(AG_NOTICE, "%s: a storm action of a previous rocetuned is in force (Action=%s, priorities 0x%02x, PFC before it 0x%02x): resynchronising with the module",
	       an->nic.id.netdev, action, acted, pfc);
	if (ag_eff_build(an))
		ag_log(AG_ERR, "%s: out of memory", an->nic.id.netdev);
}

/* "3" or "3 4": the priorities of @bits. */
static const char *ag_prios(uint8_t bits, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int p;

	buf[0] = '\0';
	for (p = 0; p < 8; p++)
		if (bits & (1u << p))
			off += (size_t)snprintf(buf + off, off < len ?
						len - off : 0, "%s%u",
						off ? " " : "", p);
	return buf;
}

/*
 * Act for the priorities @fresh (new in wd.acted), on event @ev or, with
 * @ev NULL, on a resynchronisation (@why).
 */
static void ag_nic_storm_act(struct ag *ag, struct ag_nic *an,
			     const struct rt_event *ev, uint8_t fresh,
			     const char *why)
{
	const struct rt_profile *p = an->prof;
	enum ag_act act = p->wd_action == RT_WD_TIMEOUT ? AG_ACT_TIMEOUT :
			  p->wd_action == RT_WD_DISABLE_PFC ?
			  AG_ACT_DISABLE_PFC : AG_ACT_ALERT;
	struct ag_storm_io io = { ag, an };
	const char *nd = an->nic.id.netdev;
	char prios[32], msg[512], when[96];
	enum ag_skip skip = AG_SKIP_PFC_READ;
	uint64_t now, origin = 0;
	double lat = -1;
	int ret = 0;

	if (ev && rt_has(ev->attrs, ROCETUNE_A_EVENT_TIME_NS))
		origin = ev->time_ns;
	else if (!ev && an->storm_busy_ns)
		origin = an->storm_busy_ns;	/* the action that waited */
	/* A storm again: no restore waits any more. */
	an->restore_busy = false;
	ag_prios(fresh, prios, sizeof(prios));
	if (act != AG_ACT_ALERT) {
		ret = ag_storm_act(&an->storm, &an->wd, fresh, p, &ag_storm_sys,
				   &io, &skip, msg, sizeof(msg));
		if (ret == 2) {
			/* Nothing written, nothing in force: act when free. */
			if (!an->storm_busy)
				an->storm_busy_ns = origin ? origin :
						    ag_now_ns();
			if ((an->storm_busy | fresh) != an->storm_busy)
				ag_log(AG_WARNING, "%s: pause storm on priority %s: the %s action waits for the NIC's lock (%s): nothing written yet; it is taken as soon as the lock is free",
				       nd, prios, ag_act_name(act),
				       ag->res->error);
			an->storm_busy |= fresh;
			return;
		}
		if (ret < 0) {
			/* Not for the lock: the storm retry reads again. */
			an->storm_busy &= (uint8_t)~fresh;
			an->st.skipped[skip]++;
			an->storm_retry_ms = ag_now_ms() + AG_STORM_RETRY_MS;
			/* Said once; the retries every 200 ms at debug level. */
			ag_log(an->storm_skips++ ? AG_DEBUG : AG_ERR,
			       "%s: pause storm on priority %s: NO %s action (%s: %s): nothing written; the agent acts only on a state it has read, and tries again every %u ms while the storm lasts",
			       nd, prios, ag_act_name(act), ag_skip_name(skip),
			       msg[0] ? msg : "?", AG_STORM_RETRY_MS);
			return;
		}
		if (an->storm_skips)
			ag_log(AG_NOTICE, "%s: the storm action could be taken after %u skipped attempt%s",
			       nd, an->storm_skips,
			       an->storm_skips == 1 ? "" : "s");
		an->storm_skips = 0;
		an->storm_retry_ms = 0;
		an->storm_busy &= (uint8_t)~fresh;
		if (!an->storm_busy)
			an->storm_busy_ns = 0;
		/* Active only when written: a failed apply rolled back. */
		if (!ret)
			an->st.action_active = true;
		if (ag_eff_build(an))
			ag_log(AG_ERR, "%s: out of memory", nd);
		ag_storm_persist(an);
	}
	now = ag_now_ns();
	an->st.actions[act]++;
	if (origin && origin <= now) {
		lat = (double)(now - origin) / 1e9;
		if (!ret) {
			ag_hist_add(&ag->g.storm_latency, lat);
			an->st.last_action_latency_s = lat;
		}
		snprintf(when, sizeof(when), " %.1f ms after the kernel's event",
			 lat * 1e3);
	} else {
		snprintf(when, sizeof(when), " (%s: the module reports the storm; no event time)",
			 ev ? "event" : why);
	}
	if (act == AG_ACT_ALERT)
		ag_log(AG_WARNING, "%s: pause storm on priority %s: alert only (Action=alert),%s",
		       nd, prios, when);
	else if (act == AG_ACT_TIMEOUT)
		ag_log(AG_WARNING, "%s: pause storm on priority %s: pfc-prevention-tout %u ms %s%s (Action=timeout)",
		       nd, prios, p->wd_timeout_ms,
		       ret ? "FAILED" : "in force", when);
	else
		ag_log(AG_WARNING, "%s: pause storm on priority %s: PFC off on it %s%s (Action=disable-pfc)",
		       nd, prios, ret ? "FAILED" : "in force", when);
}

static void ag_nic_storm_restore(struct ag *ag, struct ag_nic *an)
{
	struct ag_storm_io io = { ag, an };
	bool was = an->storm.in_force;
	int ret;

	an->storm_retry_ms = 0;
	an->storm_skips = 0;
	an->storm_busy = 0;
	an->storm_busy_ns = 0;
	/* The action's part goes; a [Tune] value stays in force. */
	an->wd.acted = 0;
	if (!an->prof || an->prof->wd_action == RT_WD_ALERT || !was) {
		an->st.action_active = false;
		an->restore_busy = false;
		an->storm.in_force = false;
		an->storm.saved = false;
		if (ag_eff_build(an)) {
			free(an->eff);
			an->eff = NULL;
		}
		ag_storm_forget(an);
		ag_log(AG_NOTICE, "%s: pause storms over%s", an->nic.id.netdev,
		       an->prof && an->prof->wd_action != RT_WD_ALERT ?
		       " (no action was in force: nothing to restore)" : "");
		return;
	}
	if (!an->restore_busy) {
		an->st.actions[AG_ACT_RESTORE]++;
		ag_log(AG_NOTICE, "%s: pause storms over for %u ms (RestoreAfterMs=): restoring profile %s",
		       an->nic.id.netdev, an->prof->wd_restore_after_ms,
		       an->prof->name);
	}
	ret = ag_storm_restore(&an->storm, an->prof, &ag_storm_sys, &io);
	if (ret == 2) {
		/* Nothing written: the action stays in force until then. */
		an->restore_busy = true;
		return;
	}
	an->restore_busy = false;
	an->st.action_active = false;
	if (ret < 0)
		ag_log(AG_ERR, "%s: out of memory", an->nic.id.netdev);
	if (ag_eff_build(an)) {
		free(an->eff);
		an->eff = NULL;
	}
	ag_storm_forget(an);
}

static int ag_port_one_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_port *port = arg;

	rt_port_free(port);
	memset(port, 0, sizeof(port[0]));
	return rt_port_parse(nlh, port);
}

/*
 * The module reports storm edges only: after a lost event (a socket
 * overrun), at start (a storm that began before) and when an action was
 * skipped, take the storm state from PORT_GET (ROCETUNE_A_PRIO_STORM) and
 * put in the edges the agent missed.
 */
static void ag_storm_resync(struct ag *ag, struct ag_nic *an, const char *why)
{
	const char *nd = an->nic.id.netdev;
	uint8_t storming = 0, fresh = 0;
	struct rt_port port;
	enum ag_wd_do todo;
	struct nl_msg *msg;
	unsigned int i;
	int err;

	if (!an->prof || !an->nic.id.rdma_dev[0])
		return;
	if (!ag->cmd_open) {
		if (an->wd.state != AG_WD_IDLE)
			ag_log(AG_WARNING, "%s: cannot read the storm state (%s): rocetune.ko is not loaded",
			       nd, why);
		return;
	}
	memset(&port, 0, sizeof(port));
	msg = rt_nl_msg_dev(&ag->cmd, ROCETUNE_CMD_PORT_GET,
			    an->nic.id.rdma_dev, an->nic.port);
	if (!msg)
		return;
	err = rt_nl_do(&ag->cmd, msg, ag_port_one_cb, &port);
	if (err) {
		ag_log(AG_WARNING, "%s: cannot read the storm state of %s/%u (%s): %s",
		       nd, an->nic.id.rdma_dev, an->nic.port, why,
		       strerror(-err));
		rt_port_free(&port);
		return;
	}
	if (rt_has(port.attrs, ROCETUNE_A_PFC))
		for (i = 0; i < port.pfc.nprio; i++)
			if (rt_has(port.pfc.prio[i].attrs,
				   ROCETUNE_A_PRIO_STORM) &&
			    port.pfc.prio[i].storm &&
			    port.pfc.prio[i].index < 8)
				storming |= (uint8_t)(1u <<
						      port.pfc.prio[i].index);
	rt_port_free(&port);
	if (storming == an->wd.storming && !(storming & ~an->wd.acted))
		return;		/* in step */
	ag_log(AG_NOTICE, "%s: storm state resynchronised (%s): rocetune.ko says priorities 0x%02x storm, the agent had 0x%02x (acted 0x%02x)",
	       nd, why, storming, an->wd.storming, an->wd.acted);
	an->st.storm_resyncs++;
	todo = ag_wd_sync(&an->wd, storming, ag_now_ms(), &fresh);
	if (todo == AG_WD_DO_ACT)
		ag_nic_storm_act(ag, an, NULL, fresh, why);
	else if (todo == AG_WD_DO_RESTORE)
		ag_nic_storm_restore(ag, an);
	else if (an->wd.state == AG_WD_HOLD)
		ag_log(AG_INFO, "%s: restoring in %u ms unless a storm starts again",
		       nd, an->prof->wd_restore_after_ms);
}

static void ag_storm_resync_all(struct ag *ag, const char *why)
{
	size_t i;

	for (i = 0; i < ag->n; i++)
		ag_storm_resync(ag, ag->nics[i], why);
}

static void ag_storm_event(struct ag *ag, const struct rt_event *ev)
{
	bool start = ev->type == ROCETUNE_EVENT_STORM_START;
	struct ag_nic *an = NULL;
	enum ag_wd_do todo;

	if (rt_has(ev->attrs, ROCETUNE_A_PORT_NETDEV_NAME) && ev->netdev[0])
		an = ag_find(ag, ev->netdev);
	if (!an)
		an = ag_find_port(ag, ev->dev, ev->port);
	if (!an || !rt_has(ev->attrs, ROCETUNE_A_EVENT_PRIO)) {
		ag_log(AG_WARNING, "pause storm %s on %s/%u prio %u: not a NIC the agent knows",
		       start ? "start" : "end", ev->dev, ev->port, ev->prio);
		return;
	}
	if (start) {
		an->st.storm_starts++;
		ag_log(AG_WARNING, "%s: pause storm on priority %u: %" PRIu64 " pause frames/s for %" PRIu64 " ms",
		       an->nic.id.netdev, ev->prio, ev->value, ev->duration_ms);
	} else {
		an->st.storm_ends++;
		ag_log(AG_NOTICE, "%s: pause storm on priority %u over after %" PRIu64 " ms",
		       an->nic.id.netdev, ev->prio, ev->duration_ms);
	}
	if (!an->prof) {
		ag_log(AG_WARNING, "%s: no profile: no storm action",
		       an->nic.id.netdev);
		return;
	}
	if (start) {
		todo = ag_wd_storm_start(&an->wd, ev->prio, ag_now_ms());
		if (todo == AG_WD_DO_ACT && ev->prio < 8)
			ag_nic_storm_act(ag, an, ev, (uint8_t)(1u << ev->prio),
					 "event");
	} else {
		todo = ag_wd_storm_end(&an->wd, ev->prio, ag_now_ms());
		if (todo == AG_WD_DO_RESTORE)
			ag_nic_storm_restore(ag, an);
		else if (an->wd.state == AG_WD_HOLD)
			ag_log(AG_INFO, "%s: restoring in %u ms unless a storm starts again",
			       an->nic.id.netdev, an->prof->wd_restore_after_ms);
	}
}

/*
 * What found the NIC's lock held, once more (every AG_LOCK_RETRY_MS until
 * the lock is free): first a storm action, then its restore, the
 * profile's apply and the drift check.
 */
static void ag_lock_retry(struct ag *ag, struct ag_nic *an)
{
	uint8_t fresh = an->storm_busy & an->wd.storming;

	/* Those whose storm ended meanwhile wait no more. */
	an->storm_busy = fresh;
	if (fresh && an->prof && an->wd.state == AG_WD_ACTIVE) {
		an->wd.acted |= fresh;
		ag_nic_storm_act(ag, an, NULL, fresh, "the NIC's lock is free");
		if (an->lock_retry_ms > ag_now_ms())
			return;		/* still held */
	} else {
		an->storm_busy = 0;
		an->storm_busy_ns = 0;
	}
	if (an->restore_busy && an->wd.state == AG_WD_IDLE) {
		ag_nic_storm_restore(ag, an);
		if (an->restore_busy)
			return;
	}
	if (an->apply_busy && an->prof) {
		ag_apply_profile(ag, an, an->apply_busy_why, 0);
		if (an->apply_busy)
			return;
	}
	if (an->check_busy)
		ag_check(ag, an, "the NIC's lock is free");
}

/* Closed loop: [Tune] --------------------------------------------------- */

/*
 * The rate of @metric on @port (events/s), false when the port has none
 * of the counters it adds up.
 */
static bool ag_tune_rate(const struct rt_port *port, unsigned int metric,
			 uint64_t *rate)
{
	static const unsigned int cnp[] = { ROCETUNE_A_CNT_TX_CNP_PKTS,
					    ROCETUNE_A_CNT_RX_CNP_PKTS };
	const struct rt_counter_set *r = &port->rates;
	bool rx = false, tx = false, any = false;
	unsigned int i;

	*rate = 0;
	switch (metric) {
	case RT_TM_CNP:
		if (!rt_has(port->attrs, ROCETUNE_A_RATES))
			return false;
		for (i = 0; i < ARRAY_SIZE(cnp); i++) {
			if (!rt_counter_present(r, cnp[i]))
				continue;
			*rate += r->val[cnp[i]];
			any = true;
		}
		return any;
	case RT_TM_ECN:
		metric = RT_TM_CNT + ROCETUNE_A_CNT_RX_ECN_CE_PKTS;
		break;
	case RT_TM_PAUSE:
		rx = tx = true;
		break;
	case RT_TM_RX_PAUSE:
		rx = true;
		break;
	case RT_TM_TX_PAUSE:
		tx = true;
		break;
	default:
		break;
	}
	if (rx || tx) {
		if (!rt_has(port->attrs, ROCETUNE_A_PFC))
			return false;
		for (i = 0; i < port->pfc.nprio; i++) {
			const struct rt_prio *q = &port->pfc.prio[i];

			if (rx && rt_has(q->attrs, ROCETUNE_A_PRIO_RX_PAUSE_RATE)) {
				*rate += q->rx_pause_rate;
				any = true;
			}
			if (tx && rt_has(q->attrs, ROCETUNE_A_PRIO_TX_PAUSE_RATE)) {
				*rate += q->tx_pause_rate;
				any = true;
			}
		}
		return any;
	}
	if (metric < RT_TM_CNT || !rt_has(port->attrs, ROCETUNE_A_RATES) ||
	    !rt_counter_present(r, metric - RT_TM_CNT))
		return false;
	*rate = r->val[metric - RT_TM_CNT];
	return true;
}

/* Write @value of the rule's parameter through the engine; 0: in force. */
static int ag_tune_write(struct ag *ag, struct ag_nic *an, uint32_t value)
{
	struct rt_profile *ap;
	int ret;

	ap = malloc(sizeof(*ap));
	if (!ap)
		return -ENOMEM;
	*ap = *ag_profile(an);
	ap->dcqcn[an->prof->tune_param] = value;
	ag_param_only(ap, an->prof->tune_param);
	ret = ag_apply(ag, an, ap, "tune");
	free(ap);
	return ret;
}

/* One sample of the NIC's port rates, one decision of its rule. */
static void ag_tune_tick(struct ag *ag, struct ag_nic *an)
{
	const struct rt_profile *p = an->prof;
	const char *param = rt_dcqcn_keys[p->tune_param].key;
	const char *nd = an->nic.id.netdev;
	struct ag_tune_decision d;
	struct ag_tune_in in = { 0 };
	struct rt_port port;
	uint64_t sample_ns;
	char guard[160] = "";
	struct nl_msg *msg;
	enum ag_tune_stop was;
	bool ok, applied;
	int err, level;

	if (!ag->cmd_open || !an->nic.id.rdma_dev[0])
		return;		/* no module, no rates: nothing to decide on */
	memset(&port, 0, sizeof(port));
	msg = rt_nl_msg_dev(&ag->cmd, ROCETUNE_CMD_PORT_GET,
			    an->nic.id.rdma_dev, an->nic.port);
	if (!msg)
		return;
	err = rt_nl_do(&ag->cmd, msg, ag_port_one_cb, &port);
	if (err) {
		ag_log(AG_DEBUG, "%s: tune: no port sample of %s/%u: %s", nd,
		       an->nic.id.rdma_dev, an->nic.port, strerror(-err));
		rt_port_free(&port);
		return;
	}
	in.now_ms = ag_now_ms();
	ok = ag_tune_rate(&port, p->tune_metric, &in.metric);
	if (ok && an->tr.guard)
		ok = ag_tune_rate(&port, p->tune_guard, &in.guard);
	if (!ok) {
		if (!an->tune_unavailable)
			ag_log(AG_WARNING, "%s: [Tune] Metric=%s%s%s: the port %s/%u has no such rate (yet): %s stays %u",
			       nd, rt_tune_metric_name(p->tune_metric),
			       an->tr.guard ? " Guard=" : "",
			       an->tr.guard ? rt_tune_metric_name(p->tune_guard) : "",
			       an->nic.id.rdma_dev, an->nic.port, param,
			       an->ts.value);
		an->tune_unavailable = true;
		rt_port_free(&port);
		return;
	}
	an->tune_unavailable = false;
	/* A sample the rule has not seen, taken after its last write. */
	sample_ns = port.sample_time_ns;
	in.fresh = rt_has(port.attrs, ROCETUNE_A_SAMPLE_TIME_NS) &&
		   sample_ns > an->tune_sample_ns;
	rt_port_free(&port);

	ag_tune_decide(&an->tr, &an->ts, &in, &d);
	applied = false;
	if (d.action != AG_TUNE_HOLD) {
		err = ag_tune_write(ag, an, d.to);
		if (err == -EBUSY)
			return;	/* another apply: decide at the next sample */
		applied = !err;
	}
	if (in.fresh)
		an->tune_sample_ns = applied ? ag_now_ns() : sample_ns;
	was = an->ts.stopped;
	ag_tune_update(&an->tr, &an->ts, &in, &d, applied);
	ag_stats_tune(&an->st, &d);
	an->st.tune_value = an->ts.value;
	an->st.tune_stopped = an->ts.stopped;
	if (!was && an->ts.stopped == AG_TUNE_STOP_OSCILLATION)
		ag_log(AG_WARNING, "%s: tune %s stopped (oscillation: %u reversals of direction in the last %u changes within an hour, the last %u -> %u): %u stays in force until the profiles are reloaded or the agent restarts",
		       nd, param, an->ts.reversals, an->ts.nchanges, d.from,
		       d.to, an->ts.value);
	else if (!was && an->ts.stopped == AG_TUNE_STOP_BUDGET)
		ag_log(AG_WARNING, "%s: tune %s stopped (budget: MaxWritesPerHour=%u spent, %u writes in the last hour; it would %s): %u stays in force until the profiles are reloaded or the agent restarts",
		       nd, param, an->tr.max_writes,
		       ag_tune_writes(&an->ts, in.now_ms),
		       d.dir > 0 ? "go up" : d.dir < 0 ? "go down" :
		       "revert", an->ts.value);
	if (applied && ag_eff_build(an))
		ag_log(AG_ERR, "%s: out of memory", nd);

	if (an->tr.guard)
		snprintf(guard, sizeof(guard), "; Guard=%s %" PRIu64 "/s%s",
			 rt_tune_metric_name(p->tune_guard), in.guard,
			 d.action == AG_TUNE_REVERT ? ", before the step" : "");
	if (d.action == AG_TUNE_REVERT) {
		ag_log(AG_WARNING, "%s: tune %s %u -> %u %s (revert, guard: %s rose to %" PRIu64 "/s, %" PRIu64 "/s before the step + GuardTolerance=%" PRIu64 ")",
		       nd, param, d.from, d.to,
		       applied ? "in force" : "FAILED",
		       rt_tune_metric_name(p->tune_guard), in.guard,
		       an->ts.guard_before, an->tr.guard_tol);
		an->tune_logged = AG_TUNE_R_IDLE;
		return;
	}
	if (d.action != AG_TUNE_HOLD) {
		ag_log(AG_NOTICE, "%s: tune %s %u -> %u %s (%s %s: %s %" PRIu64 "/s %s %s=%" PRIu64 "%s)",
		       nd, param, d.from, d.to, applied ? "in force" : "FAILED",
		       ag_tune_action_name(d.action), ag_tune_dir_name(d.dir),
		       rt_tune_metric_name(p->tune_metric), in.metric,
		       d.reason == AG_TUNE_R_HIGH ? ">" : "<",
		       d.reason == AG_TUNE_R_HIGH ? "Above" : "Below",
		       d.reason == AG_TUNE_R_HIGH ? an->tr.above : an->tr.below,
		       guard);
		an->tune_logged = AG_TUNE_R_IDLE;
		return;
	}
	/* A hold: said once per reason, the rest at debug level. */
	level = d.reason == AG_TUNE_R_IDLE || d.reason == AG_TUNE_R_NO_DATA ||
		d.reason == AG_TUNE_R_STOPPED || d.reason == AG_TUNE_R_BUDGET ||
		d.reason == an->tune_logged ? AG_DEBUG : AG_INFO;
	if (level == AG_INFO)
		an->tune_logged = d.reason;
	else if (d.reason == AG_TUNE_R_IDLE)
		an->tune_logged = AG_TUNE_R_IDLE;
	ag_log(level, "%s: tune %s %u held (%s: %s %" PRIu64 "/s, Above=%" PRIu64 " Below=%" PRIu64 ", Min=%u Max=%u, CooldownMs=%u%s)",
	       nd, param, d.from, ag_tune_reason_name(d.reason),
	       rt_tune_metric_name(p->tune_metric), in.metric, an->tr.above,
	       an->tr.below, an->tr.min, an->tr.max, an->tr.cooldown_ms, guard);
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

static void ag_module_open(struct ag *ag, bool quiet)
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
static void ag_module_verify(struct ag *ag)
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

static void ag_module_read(struct ag *ag)
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

static int ag_rtnl_open(struct ag *ag)
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

static void ag_rtnl_read(struct ag *ag)
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

/* Profiles -------------------------------------------------------------- */

static int ag_load(struct rt_profile_set *set, struct rt_diag *d)
{
	int err;

	memset(set, 0, sizeof(*set));
	err = rt_profile_load_dir(rt_profile_dir(), set, d);
	if (err) {
		rt_profile_set_free(set);
		memset(set, 0, sizeof(*set));
	}
	return err;
}

static void ag_log_diag(const struct rt_diag *d)
{
	unsigned int i;

	for (i = 0; i < d->n && i < RT_DIAG_MAX; i++)
		ag_log(AG_ERR, "%s", d->msg[i]);
}

/* STATUS= (after @pre, e.g. "READY=1\n"). */
static void ag_notify_status(struct ag *ag, const char *pre)
{
	size_t i, with = 0;

	for (i = 0; i < ag->n; i++)
		with += ag->nics[i]->prof != NULL;
	sd_notifyf(0, "%sSTATUS=%zu RoCE NIC%s, %zu with a profile; %u profile%s%s%s",
		   pre, ag->n, ag->n == 1 ? "" : "s", with, ag->set.n,
		   ag->set.n == 1 ? "" : "s",
		   ag->reload_error[0] ? "; last reload FAILED: " : "",
		   ag->reload_error);
}

static void ag_reload(struct ag *ag)
{
	struct rt_profile_set nset, old;
	struct rt_diag *d;
	struct ag_nic *an;
	size_t i;
	int err;

	sd_notify(0, "RELOADING=1");
	d = calloc(1, sizeof(*d));
	if (!d)
		return;
	err = ag_load(&nset, d);
	if (err) {
		ag_log_diag(d);
		ag_log(AG_ERR, "profile reload failed: %s in %s; the %u profile%s loaded before stay%s in force",
		       err == -EINVAL ? "errors" : strerror(-err),
		       rt_profile_dir(), ag->set.n, ag->set.n == 1 ? "" : "s",
		       ag->set.n == 1 ? "s" : "");
		snprintf(ag->reload_error, sizeof(ag->reload_error), "%s",
			 d->n ? d->msg[0] : strerror(-err));
		ag->g.reloads_failed++;
		ag->g.last_reload_ok = false;
		free(d);
		ag_notify_status(ag, "READY=1\n");
		return;
	}
	free(d);
	old = ag->set;
	ag->set = nset;
	ag->reload_error[0] = '\0';
	ag->g.reloads_ok++;
	ag->g.last_reload_ok = true;
	ag_log(AG_NOTICE, "profiles reloaded: %u from %s", ag->set.n,
	       rt_profile_dir());
	for (i = 0; i < ag->n; i++) {
		an = ag->nics[i];
		ag_nic_profile(ag, an);
		if (!an->prof || an->prof->wd_action == RT_WD_ALERT) {
			ag_wd_init(&an->wd, an->prof ?
				   an->prof->wd_restore_after_ms : 0);
			an->st.action_active = false;
		}
		ag_eff_build(an);
		if (!an->prof) {
			ag_log(AG_INFO, "%s: no profile matches now; left as it is",
			       an->nic.id.netdev);
			continue;
		}
		ag_apply_profile(ag, an, "reload", 0);
		ag_storm_ms(ag, an);
	}
	rt_profile_set_free(&old);
	ag_notify_status(ag, "READY=1\n");
}

/* Timer ----------------------------------------------------------------- */

static uint64_t ag_min_due(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

static void ag_arm_timer(struct ag *ag)
{
	struct itimerspec its = { 0 };
	uint64_t due = ag->periodic_rescan_ms;
	size_t i;

	due = ag_min_due(due, ag->rescan_due_ms);
	if (!ag->ev_open)
		due = ag_min_due(due, ag->module_retry_ms);
	for (i = 0; i < ag->n; i++) {
		struct ag_nic *an = ag->nics[i];

		if (ag_profile(an))
			due = ag_min_due(due, an->poll_due_ms);
		due = ag_min_due(due, an->dcb_due_ms);
		due = ag_min_due(due, ag_wd_deadline(&an->wd));
		due = ag_min_due(due, an->storm_retry_ms);
		due = ag_min_due(due, an->lock_retry_ms);
		if (an->tune)
			due = ag_min_due(due, an->tune_due_ms);
	}
	due = ag_min_due(due, ag->watchdog_due_ms);
	if (!due)
		due = ag_now_ms() + 60000;
	its.it_value.tv_sec = (time_t)(due / 1000);
	its.it_value.tv_nsec = (long)(due % 1000) * 1000000L;
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	timerfd_settime(ag->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Everything that is due. */
static void ag_due(struct ag *ag)
{
	uint64_t now = ag_now_ms();
	struct ag_nic *an;
	uint64_t origin;
	size_t i;

	if (!ag->ev_open && ag->module_retry_ms <= now) {
		ag_module_open(ag, true);
		ag->module_retry_ms = now + AG_MODULE_RETRY_MS;
	}
	if (ag->rescan_due_ms && ag->rescan_due_ms <= now) {
		origin = ag->rescan_origin_ns;
		ag->rescan_due_ms = 0;
		now = ag_now_ms();
		if (!ag_rescan(ag, origin, "hotplug") &&
		    now < ag->rescan_until_ms) {
			ag->rescan_step_ms *= 2;
			if (ag->rescan_step_ms > AG_RESCAN_RETRY_MAX_MS)
				ag->rescan_step_ms = AG_RESCAN_RETRY_MAX_MS;
			ag->rescan_due_ms = now + ag->rescan_step_ms;
		} else {
			ag->rescan_origin_ns = 0;
		}
	}
	if (ag->periodic_rescan_ms <= now) {
		ag_module_verify(ag);
		ag_rescan(ag, 0, "periodic scan");
		ag_storm_resync_all(ag, "periodic scan");
		ag->periodic_rescan_ms = now + (uint64_t)ag->o.poll_interval_s *
					      1000;
	}
	for (i = 0; i < ag->n; i++) {
		an = ag->nics[i];
		now = ag_now_ms();
		if (an->lock_retry_ms && an->lock_retry_ms <= now) {
			an->lock_retry_ms = 0;
			ag_lock_retry(ag, an);
		}
		if (ag_wd_tick(&an->wd, now) == AG_WD_DO_RESTORE)
			ag_nic_storm_restore(ag, an);
		if (an->storm_retry_ms && an->storm_retry_ms <= now) {
			an->storm_retry_ms = 0;
			ag_storm_resync(ag, an, "retry");
		}
		if (an->dcb_due_ms && an->dcb_due_ms <= now) {
			an->dcb_due_ms = 0;
			ag_check(ag, an, "DCB notification");
		}
		if (ag_profile(an) && an->poll_due_ms <= now) {
			bool dcb = an->dcb_due_ms;

			an->poll_due_ms = now + (uint64_t)ag_poll_s(ag, an->prof) *
					  1000;
			an->dcb_due_ms = 0;
			/* A notification still settling: it is why we look. */
			ag_check(ag, an, dcb ? "DCB notification" : "poll");
		}
		if (an->tune && an->tune_due_ms <= now) {
			an->tune_due_ms = now + an->prof->tune_interval_ms;
			ag_tune_tick(ag, an);
		}
	}
}

/* Metrics and status ---------------------------------------------------- */

struct ag_port_list {
	struct rt_port v[AG_PORTS_MAX];
	size_t n;
	bool full;
};

static int ag_port_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct ag_port_list *l = arg;

	if (l->n == AG_PORTS_MAX) {
		l->full = true;
		return 0;
	}
	if (rt_port_parse(nlh, &l->v[l->n])) {
		rt_port_free(&l->v[l->n]);
		return 0;
	}
	l->n++;
	return 0;
}

/* The QPs of a scrape: [Agent] MetricsTopQPs= of each NIC's profile. */
struct ag_qp_list {
	struct rt_qp *v;
	size_t n, cap;
	size_t max;			/* the sum of the NICs' top K */
};

static int ag_qp_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct ag_qp_list *l = arg;
	struct rt_qp *v;

	if (l->n == l->max)
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		v = realloc(l->v, l->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
	}
	if (!rt_qp_parse(nlh, &l->v[l->n]))
		l->n++;
	return 0;
}

/*
 * With --metrics-qp-labels, per NIC whose profile asks for it, the top K
 * QPs of its port by received ECN-CE packets (as "rocetune -o prometheus
 * qp show"), with the labels device and port of the port series, and
 * qpn and comm; at most --metrics-max-series of them.
 */
static void ag_fill_qps(FILE *f, struct ag *ag)
{
	struct ag_qp_list l = { 0 };
	const struct rt_profile *p;
	size_t i, start, series, written = 0;
	static bool said;		/* MetricsTopQPs= without the flag */
	struct nl_msg *msg;
	struct ag_nic *an;
	int err;

	if (!ag->o.qp_labels) {
		/* no qpn and comm labels unless asked: they name tenants */
		for (i = 0; i < ag->n && !said; i++) {
			p = ag->nics[i]->prof;
			if (!p || !p->metrics_top_qps)
				continue;
			ag_log(AG_NOTICE, "%s: MetricsTopQPs=%" PRIu32 " gives no per-QP series without --metrics-qp-labels",
			       p->path, p->metrics_top_qps);
			said = true;
		}
		return;
	}
	for (i = 0; i < ag->n; i++) {
		p = ag->nics[i]->prof;
		if (p && p->metrics_top_qps)
			l.max += p->metrics_top_qps;
	}
	for (i = 0; i < ag->n && l.max; i++) {
		an = ag->nics[i];
		p = an->prof;
		if (!p || !p->metrics_top_qps || !an->nic.id.rdma_dev[0])
			continue;
		msg = rt_nl_msg_dev(&ag->cmd, ROCETUNE_CMD_QP_GET,
				    an->nic.id.rdma_dev, an->nic.port);
		if (!msg || nla_put_u32(msg, ROCETUNE_A_QP_TOP_K,
					p->metrics_top_qps) ||
		    nla_put_u32(msg, ROCETUNE_A_QP_TOP_BY,
				ROCETUNE_A_QP_RX_ECN_CE_PKTS)) {
			nlmsg_free(msg);
			continue;
		}
		start = l.n;
		err = rt_nl_dump(&ag->cmd, msg, ag_qp_cb, &l);
		if (err) {
			l.n = start;	/* no half answer */
			ag_log(AG_DEBUG, "metrics: no QPs of %s/%u: %s",
			       an->nic.id.rdma_dev, an->nic.port,
			       strerror(-err));
		}
	}
	/* QPs in the order the kernel ranks them, as long as they fit */
	for (i = 0; i < l.n; i++) {
		series = rt_prom_qp_series(&l.v[i]);
		if (written + series > ag->o.max_series)
			break;
		written += series;
	}
	rt_prom_write_qps(f, l.v, i);
	ag_metrics_write_qp_limit(f, written, l.n - i, ag->o.max_series);
	free(l.v);
}

static void ag_fill_metrics(FILE *f, void *arg)
{
	struct ag *ag = arg;
	const struct ag_stats **st;
	struct ag_port_list *l;
	struct nl_msg *msg;
	size_t i;

	st = calloc(ag->n ? ag->n : 1, sizeof(*st));
	if (!st)
		return;
	for (i = 0; i < ag->n; i++) {
		ag->nics[i]->st.suppressed = ag->nics[i]->rl.suppressed;
		ag->nics[i]->st.journal_stuck =
			rt_journal_status(&ag->nics[i]->nic, NULL, 0) ==
			RT_JOURNAL_STUCK;
		st[i] = &ag->nics[i]->st;
	}
	ag_metrics_write(f, &ag->g, st, ag->n);
	free(st);
	if (!ag->cmd_open)
		return;
	l = calloc(1, sizeof(*l));
	if (!l)
		return;
	msg = rt_nl_msg(&ag->cmd, ROCETUNE_CMD_PORT_GET);
	if (msg && !rt_nl_dump(&ag->cmd, msg, ag_port_cb, l))
		rt_prom_write_ports(f, l->v, l->n, false);
	if (l->full)
		ag_log(AG_DEBUG, "metrics: more than %d ports; the others left out",
		       AG_PORTS_MAX);
	for (i = 0; i < l->n; i++)
		rt_port_free(&l->v[i]);
	free(l);
	ag_fill_qps(f, ag);
}

static void ag_status_tune(struct rt_print *pr, const struct ag_nic *an)
{
	const struct rt_profile *p = an->prof;

	rt_print_open_object(pr, "tune");
	rt_print_string(pr, RT_PRINT_ANY, "parameter", "  tune: %s",
			rt_dcqcn_keys[p->tune_param].key);
	rt_print_uint(pr, RT_PRINT_ANY, "value", " %" PRIu64, an->ts.value);
	rt_print_uint(pr, RT_PRINT_ANY, "base", " (profile %" PRIu64,
		      an->tr.base);
	rt_print_uint(pr, RT_PRINT_ANY, "min", ", Min=%" PRIu64, an->tr.min);
	rt_print_uint(pr, RT_PRINT_ANY, "max", " Max=%" PRIu64 ")",
		      an->tr.max);
	rt_print_string(pr, RT_PRINT_ANY, "metric", ", Metric=%s",
			rt_tune_metric_name(p->tune_metric));
	rt_print_bool(pr, RT_PRINT_ANY, "guard_watching",
		      ", guard watching: %s", an->ts.watching);
	rt_print_string(pr, RT_PRINT_ANY, "blocked", ", steps blocked: %s",
			ag_tune_dir_name(an->ts.blocked));
	rt_print_uint(pr, RT_PRINT_ANY, "writes_last_hour",
		      ", writes in the last hour: %" PRIu64,
		      ag_tune_writes(&an->ts, ag_now_ms()));
	rt_print_uint(pr, RT_PRINT_ANY, "max_writes_per_hour", " of %" PRIu64,
		      an->tr.max_writes);
	/* "running", or why it stopped */
	rt_print_string(pr, RT_PRINT_JSON, "state", NULL,
			ag_tune_stop_name(an->ts.stopped));
	if (an->ts.stopped)
		rt_print_text(pr, ", STOPPED (%s)",
			      ag_tune_stop_name(an->ts.stopped));
	rt_print_text(pr, "\n");
	rt_print_close_object(pr);
}

static void ag_status_nic(struct rt_print *pr, const struct ag *ag,
			  struct ag_nic *an)
{
	const struct rt_profile *p = an->prof;
	uint64_t now = ag_now_ms();
	enum rt_journal_state js;
	char buf[64], why[1024];

	rt_print_open_object(pr, NULL);
	rt_print_string(pr, RT_PRINT_ANY, "netdev", "%s", an->nic.id.netdev);
	rt_print_string(pr, RT_PRINT_ANY, "rdma_device", " (%s",
			an->nic.id.rdma_dev);
	rt_print_uint(pr, RT_PRINT_ANY, "port", "/%" PRIu64, an->nic.port);
	rt_print_string(pr, RT_PRINT_ANY, "driver", ", %s):",
			an->nic.id.driver);
	if (!p) {
		rt_print_string(pr, RT_PRINT_JSON, "profile", NULL, "");
		rt_print_text(pr, " no profile matches\n");
		rt_print_close_object(pr);
		return;
	}
	rt_print_string(pr, RT_PRINT_ANY, "profile", " profile %s", p->path);
	rt_print_string(pr, RT_PRINT_ANY, "last_result", ", last apply %s",
			an->applied_once ? rt_result_name(an->last_result) :
			"none");
	if (an->applied_once) {
		snprintf(buf, sizeof(buf), "%.0f",
			 ag_wall() - an->last_apply_wall);
		rt_print_string(pr, RT_PRINT_TEXT, NULL, " %s s ago", buf);
		rt_print_uint(pr, RT_PRINT_JSON, "last_apply_time", NULL,
			      (uint64_t)an->last_apply_wall);
	}
	rt_print_uint(pr, RT_PRINT_ANY, "writes", " (%" PRIu64 " writes)\n",
		      an->st.writes);
	if (an->last_error[0])
		rt_print_string(pr, RT_PRINT_ANY, "last_error",
				"  error: %s\n", an->last_error);
	js = rt_journal_status(&an->nic, why, sizeof(why));
	rt_print_open_object(pr, "journal");
	rt_print_string(pr, RT_PRINT_JSON, "state", NULL,
			rt_journal_state_name(js));
	rt_print_string(pr, RT_PRINT_JSON, "reason", NULL, why);
	if (js != RT_JOURNAL_NONE)
		rt_print_text(pr, "  journal: %s: %s\n",
			      rt_journal_state_name(js), why);
	rt_print_close_object(pr);
	rt_print_open_object(pr, "drift");
	rt_print_string(pr, RT_PRINT_ANY, "state", "  drift: %s",
			ag_drift_names[an->drift]);
	rt_print_string(pr, RT_PRINT_ANY, "on_drift", " (OnDrift=%s",
			rt_on_drift_name(p->on_drift));
	rt_print_uint(pr, RT_PRINT_ANY, "reapplies_in_window",
		      ", %" PRIu64, ag_rl_count(&an->rl, now));
	rt_print_uint(pr, RT_PRINT_ANY, "max_reapplies",
		      " of %" PRIu64 " re-applies", p->max_reapplies);
	rt_print_uint(pr, RT_PRINT_ANY, "window_sec", " in %" PRIu64 " s)",
		      p->reapply_window_s);
	rt_print_bool(pr, RT_PRINT_JSON, "suppressed", NULL,
		      an->rl.suppressed);
	if (an->rl.suppressed)
		rt_print_text(pr, ", re-applies STOPPED");
	rt_print_uint(pr, RT_PRINT_ANY, "checks", ", %" PRIu64 " checks",
		      an->st.drift_checks);
	rt_print_uint(pr, RT_PRINT_ANY, "checks_skipped_locked",
		      " (%" PRIu64 " skipped: locked)",
		      an->st.drift_checks_skipped);
	rt_print_uint(pr, RT_PRINT_ANY, "poll_interval_sec",
		      ", polled every %" PRIu64 " s\n", ag_poll_s(ag, p));
	if (an->drift_desc[0])
		rt_print_string(pr, RT_PRINT_ANY, "last", "    last: %s\n",
				an->drift_desc);
	rt_print_close_object(pr);
	rt_print_open_object(pr, "storm");
	rt_print_string(pr, RT_PRINT_ANY, "state", "  storm watchdog: %s",
			ag_wd_state_name(an->wd.state));
	rt_print_string(pr, RT_PRINT_ANY, "action", ", Action=%s",
			rt_wd_action_name(p->wd_action));
	rt_print_bool(pr, RT_PRINT_ANY, "action_in_force", ", in force: %s",
		      an->eff != NULL);
	rt_print_uint(pr, RT_PRINT_ANY, "storming_prios",
		      ", storming 0x%02" PRIx64, an->wd.storming);
	rt_print_uint(pr, RT_PRINT_ANY, "acted_prios",
		      ", acted 0x%02" PRIx64, an->wd.acted);
	rt_print_uint(pr, RT_PRINT_JSON, "waiting_prios", NULL,
		      an->storm_busy);
	if (an->storm_busy || an->restore_busy)
		rt_print_text(pr, ", %s waits for the NIC's lock",
			      an->storm_busy ? "action" : "restore");
	if (an->wd.state == AG_WD_HOLD)
		rt_print_uint(pr, RT_PRINT_ANY, "restore_in_ms",
			      ", restore in %" PRIu64 " ms",
			      an->wd.restore_at_ms > now ?
			      an->wd.restore_at_ms - now : 0);
	rt_print_uint(pr, RT_PRINT_ANY, "storms", ", %" PRIu64 " storms\n",
		      an->st.storm_starts);
	rt_print_close_object(pr);
	if (an->tune)
		ag_status_tune(pr, an);
	rt_print_close_object(pr);
}

static void ag_fill_status(FILE *f, bool json, bool pretty, void *arg)
{
	struct ag *ag = arg;
	struct rt_print pr;
	char buf[64];
	size_t i;

	rt_print_init(&pr, f, json, pretty);
	rt_print_open_object(&pr, NULL);
	rt_print_uint(&pr, RT_PRINT_ANY, "pid", "rocetuned pid %" PRIu64,
		      (uint64_t)getpid());
	snprintf(buf, sizeof(buf), "%.0f", ag_wall() - ag->g.start_time_s);
	rt_print_string(&pr, RT_PRINT_TEXT, NULL, ", up %s s", buf);
	rt_print_uint(&pr, RT_PRINT_JSON, "start_time", NULL,
		      (uint64_t)ag->g.start_time_s);
	rt_print_string(&pr, RT_PRINT_ANY, "profile_dir", ", profiles %s",
			rt_profile_dir());
	rt_print_uint(&pr, RT_PRINT_ANY, "profiles", " (%" PRIu64 ")",
		      ag->set.n);
	rt_print_bool(&pr, RT_PRINT_ANY, "module_events",
		      ", rocetune.ko events: %s", ag->ev_open);
	rt_print_bool(&pr, RT_PRINT_ANY, "last_reload_ok",
		      ", last reload ok: %s\n", ag->g.last_reload_ok);
	if (ag->reload_error[0])
		rt_print_string(&pr, RT_PRINT_ANY, "reload_error",
				"  reload error: %s\n", ag->reload_error);
	rt_print_open_array(&pr, "nics");
	for (i = 0; i < ag->n; i++)
		ag_status_nic(&pr, ag, ag->nics[i]);
	rt_print_close_array(&pr);
	rt_print_close_object(&pr);
	if (json && !pretty)
		fputc('\n', f);
}

/* Start and stop -------------------------------------------------------- */

/* One rocetuned: the library's lock (rt_run.c) on RUN_DIR/rocetuned.pid. */
static int ag_lock(struct ag *ag)
{
	char path[1024], pid[32] = "", msg[512] = "";

	if (rt_run_dir_create(msg, sizeof(msg))) {
		ag_log(AG_ERR, "%s", msg);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/rocetuned.pid", rt_run_dir());
	ag->lock_fd = rt_lock_path(path, 0, pid, sizeof(pid));
	if (ag->lock_fd == -EBUSY) {
		ag_log(AG_ERR, "another rocetuned is running (pid %s; it holds the lock %s): not starting a second one",
		       pid, path);
		return -1;
	}
	if (ag->lock_fd < 0) {
		ag_log(AG_ERR, "cannot open %s: %s", path,
		       strerror(-ag->lock_fd));
		return -1;
	}
	return 0;
}

static void ag_write_pid(struct ag *ag)
{
	rt_lock_mark(ag->lock_fd);
}

/*
 * Without --foreground and outside systemd: fork; the parent waits until
 * the child has applied the profiles and exits 0 (1 if it failed).
 */
static int ag_daemonize(struct ag *ag)
{
	int p[2];
	pid_t pid;
	char c = 1;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			c = 1;
		_exit(c ? 1 : 0);
	}
	close(p[0]);
	setsid();
	ag->ready_fd = p[1];
	return 0;
}

static void ag_ready(struct ag *ag)
{
	char c = 0;

	if (ag->ready_fd >= 0) {
		if (write(ag->ready_fd, &c, 1) != 1)
			ag_log(AG_WARNING, "cannot tell the parent we are ready");
		close(ag->ready_fd);
		ag->ready_fd = -1;
	}
	ag_notify_status(ag, "READY=1\n");
	ag->ready = true;
}

static int ag_signals(struct ag *ag)
{
	sigset_t mask;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -1;
	ag->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return ag->sfd < 0 ? -1 : 0;
}

static void ag_signal_read(struct ag *ag)
{
	struct signalfd_siginfo si;

	while (read(ag->sfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			ag_log(AG_NOTICE, "SIGHUP: reloading the profiles of %s",
			       rt_profile_dir());
			ag_reload(ag);
			break;
		default:
			ag_log(AG_NOTICE, "%s: stopping",
			       si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
			ag->stop = true;
		}
	}
}

static void ag_usage(FILE *f)
{
	fprintf(f,
		"Usage: rocetuned [ OPTIONS ]\n"
		"Keeps every RoCE NIC as its profile (%s/*.conf) says.\n"
		"  -f, --foreground              do not fork (systemd: Type=notify)\n"
		"  -m, --metrics-listen ADDR:PORT serve Prometheus metrics on /metrics\n"
		"                                (:PORT every IPv4 and IPv6 address,\n"
		"                                127.0.0.1:PORT, [::1]:PORT, HOST:PORT)\n"
		"      --web.config.file FILE    TLS and basic auth of /metrics, in the\n"
		"                                Prometheus exporter-toolkit format\n"
		"      --metrics-qp-labels       per-QP series (labels qpn, comm) of the\n"
		"                                profiles' MetricsTopQPs=\n"
		"      --metrics-max-series N    at most N per-QP series a scrape\n"
		"                                (1..100000, default %u)\n"
		"  -i, --poll-interval SEC       default poll period of what sends no\n"
		"                                notification (1..3600, default %u; a\n"
		"                                profile's [Agent] PollIntervalSec= wins)\n"
		"  -b, --event-buffer BYTES      receive buffer of the event sockets\n"
		"                                (4096..268435456, default %u; the\n"
		"                                kernel caps it at net.core.rmem_max)\n"
		"  -v, --verbose                 debug messages\n"
		"  -V, --version                 print the version\n"
		"  -h, --help                    this help\n"
		"Signals: SIGHUP reloads the profiles, SIGTERM and SIGINT stop.\n"
		"Environment: ROCETUNE_PROFILE_DIR, ROCETUNE_RUN_DIR (default /run/rocetune).\n",
		rt_profile_dir(), AG_MAX_SERIES, RT_AGENT_DEF_POLL_INTERVAL_S,
		AG_EVENT_BUFFER);
}

static int ag_options(struct ag_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "metrics-listen", required_argument, NULL, 'm' },
		{ "web.config.file", required_argument, NULL, 'W' },
		{ "metrics-qp-labels", no_argument, NULL, 'Q' },
		{ "metrics-max-series", required_argument, NULL, 'S' },
		{ "poll-interval", required_argument, NULL, 'i' },
		{ "event-buffer", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->poll_interval_s = RT_AGENT_DEF_POLL_INTERVAL_S;
	o->event_buffer = AG_EVENT_BUFFER;
	o->max_series = AG_MAX_SERIES;
	while ((c = getopt_long(argc, argv, "fm:i:b:vVh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->foreground = true;
			break;
		case 'm':
			o->metrics_listen = optarg;
			break;
		case 'W':
			o->web_config = optarg;
			break;
		case 'Q':
			o->qp_labels = true;
			break;
		case 'S':
			if (rt_parse_u32(optarg, 1, 100000, &o->max_series)) {
				fprintf(stderr, "rocetuned: --metrics-max-series %s: not a number in 1..100000\n",
					optarg);
				return 2;
			}
			break;
		case 'i':
			if (rt_parse_u32(optarg, 1, 3600, &o->poll_interval_s)) {
				fprintf(stderr, "rocetuned: --poll-interval %s: not a number of seconds in 1..3600\n",
					optarg);
				return 2;
			}
			break;
		case 'b':
			if (rt_parse_u32(optarg, 4096, 268435456,
					 &o->event_buffer)) {
				fprintf(stderr, "rocetuned: --event-buffer %s: not a number of bytes in 4096..268435456\n",
					optarg);
				return 2;
			}
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			printf("rocetuned %s\n", ROCETUNE_VERSION);
			return 0;
		case 'h':
			ag_usage(stdout);
			return 0;
		default:
			ag_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rocetuned: unexpected argument \"%s\"\n",
			argv[optind]);
		return 2;
	}
	if (o->web_config && !o->metrics_listen) {
		fprintf(stderr, "rocetuned: --web.config.file needs --metrics-listen\n");
		return 2;
	}
	return -1;
}

static int ag_start(struct ag *ag)
{
	struct rt_diag *d;
	uint64_t usec;
	int err;

	ag->res = calloc(1, sizeof(*ag->res));
	d = calloc(1, sizeof(*d));
	if (!ag->res || !d) {
		free(d);
		return -1;
	}
	err = ag_load(&ag->set, d);
	if (err) {
		ag_log_diag(d);
		ag_log(AG_ERR, "%s in the profiles of %s: not starting (an invalid profile is never applied; fix it, check with \"rocetune profile check\")",
		       err == -EINVAL ? "errors" : strerror(-err),
		       rt_profile_dir());
		free(d);
		return -1;
	}
	free(d);
	ag->g.last_reload_ok = true;
	ag_log(AG_INFO, "%u profile%s from %s", ag->set.n,
	       ag->set.n == 1 ? "" : "s", rt_profile_dir());
	if (ag_signals(ag)) {
		ag_log(AG_ERR, "signalfd: %s", strerror(errno));
		return -1;
	}
	ag->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (ag->tfd < 0) {
		ag_log(AG_ERR, "timerfd: %s", strerror(errno));
		return -1;
	}
	err = ag_rtnl_open(ag);
	if (err) {
		ag_log(AG_ERR, "rtnetlink (RTNLGRP_LINK, RTNLGRP_DCB): %s",
		       strerror(-err));
		return -1;
	}
	err = rt_dcb_open(&ag->dcb);
	if (err) {
		ag_log(AG_ERR, "DCB netlink: %s", strerror(-err));
		return -1;
	}
	ag_module_open(ag, false);
	ag->module_retry_ms = ag_now_ms() + AG_MODULE_RETRY_MS;
	ag->status = ag_status_start(ag_fill_status, ag);
	if (!ag->status)
		return -1;
	if (ag->o.metrics_listen) {
		ag->http = ag_http_start(ag->o.metrics_listen, ag->web,
					 ag_fill_metrics, ag);
		if (!ag->http)
			return -1;
	}
	if (sd_watchdog_enabled(0, &usec) > 0 && usec >= 2000) {
		ag->watchdog_ms = usec / 1000;
		ag_log(AG_INFO, "systemd's watchdog: WATCHDOG=1 every %" PRIu64 " ms",
		       ag->watchdog_ms / 2);
		ag_watchdog(ag);
	}
	ag_rescan(ag, 0, "start");
	ag->periodic_rescan_ms = ag_now_ms() +
				 (uint64_t)ag->o.poll_interval_s * 1000;
	return 0;
}

static void ag_stop(struct ag *ag)
{
	size_t i;

	sd_notify(0, "STOPPING=1");
	ag_http_stop(ag->http);
	ag_web_free(ag->web);
	ag_status_stop(ag->status);
	for (i = 0; i < ag->n; i++)
		ag_nic_free(ag->nics[i]);
	free(ag->nics);
	if (ag->ev_open)
		rt_nl_close(&ag->ev);
	if (ag->cmd_open)
		rt_nl_close(&ag->cmd);
	if (ag->rtnl)
		mnl_socket_close(ag->rtnl);
	if (ag->dcb)
		rt_dcb_close(ag->dcb);
	rt_sys_ctx_close(&ag->ctx);
	rt_profile_set_free(&ag->set);
	free(ag->res);
	if (ag->tfd >= 0)
		close(ag->tfd);
	if (ag->sfd >= 0)
		close(ag->sfd);
	if (ag->lock_fd >= 0)
		close(ag->lock_fd);
}

enum {
	AG_FD_SIG,
	AG_FD_TIMER,
	AG_FD_RTNL,
	AG_FD_EV,
	AG_FD_HTTP,
	AG_FD_STATUS,		/* AG_STATUS_NFDS of them */
	AG_NFDS = AG_FD_STATUS + AG_STATUS_NFDS
};

/* The shorter of two poll() timeouts (-1: none). */
static int ag_min_timeout(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

static void ag_loop(struct ag *ag)
{
	struct pollfd pfd[AG_NFDS];
	uint64_t expirations;
	int timeout, n;

	while (!ag->stop) {
		ag_watchdog(ag);
		ag_arm_timer(ag);
		memset(pfd, 0, sizeof(pfd));
		pfd[AG_FD_SIG] = (struct pollfd){ ag->sfd, POLLIN, 0 };
		pfd[AG_FD_TIMER] = (struct pollfd){ ag->tfd, POLLIN, 0 };
		pfd[AG_FD_RTNL] = (struct pollfd){
			mnl_socket_get_fd(ag->rtnl), POLLIN, 0 };
		ag_status_pollfds(ag->status, pfd + AG_FD_STATUS);
		pfd[AG_FD_EV] = (struct pollfd){
			ag->ev_open ? nl_socket_get_fd(ag->ev.sk) : -1,
			POLLIN, 0 };
		pfd[AG_FD_HTTP] = (struct pollfd){
			ag->http ? ag_http_fd(ag->http) : -1, POLLIN, 0 };
		timeout = ag->http ? ag_http_timeout_ms(ag->http) : -1;
		timeout = ag_min_timeout(timeout,
					 ag_status_timeout_ms(ag->status));
		n = poll(pfd, AG_NFDS, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ag_log(AG_ERR, "poll: %s", strerror(errno));
			break;
		}
		if (pfd[AG_FD_SIG].revents)
			ag_signal_read(ag);
		if (pfd[AG_FD_EV].revents && ag->ev_open)
			ag_module_read(ag);
		if (pfd[AG_FD_RTNL].revents)
			ag_rtnl_read(ag);
		if (pfd[AG_FD_TIMER].revents &&
		    read(ag->tfd, &expirations, sizeof(expirations)) < 0 &&
		    errno != EAGAIN)
			ag_log(AG_WARNING, "timerfd: %s", strerror(errno));
		ag_due(ag);
		ag_status_run(ag->status, pfd + AG_FD_STATUS);
		if (ag->http)
			ag_http_run(ag->http);
	}
}

int main(int argc, char **argv)
{
	const char *js = getenv("JOURNAL_STREAM");
	struct ag ag;
	int ret;

	memset(&ag, 0, sizeof(ag));
	ag.tfd = ag.sfd = ag.lock_fd = ag.ready_fd = -1;
	ret = ag_options(&ag.o, argc, argv);
	if (ret >= 0)
		return ret;
	if (ag.o.web_config) {
		char err[1024];

		/* before the lock and the fork: the error on the terminal */
		ret = ag_web_load(ag.o.web_config, &ag.web, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "rocetuned: --web.config.file %s\n", err);
			return 1;
		}
	}
	ag_log_init(js && *js, ag.o.verbose ? AG_DEBUG : AG_INFO);
	ag.g.start_time_s = ag_wall();
	if (ag_lock(&ag))
		return 1;
	if (!ag.o.foreground && !getenv("NOTIFY_SOCKET") && ag_daemonize(&ag)) {
		ag_log(AG_ERR, "cannot fork: %s", strerror(errno));
		return 1;
	}
	ag_write_pid(&ag);
	ag_log(AG_INFO, "rocetuned %s starting (pid %d)", ROCETUNE_VERSION,
	       (int)getpid());
	if (ag_start(&ag)) {
		ag_stop(&ag);
		return 1;
	}
	ag_ready(&ag);
	ag_loop(&ag);
	ag_stop(&ag);
	ag_log(AG_INFO, "stopped");
	return 0;
}
