/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetuned, the daemon: the state its files share (agent.h has what the
 * pure parts and the servers share).  Calls go one way:
 *   rocetuned.c     options, start and stop, the timer, the poll() loop
 *   ag_events.c     NIC scans, rocetune.ko's events, rtnetlink
 *   ag_report.c     the body of /metrics and of the status answer
 *   ag_storm_io.c   pause storms: actions, restores, resynchronisation
 *   ag_tune_io.c    the [Tune] closed loop: samples and writes
 *   ag_nic.c        one NIC: its profile in force, applies, drift checks
 * each calling only those below it (ag_report.c, ag_storm_io.c and
 * ag_tune_io.c only ag_nic.c).
 */
#ifndef ROCETUNE_AG_STATE_H
#define ROCETUNE_AG_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "agent.h"
#include "rt_model.h"
#include "rt_nl.h"
#include "rt_sysio.h"

#define AG_MODULE_RETRY_MS	10000	/* retry opening rocetune's events */
#define AG_RESCAN_RETRY_MS	50	/* a new device is no NIC yet: look */
#define AG_RESCAN_RETRY_MAX_MS	1000	/* again, backing off to 1 s, */
#define AG_RESCAN_WINDOW_MS	30000	/* for 30 s */

enum ag_drift_state {
	AG_DRIFT_NONE,		/* as the profile says */
	AG_DRIFT_REAPPLIED,	/* drift found and written back */
	AG_DRIFT_REPORTED,	/* drift found, OnDrift=report */
	AG_DRIFT_SUPPRESSED,	/* re-apply limit reached: left alone */
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

struct mnl_socket;

/* The metrics collector thread's own PORT_GET and QP_GET socket. */
struct ag_mcol {
	struct rt_nl nl;
	bool open;
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
	struct ag_mcol mcol;		/* the collector's, ag_http's thread */
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
	char ready_text[1024];		/* why not ready, as last said */
	uint64_t watchdog_ms;		/* WatchdogSec=, 0: none */
	uint64_t watchdog_due_ms;	/* the next WATCHDOG=1 */
	bool stop;
};

/* Time ------------------------------------------------------------------ */

static inline uint64_t ag_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t ag_now_ms(void)
{
	return ag_now_ns() / 1000000;
}

static inline double ag_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One NIC (ag_nic.c) ---------------------------------------------------- */

uint32_t ag_poll_s(const struct ag *ag, const struct rt_profile *p);
/*
 * ag_profile() - the profile in force: the NIC's profile, or while a storm
 * action holds, that profile with the action's setting in it.
 */
const struct rt_profile *ag_profile(const struct ag_nic *an);
/* ag_eff_build() - that profile, again after a change (-ENOMEM). */
int ag_eff_build(struct ag_nic *an);
/* ag_watchdog() - systemd's watchdog: WATCHDOG=1 at half its period. */
void ag_watchdog(struct ag *ag);
/*
 * ag_apply() - apply @p to @an, not waiting for its lock; the result in
 * ag->res.  0 when in force, -EBUSY when another process holds the lock.
 */
int ag_apply(struct ag *ag, struct ag_nic *an, const struct rt_profile *p,
	     const char *why);
/* ag_apply_profile() - apply the profile in force (waits in @an if locked). */
void ag_apply_profile(struct ag *ag, struct ag_nic *an, const char *why,
		      uint64_t origin_ns);
/* ag_storm_ms() - the module's storm threshold of the NIC's device. */
void ag_storm_ms(struct ag *ag, struct ag_nic *an);
/* ag_nic_profile() - (re)match the NIC's profile; its state starts afresh. */
void ag_nic_profile(struct ag *ag, struct ag_nic *an);
struct ag_nic *ag_find(struct ag *ag, const char *netdev);
struct ag_nic *ag_find_ifindex(struct ag *ag, int ifindex);
struct ag_nic *ag_find_port(struct ag *ag, const char *dev, uint32_t port);
void ag_nic_free(struct ag_nic *an);
/* ag_remove() - forget ag->nics[@i] (@why logged). */
void ag_remove(struct ag *ag, size_t i, const char *why);
/* ag_check() - compare the NIC with the profile in force: drift. */
void ag_check(struct ag *ag, struct ag_nic *an, const char *why);
/*
 * ag_port_get() - the module's PORT_GET of @an's port into @port (zeroed
 * first; rt_port_free() it after an answer, even a failed one).  0, the
 * request's -errno, or 1 when no request could be built (nothing sent).
 */
int ag_port_get(struct ag *ag, struct ag_nic *an, struct rt_port *port);

/* Pause storms (ag_storm_io.c) ------------------------------------------- */

/* ag_storm_recall() - at start or hotplug: an action left in force. */
void ag_storm_recall(struct ag_nic *an);
/* ag_nic_storm_act() - act for @fresh, on @ev or (NULL) a resync (@why). */
void ag_nic_storm_act(struct ag *ag, struct ag_nic *an,
		      const struct rt_event *ev, uint8_t fresh,
		      const char *why);
void ag_nic_storm_restore(struct ag *ag, struct ag_nic *an);
/* ag_storm_resync() - the storm state from PORT_GET: the edges missed. */
void ag_storm_resync(struct ag *ag, struct ag_nic *an, const char *why);
void ag_storm_resync_all(struct ag *ag, const char *why);
/* ag_storm_event() - STORM_START or STORM_END from rocetune.ko. */
void ag_storm_event(struct ag *ag, const struct rt_event *ev);

/* Closed loop: [Tune] (ag_tune_io.c) ------------------------------------- */

/* ag_tune_tick() - one sample of the NIC's port rates, one decision. */
void ag_tune_tick(struct ag *ag, struct ag_nic *an);

/* NIC scans, module events, rtnetlink (ag_events.c) ---------------------- */

/* ag_rescan() - scan the host's RoCE NICs; the number of new ones. */
int ag_rescan(struct ag *ag, uint64_t origin_ns, const char *why);
void ag_module_open(struct ag *ag, bool quiet);
/* ag_module_verify() - resubscribe if the family went or came back. */
void ag_module_verify(struct ag *ag);
void ag_module_read(struct ag *ag);
int ag_rtnl_open(struct ag *ag);
void ag_rtnl_read(struct ag *ag);

/* Metrics and status (ag_report.c) --------------------------------------- */

/*
 * ag_fill_metrics() - the agent's own series of /metrics, in the loop
 * (ag_http_start()'s @fill); returns what ag_collect_metrics() needs for
 * the rest (free() it), NULL when out of memory.
 */
void *ag_fill_metrics(FILE *f, void *arg);
/*
 * ag_collect_metrics() - the rest of /metrics, in the collector thread:
 * the module's port and per-QP series, by the job's socket.
 */
void ag_collect_metrics(FILE *f, void *job);
/* ag_mcol_close() - the collector's socket, once its thread is gone. */
void ag_mcol_close(struct ag_mcol *col);
/*
 * ag_ready_reasons() - why the agent is not ready (ag_ready_write()), on
 * @f unless it is NULL; 0 when ready.
 */
size_t ag_ready_reasons(struct ag *ag, FILE *f);
/* ag_fill_ready() - GET /ready (ag_http_start()'s @ready): 0 when ready. */
int ag_fill_ready(FILE *f, void *arg);
/* ag_fill_status() - the status answer (ag_status_start()'s @fill). */
void ag_fill_status(FILE *f, bool json, bool pretty, void *arg);

#endif /* ROCETUNE_AG_STATE_H */
