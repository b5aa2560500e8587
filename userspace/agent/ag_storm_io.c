// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: pause storms.  The module's STORM_START and STORM_END, the
 * action of a NIC's profile and its restore (what they write is
 * ag_storm.c's, through the NIC's applies), the record that lets an agent
 * restarted during a storm restore what was there before it, and the
 * resynchronisation with the module's storm state (PORT_GET).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ag_state.h"
#include "rt_dcb.h"
#include "rt_ethtool.h"

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
void ag_storm_recall(struct ag_nic *an)
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
void ag_nic_storm_act(struct ag *ag, struct ag_nic *an,
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

void ag_nic_storm_restore(struct ag *ag, struct ag_nic *an)
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

/*
 * The module reports storm edges only: after a lost event (a socket
 * overrun), at start (a storm that began before) and when an action was
 * skipped, take the storm state from PORT_GET (ROCETUNE_A_PRIO_STORM) and
 * put in the edges the agent missed.
 */
void ag_storm_resync(struct ag *ag, struct ag_nic *an, const char *why)
{
	const char *nd = an->nic.id.netdev;
	uint8_t storming = 0, fresh = 0;
	struct rt_port port;
	enum ag_wd_do todo;
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
	err = ag_port_get(ag, an, &port);
	if (err > 0)
		return;
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

void ag_storm_resync_all(struct ag *ag, const char *why)
{
	size_t i;

	for (i = 0; i < ag->n; i++)
		ag_storm_resync(ag, ag->nics[i], why);
}

void ag_storm_event(struct ag *ag, const struct rt_event *ev)
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
