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
 *
 * This file: the options, start and stop, the timer and the loop; the
 * rest is in ag_nic.c, ag_storm_io.c, ag_tune_io.c, ag_events.c and
 * ag_report.c (ag_state.h).
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
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <netlink/socket.h>
#include <systemd/sd-daemon.h>

#include "ag_state.h"
#include "rt_dcb.h"
#include "rt_nl.h"
#include "rt_util.h"

#define AG_EVENT_BUFFER		(4u << 20)	/* --event-buffer */
#define AG_MAX_SERIES		1000	/* --metrics-max-series */

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

/*
 * Why the agent is not ready, as GET /ready says it, into ag->ready_text
 * (lines joined by ";"); a change after the start is logged.  True when
 * it changed.
 */
static bool ag_ready_text(struct ag *ag)
{
	char before[sizeof(ag->ready_text)];
	char *t = NULL, *nl;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&t, &len);
	if (!f)
		return false;
	ag_ready_reasons(ag, f);
	if (fclose(f)) {
		free(t);
		return false;
	}
	if (len && t[len - 1] == '\n')
		t[--len] = '\0';
	while ((nl = strchr(t, '\n')))
		*nl = ';';
	memcpy(before, ag->ready_text, sizeof(before));
	snprintf(ag->ready_text, sizeof(ag->ready_text), "%s", t);
	free(t);
	if (!strcmp(before, ag->ready_text))
		return false;
	if (!ag->ready)
		;		/* READY=1 says it first */
	else if (ag->ready_text[0])
		ag_log(AG_NOTICE, "not ready: %s", ag->ready_text);
	else
		ag_log(AG_NOTICE, "ready: every NIC has its profile in force (was: %s)",
		       before);
	return true;
}

/* STATUS= (after @pre, e.g. "READY=1\n"), with readiness. */
static void ag_notify_status(struct ag *ag, const char *pre)
{
	size_t i, with = 0;

	ag_ready_text(ag);
	for (i = 0; i < ag->n; i++)
		with += ag->nics[i]->prof != NULL;
	sd_notifyf(0, "%sSTATUS=%zu RoCE NIC%s, %zu with a profile; %u profile%s; %s%s",
		   pre, ag->n, ag->n == 1 ? "" : "s", with, ag->set.n,
		   ag->set.n == 1 ? "" : "s",
		   ag->ready_text[0] ? "NOT READY: " : "ready",
		   ag->ready_text);
}

/*
 * After each turn of the loop: readiness that changed is logged and
 * sent as STATUS= (what systemctl status shows).
 */
static void ag_ready_update(struct ag *ag)
{
	if (ag->ready && ag_ready_text(ag))
		ag_notify_status(ag, "");
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
	ag->ready = true;	/* the start-up applies are done */
	ag_notify_status(ag, "READY=1\n");
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
		const struct ag_http_src src = {
			.fill = ag_fill_metrics,
			.collect = ag_collect_metrics,
			.ready = ag_fill_ready,
			.arg = ag,
		};

		ag->http = ag_http_start(ag->o.metrics_listen, ag->web, &src);
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
	ag_mcol_close(&ag->mcol);	/* its thread is gone */
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
		ag_ready_update(ag);
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
