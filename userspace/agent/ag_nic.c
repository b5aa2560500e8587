// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the NICs it tracks, one by one.  The profile in force on a
 * NIC (its own, or with a storm action or a [Tune] value in it), its
 * applies through the library's engine without waiting for its lock, its
 * drift checks and the module's storm threshold of its device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <systemd/sd-daemon.h>

#include "ag_state.h"
#include "rt_nl.h"

#define AG_LOCK_RETRY_MS	50	/* another apply holds a NIC's lock */

/* Profiles of a NIC ----------------------------------------------------- */

uint32_t ag_poll_s(const struct ag *ag, const struct rt_profile *p)
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
const struct rt_profile *ag_profile(const struct ag_nic *an)
{
	return an->eff ? an->eff : an->prof;
}

int ag_eff_build(struct ag_nic *an)
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
void ag_watchdog(struct ag *ag)
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
int ag_apply(struct ag *ag, struct ag_nic *an, const struct rt_profile *p,
	     const char *why)
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
	/* an invalid profile: its first reason, as "agent status" and /ready say */
	snprintf(an->last_error, sizeof(an->last_error), "%s", res->error);
	if (res->result == RT_RES_INVALID && res->diag.n) {
		size_t len = strlen(an->last_error);

		snprintf(an->last_error + len, sizeof(an->last_error) - len,
			 "%s%.*s", len ? ": " : "",
			 (int)(sizeof(an->last_error) - 1), res->diag.msg[0]);
	}
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
void ag_apply_profile(struct ag *ag, struct ag_nic *an, const char *why,
		      uint64_t origin_ns)
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
void ag_storm_ms(struct ag *ag, struct ag_nic *an)
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

void ag_nic_profile(struct ag *ag, struct ag_nic *an)
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

struct ag_nic *ag_find(struct ag *ag, const char *netdev)
{
	size_t i;

	for (i = 0; i < ag->n; i++)
		if (!strcmp(ag->nics[i]->nic.id.netdev, netdev))
			return ag->nics[i];
	return NULL;
}

struct ag_nic *ag_find_ifindex(struct ag *ag, int ifindex)
{
	size_t i;

	for (i = 0; i < ag->n; i++)
		if (ag->nics[i]->nic.ifindex == ifindex)
			return ag->nics[i];
	return NULL;
}

struct ag_nic *ag_find_port(struct ag *ag, const char *dev, uint32_t port)
{
	size_t i;

	for (i = 0; i < ag->n; i++)
		if (!strcmp(ag->nics[i]->nic.id.rdma_dev, dev) &&
		    (!port || ag->nics[i]->nic.port == port))
			return ag->nics[i];
	return NULL;
}

void ag_nic_free(struct ag_nic *an)
{
	free(an->eff);
	free(an);
}

void ag_remove(struct ag *ag, size_t i, const char *why)
{
	struct ag_nic *an = ag->nics[i];

	ag_log(AG_NOTICE, "%s: gone (%s)", an->nic.id.netdev, why);
	ag_nic_free(an);
	memmove(ag->nics + i, ag->nics + i + 1,
		(ag->n - i - 1) * sizeof(ag->nics[0]));
	ag->n--;
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

/* A change in words: its setting, the value found ("absent") and wanted. */
struct ag_change_words {
	char name[64], a[256], b[256];
};

static void ag_change_words(const struct rt_change *c,
			    struct ag_change_words *w)
{
	rt_setting_name(&c->want, w->name, sizeof(w->name));
	rt_setting_value(&c->old, w->a, sizeof(w->a));
	rt_setting_value(&c->want, w->b, sizeof(w->b));
	if (c->old.absent)
		snprintf(w->a, sizeof(w->a), "absent");
}

void ag_check(struct ag *ag, struct ag_nic *an, const char *why)
{
	struct rt_apply_opts o = { .dry_run = true, .dry_run_locked = true };
	const struct rt_profile *p = ag_profile(an);
	struct rt_apply_result *res = ag->res;
	char desc[sizeof(an->drift_desc)];
	struct ag_change_words w;
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
		ag_change_words(&res->changes[i], &w);
		off += (size_t)snprintf(desc + off, off < sizeof(desc) ?
					sizeof(desc) - off : 0,
					"%s%s: %s -> %s", off ? "; " : "",
					w.name, w.a, w.b);
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
		ag_change_words(&res->changes[i], &w);
		if (!again)
			ag_stats_drift(&an->st, w.name);
		ag_log(level, "%s: drift (%s): %s is %s, profile %s wants %s",
		       an->nic.id.netdev, why, w.name, w.a, p->name, w.b);
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

static int ag_port_one_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_port *port = arg;

	rt_port_free(port);
	memset(port, 0, sizeof(port[0]));
	return rt_port_parse(nlh, port);
}

int ag_port_get(struct ag *ag, struct ag_nic *an, struct rt_port *port)
{
	struct nl_msg *msg;

	memset(port, 0, sizeof(*port));
	msg = rt_nl_msg_dev(&ag->cmd, ROCETUNE_CMD_PORT_GET,
			    an->nic.id.rdma_dev, an->nic.port);
	if (!msg)
		return 1;
	return rt_nl_do(&ag->cmd, msg, ag_port_one_cb, port);
}
