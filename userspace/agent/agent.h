/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetuned, the agent: what its parts share.
 *
 * The pure parts (no system calls, unit-tested in tests/test_agent.c):
 *   ag_ratelimit.c  the bound on drift re-applies per NIC
 *   ag_watchdog.c   the pause-storm action state machine per NIC
 *   ag_storm.c      what a storm action and its restore write
 *   ag_tune.c       the decisions of a [Tune] rule (closed loop)
 *   ag_metrics.c    the agent's series in the Prometheus text format
 *   ag_rtnl.c       parsing of rtnetlink link and DCB notifications
 * and the daemon:
 *   rocetuned.c     options, start and stop, the timer, the poll() loop
 *   ag_events.c     NIC scans, rocetune.ko's events, rtnetlink
 *   ag_report.c     the body of /metrics and of the status answer
 *   ag_storm_io.c   pause storms: actions, restores, resynchronisation
 *   ag_tune_io.c    the [Tune] closed loop: samples and writes
 *   ag_nic.c        one NIC: its profile in force, applies, drift checks
 *   (ag_state.h     the state these share, and which calls which)
 *   ag_http.c       /metrics over libmicrohttpd, in the same loop
 *   ag_web.c        its --web.config.file (TLS, basic auth)
 *   ag_status.c     the status socket of "rocetune agent status"
 *   ag_log.c        levelled logging to stderr or the journal
 * Documentation/agent.rst describes the behaviour.
 */
#ifndef ROCETUNE_AGENT_H
#define ROCETUNE_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_apply.h"
#include "rt_profile.h"

/* Logging --------------------------------------------------------------- */

/* syslog(3) priorities, which the journal reads from "<N>" prefixes. */
enum {
	AG_ERR = 3,
	AG_WARNING = 4,
	AG_NOTICE = 5,
	AG_INFO = 6,
	AG_DEBUG = 7,
};

/*
 * ag_log_init() - @journal: prefix lines with "<N>" (stderr connected to
 * the journal, $JOURNAL_STREAM); else "rocetuned: LEVEL: ".  Messages
 * above @max_level are dropped.
 */
void ag_log_init(bool journal, int max_level);
void ag_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Re-apply rate limiter (ag_ratelimit.c) --------------------------------- */

#define AG_RL_SLOTS	1000	/* MaxReapplies= is at most 1000 */

/*
 * At most @max re-applies in any window of @window_ms; the first one
 * refused suppresses every later one (the NIC is left alone: never fight
 * another tool) until ag_rl_init() again.
 */
struct ag_ratelimit {
	uint32_t max;
	uint64_t window_ms;
	unsigned int n;			/* re-applies in t[], oldest first */
	uint64_t t[AG_RL_SLOTS];
	bool suppressed;
	uint64_t suppressed_at_ms;
};

void ag_rl_init(struct ag_ratelimit *rl, uint32_t max, uint32_t window_s);
/* ag_rl_allow() - may a re-apply run at @now_ms?  Records it if so. */
bool ag_rl_allow(struct ag_ratelimit *rl, uint64_t now_ms);
/* ag_rl_count() - re-applies within the window ending at @now_ms. */
unsigned int ag_rl_count(struct ag_ratelimit *rl, uint64_t now_ms);

/* Pause-storm watchdog (ag_watchdog.c) ----------------------------------- */

enum ag_wd_state {
	AG_WD_IDLE,		/* no storm, no action in force */
	AG_WD_ACTIVE,		/* a storm lasts: the action holds */
	AG_WD_HOLD,		/* storms over: restore at restore_at_ms */
};

enum ag_wd_do {
	AG_WD_DO_NOTHING,
	AG_WD_DO_ACT,		/* apply the action (for @acted priorities) */
	AG_WD_DO_RESTORE,	/* restore the profile's state */
};

struct ag_wd {
	enum ag_wd_state state;
	uint8_t storming;		/* priorities in a storm now */
	uint8_t acted;			/* priorities the action covers */
	uint64_t restore_after_ms;
	uint64_t restore_at_ms;		/* AG_WD_HOLD */
};

void ag_wd_init(struct ag_wd *wd, uint32_t restore_after_ms);
enum ag_wd_do ag_wd_storm_start(struct ag_wd *wd, unsigned int prio,
				uint64_t now_ms);
enum ag_wd_do ag_wd_storm_end(struct ag_wd *wd, unsigned int prio,
			      uint64_t now_ms);
enum ag_wd_do ag_wd_tick(struct ag_wd *wd, uint64_t now_ms);
/* ag_wd_deadline() - when ag_wd_tick() has work, 0 if never. */
uint64_t ag_wd_deadline(const struct ag_wd *wd);
const char *ag_wd_state_name(enum ag_wd_state s);

/*
 * ag_wd_sync() - the module says @storming (a bitmap) storm now: what
 * edges were lost since.  A new priority is a STORM_START, one gone a
 * STORM_END.  AG_WD_DO_ACT when a priority is to be acted for (the new
 * ones, in @fresh), else what the ends lead to.
 */
enum ag_wd_do ag_wd_sync(struct ag_wd *wd, uint8_t storming, uint64_t now_ms,
			 uint8_t *fresh);

/* Pause-storm actions (ag_storm.c) --------------------------------------- */

enum ag_skip {
	AG_SKIP_PFC_READ,		/* the NIC's PFC could not be read */
	AG_SKIP_TOUT_READ,		/* nor its pfc-prevention-tout */
	AG_SKIP_NOMEM,
	AG_SKIP_NUM
};

/* "pfc-read-failed", "tout-read-failed", "out-of-memory" */
const char *ag_skip_name(enum ag_skip r);

/* What a NIC's action started from: read before its first write. */
struct ag_storm {
	bool saved;			/* read for this storm (until restore) */
	enum rt_wd_action action;	/* the action it was read for */
	uint8_t pfc_en;			/* disable-pfc: the PFC read */
	bool tout_ok;			/* timeout, no PFCStormTimeoutMs=: */
	uint16_t tout;			/* the tunable read */
	bool in_force;			/* written since the last restore */
};

struct ag_storm_ops {
	/* 0 and the NIC's PFC-enabled bitmap, or -errno and why in @msg */
	int (*read_pfc)(void *arg, uint8_t *pfc_en, char *msg, size_t len);
	/* 0 and its pfc-prevention-tout, or -errno and why */
	int (*read_tout)(void *arg, uint16_t *ms, char *msg, size_t len);
	/*
	 * apply @p (only the action's setting in it); 0 when in force,
	 * -EBUSY when another apply holds the NIC's lock (nothing written)
	 */
	int (*apply)(void *arg, const struct rt_profile *p, const char *why);
};

/* ag_storm_only() - @p with only its action's setting (and [Match]). */
void ag_storm_only(struct rt_profile *p);
/*
 * ag_storm_eff() - the action for the priorities @acted into @eff (a
 * copy of the profile @b): PFC= the state read without @acted, or
 * PFCStormTimeoutMs= TimeoutMs=.  -ENODATA, @eff untouched, when no state
 * was read for @b's action.
 */
int ag_storm_eff(const struct ag_storm *s, const struct rt_profile *b,
		 uint8_t acted, struct rt_profile *eff);
/*
 * ag_storm_restore_profile() - what a restore applies: @b's setting of
 * the action, or for one @b does not govern the value read before it;
 * only that setting.
 */
void ag_storm_restore_profile(const struct ag_storm *s,
			      const struct rt_profile *b,
			      struct rt_profile *rp);
/*
 * ag_storm_act() - act for @wd->acted (@fresh: the priorities new in it)
 * by @b's Action=: read what the action starts from unless read already
 * for this storm, then apply the action's setting.  0: in force; 1: the
 * apply failed (the engine rolled back); 2: the NIC's lock is held by
 * another apply: nothing written, @fresh taken out of @wd->acted (act
 * again soon; the state is read again unless an action is in force);
 * -1: skipped, nothing written, @fresh taken out of @wd->acted, *@skip
 * and @msg say why.
 */
int ag_storm_act(struct ag_storm *s, struct ag_wd *wd, uint8_t fresh,
		 const struct rt_profile *b, const struct ag_storm_ops *ops,
		 void *arg, enum ag_skip *skip, char *msg, size_t len);
/*
 * ag_storm_restore() - storms over: apply ag_storm_restore_profile() if an
 * action was written since the last restore.  0 (also when nothing was
 * to restore), 1 when the apply failed, 2 when the NIC's lock is held by
 * another apply (nothing written, @s kept: restore again soon), -ENOMEM.
 */
int ag_storm_restore(struct ag_storm *s, const struct rt_profile *b,
		     const struct ag_storm_ops *ops, void *arg);

/* Closed-loop tuning: [Tune] (ag_tune.c) --------------------------------- */

/*
 * The guardrails of a rule: at most MaxWritesPerHour= writes (tries
 * included) in any AG_TUNE_WINDOW_MS; AG_TUNE_OSC_REVERSALS reversals of
 * direction among the last AG_TUNE_OSC_CHANGES changes, all within
 * AG_TUNE_WINDOW_MS, is oscillation.  Either stops the rule for good (the
 * value in force stays) until ag_tune_init() again: reload, restart or
 * the NIC coming back.
 */
#define AG_TUNE_WINDOW_MS	3600000ull
#define AG_TUNE_WRITES_MAX	RT_TUNE_MAX_WRITES_PER_HOUR
#define AG_TUNE_OSC_CHANGES	6
#define AG_TUNE_OSC_REVERSALS	4

/* One rule, from a profile's [Tune] (ag_tune_rule_from()). */
struct ag_tune_rule {
	int dir;			/* +1 Direction=increase, -1 decrease */
	uint64_t above, below;		/* events/s, below < above */
	uint32_t step, min, max;
	uint32_t base;			/* the profile's [DCQCN] value */
	uint32_t cooldown_ms;
	bool guard;			/* Guard= given */
	uint64_t guard_tol;		/* events/s */
	uint32_t max_writes;		/* MaxWritesPerHour= */
};

enum ag_tune_action {
	AG_TUNE_HOLD,			/* nothing to write */
	AG_TUNE_STEP,			/* one step away from the base */
	AG_TUNE_BACK,			/* one step back toward the base */
	AG_TUNE_REVERT,			/* undo the last step: the guard */
};

enum ag_tune_reason {
	AG_TUNE_R_IDLE,			/* in the band, or at the base */
	AG_TUNE_R_NO_DATA,		/* no sample since the last one used */
	AG_TUNE_R_HIGH,			/* metric above Above= */
	AG_TUNE_R_LOW,			/* metric below Below= */
	AG_TUNE_R_GUARD,		/* guard worse than before the step */
	AG_TUNE_R_COOLDOWN,		/* would move: CooldownMs= not over */
	AG_TUNE_R_LIMIT,		/* would move: at Min= or Max= */
	AG_TUNE_R_BLOCKED,		/* would move: that step was reverted */
	AG_TUNE_R_BUDGET,		/* would move: MaxWritesPerHour= spent */
	AG_TUNE_R_STOPPED,		/* the rule stopped (oscillation, budget) */
	AG_TUNE_R_NUM
};

enum ag_tune_stop {
	AG_TUNE_RUNNING,
	AG_TUNE_STOP_OSCILLATION,
	AG_TUNE_STOP_BUDGET,
	AG_TUNE_STOP_NUM
};

struct ag_tune_change {
	uint64_t ms;
	int dir;
};

struct ag_tune_state {
	uint32_t value;			/* in force */
	uint32_t prev;			/* before the last change */
	uint64_t changed_ms;		/* of the last change (or failed try) */
	bool changed;			/* changed_ms is valid */
	bool watching;			/* the guard watches the last step */
	uint64_t guard_before;		/* guard rate when it was decided */
	int blocked;			/* +1/-1: steps that way were reverted */
	/* the guardrails */
	enum ag_tune_stop stopped;
	uint64_t stopped_ms;
	unsigned int nwrites;		/* in write_ms[], oldest first */
	uint64_t write_ms[AG_TUNE_WRITES_MAX];	/* tries, last window */
	unsigned int nchanges;		/* in changes[], oldest first */
	struct ag_tune_change changes[AG_TUNE_OSC_CHANGES];
	unsigned int reversals;		/* among changes[] at the last one */
};

/* One sample of the port's rates. */
struct ag_tune_in {
	uint64_t now_ms;
	bool fresh;			/* taken after the last change, unused */
	uint64_t metric;		/* events/s */
	uint64_t guard;			/* events/s, when the rule has a guard */
};

struct ag_tune_decision {
	enum ag_tune_action action;
	enum ag_tune_reason reason;
	int dir;			/* +1 up, -1 down, 0: the value stays */
	uint32_t from, to;
};

void ag_tune_rule_from(struct ag_tune_rule *r, const struct rt_profile *p);
void ag_tune_init(struct ag_tune_state *s, const struct ag_tune_rule *r);
/*
 * ag_tune_decide() - what to do on sample @in; pure.  A decision other
 * than AG_TUNE_HOLD wants d->to written; then call ag_tune_update() with
 * whether that worked.  Call ag_tune_update() after a hold too.
 */
void ag_tune_decide(const struct ag_tune_rule *r,
		    const struct ag_tune_state *s, const struct ag_tune_in *in,
		    struct ag_tune_decision *d);
/* ag_tune_update() - the state after decision @d (@applied: written). */
void ag_tune_update(const struct ag_tune_rule *r, struct ag_tune_state *s,
		    const struct ag_tune_in *in,
		    const struct ag_tune_decision *d, bool applied);
/* ag_tune_writes() - writes (tries) within the window ending at @now_ms. */
unsigned int ag_tune_writes(const struct ag_tune_state *s, uint64_t now_ms);
/* "hold", "step", "back", "revert"; "high", "cooldown", ...; "up" ... */
const char *ag_tune_action_name(enum ag_tune_action a);
/* "running", "oscillation", "budget" */
const char *ag_tune_stop_name(enum ag_tune_stop r);
const char *ag_tune_reason_name(enum ag_tune_reason r);
const char *ag_tune_dir_name(int dir);

/* Metrics (ag_metrics.c) ------------------------------------------------- */

#define AG_HIST_N	12
extern const double ag_hist_bounds[AG_HIST_N];	/* seconds, last +Inf */

struct ag_hist {
	uint64_t bucket[AG_HIST_N];	/* not cumulative */
	uint64_t count;
	double sum;
};

void ag_hist_add(struct ag_hist *h, double seconds);

#define AG_NRES		(RT_RES_NO_PROFILE + 1)
#define AG_DRIFT_KEYS	32

enum ag_act {
	AG_ACT_ALERT,
	AG_ACT_TIMEOUT,
	AG_ACT_DISABLE_PFC,
	AG_ACT_RESTORE,
	AG_ACT_NUM
};

struct ag_drift_count {
	char setting[40];		/* "pfc", "dscp 26", "dcqcn G", "other" */
	uint64_t n;
};

/* What the agent counts per NIC; labels come with it. */
struct ag_stats {
	char netdev[64];
	char rdma_dev[64];
	uint32_t port;
	char profile[256];		/* "" when no profile matches */
	uint64_t applies[AG_NRES];	/* by enum rt_result */
	uint64_t writes;		/* incl. restoring writes */
	uint64_t failures;		/* applies that did not end as wanted */
	uint64_t drift_checks;
	uint64_t drift_checks_skipped;	/* the NIC's lock was held */
	uint64_t lock_busy;		/* tries that found the lock held */
	unsigned int ndrift;
	struct ag_drift_count drift[AG_DRIFT_KEYS];
	uint64_t reapplies;		/* drift re-applies */
	bool journal_stuck;		/* a journal blocks its applies */
	uint64_t suppressions;		/* drifts left alone: limiter */
	bool suppressed;
	uint64_t storm_starts, storm_ends;
	uint64_t actions[AG_ACT_NUM];
	uint64_t skipped[AG_SKIP_NUM];	/* storm actions not taken, why */
	uint64_t storm_resyncs;		/* storm edges put in from PORT_GET */
	bool action_active;
	double last_action_latency_s;	/* < 0: none yet */
	double last_apply_time_s;	/* wall clock; 0: never */
	/* [Tune] */
	bool tune;			/* the profile has a rule */
	char tune_param[40];		/* its Parameter=, "AIRateMbps" */
	uint32_t tune_value;		/* in force */
	enum ag_tune_stop tune_stopped;	/* the rule stopped, why */
	/* decisions by direction (down, none, up) and reason */
	uint64_t tune_decisions[3][AG_TUNE_R_NUM];
};

/* ag_stats_tune() - count decision @d of the NIC's [Tune] rule. */
void ag_stats_tune(struct ag_stats *s, const struct ag_tune_decision *d);

/* ag_stats_drift() - count one drift of @setting (bounded table). */
void ag_stats_drift(struct ag_stats *s, const char *setting);

struct ag_global {
	double start_time_s;		/* wall clock */
	bool module;			/* rocetune.ko's events are received */
	uint64_t reloads_ok, reloads_failed;
	bool last_reload_ok;
	uint64_t events, events_lost;
	uint64_t rescans;
	struct ag_hist storm_latency;	/* kernel event -> action applied */
	struct ag_hist hotplug_latency;	/* appearance -> profile applied */
	bool ready;			/* ag_ready_write() found no reason */
};

const char *ag_act_name(enum ag_act a);

/*
 * ag_metrics_write() - the agent's series for @g and the @n NICs @nics,
 * every family with # HELP and # TYPE, passing "promtool check metrics".
 */
void ag_metrics_write(FILE *f, const struct ag_global *g,
		      const struct ag_stats *const *nics, size_t n);
/*
 * ag_metrics_write_qp_limit() - after the per-QP series: how many were
 * written, the limit, and how many QPs it left out.
 */
void ag_metrics_write_qp_limit(FILE *f, size_t series, size_t dropped,
			       uint32_t max);

/* Readiness (ag_ready.c) ------------------------------------------------- */

/* What readiness needs to know of one NIC. */
struct ag_ready_nic {
	const char *netdev;
	bool profile;			/* a profile matches it */
	const char *profile_name;
	bool applied;			/* an apply has ended */
	bool busy;			/* its apply waits for the NIC's lock */
	enum rt_result last;		/* the last apply's result */
	const char *last_error;
	bool drift_left;		/* drift found and not written back */
	const char *drift_why;		/* "re-apply limit reached", ... */
	bool journal_stuck;
	bool storm_action;		/* a storm action is in force */
};

struct ag_ready_in {
	bool started;			/* the start-up applies are done */
	const char *reload_error;	/* "" or NULL: the last reload was ok */
	const struct ag_ready_nic *nics;
	size_t n;
};

/*
 * ag_ready_write() - why the agent is not ready, one line per reason,
 * each naming its NIC, on @f (NULL: only count them).  Returns the number
 * of reasons: 0 when ready.
 */
size_t ag_ready_write(FILE *f, const struct ag_ready_in *in);

/* rtnetlink notifications (ag_rtnl.c) ------------------------------------ */

struct nlmsghdr;

enum ag_rtnl_kind {
	AG_RTNL_OTHER,
	AG_RTNL_NEWLINK,
	AG_RTNL_DELLINK,
	AG_RTNL_DCB,		/* RTNLGRP_DCB: a NIC's DCB state changed */
};

struct ag_rtnl_msg {
	enum ag_rtnl_kind kind;
	int ifindex;			/* links */
	char ifname[64];		/* "" when absent */
};

/* ag_rtnl_parse() - what @nlh (of @len bytes available) tells. */
int ag_rtnl_parse(const struct nlmsghdr *nlh, size_t len,
		  struct ag_rtnl_msg *m);

/* The web configuration file (ag_web.c) ---------------------------------- */

/* tls_server_config: client_auth_type, as Go's crypto/tls names them */
enum ag_client_auth {
	AG_CLIENT_NONE,			/* NoClientCert */
	AG_CLIENT_REQUEST,		/* RequestClientCert */
	AG_CLIENT_REQUIRE_ANY,		/* RequireAnyClientCert */
	AG_CLIENT_VERIFY_IF_GIVEN,	/* VerifyClientCertIfGiven */
	AG_CLIENT_REQUIRE_VERIFY,	/* RequireAndVerifyClientCert */
	AG_CLIENT_NUM
};

struct ag_web_user;

/* --web.config.file, as exporter-toolkit reads it (ag_web_load()). */
struct ag_web {
	bool tls;			/* tls_server_config given */
	char *cert_pem, *key_pem, *ca_pem;	/* the files' contents */
	enum ag_client_auth client_auth;
	int min_version, max_version;	/* 0: TLS 1.0 .. 3: TLS 1.3 */
	bool server_order;		/* prefer_server_cipher_suites */
	char priorities[160];		/* GnuTLS priority string */
	struct ag_web_user *users;	/* basic_auth_users */
	size_t nusers;
	void *crypt;			/* struct crypt_data */
	uint64_t bcrypt_second;		/* the bcrypt budget's second */
	unsigned int bcrypt_n;		/* checks in it */
};

/*
 * ag_web_load() - read and check @path; unknown keys, keys rocetuned does
 * not implement, unreadable files and certificates GnuTLS refuses are
 * errors, "FILE:LINE: what" in @err.
 */
int ag_web_load(const char *path, struct ag_web **out, char *err,
		size_t errlen);
void ag_web_free(struct ag_web *w);
/*
 * ag_web_auth() - 1 when @user and @pw pass basic_auth_users (or there
 * are none), 0 when not, -EBUSY when too many bcrypt checks ran in the
 * last second (a good password is remembered and costs none).
 */
int ag_web_auth(struct ag_web *w, const char *user, const char *pw);
const char *ag_web_client_auth_name(enum ag_client_auth a);

/* HTTP /metrics (ag_http.c) ---------------------------------------------- */

struct ag_http;

#define AG_HTTP_PER_PEER	4	/* connections of one peer address */
#define AG_HTTP_MAX_CONN	64	/* connections per listening address */
#define AG_HTTP_TIMEOUT_S	10	/* an idle connection is closed */

/*
 * The body of /metrics, in two parts: @fill writes the first in the loop
 * and returns a job (malloc()ed, NULL: out of memory, the body ends
 * there); @collect writes the rest from the job in the collector thread,
 * where it may wait (netlink dumps) while the loop goes on.  @ready
 * (may be NULL: no /ready) writes why the agent is not ready and returns
 * 0 when it is: 200 "ready", else 503 with its lines.
 */
struct ag_http_src {
	void *(*fill)(FILE *f, void *arg);
	void (*collect)(FILE *f, void *job);
	int (*ready)(FILE *f, void *arg);	/* GET /ready: 0 ready */
	void *arg;
};

/*
 * ag_http_start() - listen on "ADDR:PORT": ":9101" every IPv4 and IPv6
 * address, "[::1]:9101", "127.0.0.1:9101", or a host name's every
 * address; with @web (may be NULL) for TLS and basic auth, and its
 * collector thread.  Returns NULL (logged) on failure.
 */
struct ag_http *ag_http_start(const char *listen, struct ag_web *web,
			      const struct ag_http_src *src);
int ag_http_fd(const struct ag_http *h);
/* ag_http_timeout_ms() - how long poll() may wait for it, -1: forever. */
int ag_http_timeout_ms(struct ag_http *h);
void ag_http_run(struct ag_http *h);
void ag_http_stop(struct ag_http *h);

/* Status socket (ag_status.c) -------------------------------------------- */

/* The socket "rocetune agent status" connects to: RUN_DIR/rocetuned.sock */
int ag_status_path(char *buf, size_t len);
int ag_status_listen(void);
struct ag_status;
struct pollfd;

#define AG_STATUS_CLIENTS	16	/* served at once */
#define AG_STATUS_TIMEOUT_MS	1000	/* a client's whole exchange */
#define AG_STATUS_NFDS		(AG_STATUS_CLIENTS + 1)

/*
 * ag_status_start() - listen on ag_status_path(); a client's request line
 * ("status [json] [pretty]") is answered with @fill(FILE, json, pretty,
 * @arg).  NULL (logged) on failure.  Nothing blocks: the caller polls
 * the AG_STATUS_NFDS fds ag_status_pollfds() fills in (free slots with
 * fd -1), for at most ag_status_timeout_ms() (-1: no client), then calls
 * ag_status_run() with them.
 */
struct ag_status *ag_status_start(void (*fill)(FILE *f, bool json,
					       bool pretty, void *arg),
				  void *arg);
size_t ag_status_pollfds(const struct ag_status *s, struct pollfd *pfd);
int ag_status_timeout_ms(const struct ag_status *s);
void ag_status_run(struct ag_status *s, const struct pollfd *pfd);
/* ag_status_stop() - close every client and the socket, unlink it. */
void ag_status_stop(struct ag_status *s);

#endif /* ROCETUNE_AGENT_H */
