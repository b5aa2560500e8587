// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: what it reports.  The body of /metrics (its own series,
 * the module's port series and the per-QP series of --metrics-qp-labels)
 * and the answer of the status socket ("rocetune agent status").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "ag_state.h"
#include "rt_nl.h"
#include "rt_print.h"
#include "rt_prom.h"
#include "rt_util.h"

#define AG_PORTS_MAX		64	/* port series per scrape */

static const char *const ag_drift_names[] = {
	[AG_DRIFT_NONE] = "none",
	[AG_DRIFT_REAPPLIED] = "reapplied",
	[AG_DRIFT_REPORTED] = "reported",
	[AG_DRIFT_SUPPRESSED] = "suppressed",
};

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
 * What a scrape's collection needs to know of the agent's state, copied
 * in the loop (ag_fill_metrics()): the collector thread reads only this.
 */
struct ag_mjob_nic {
	char dev[sizeof(((struct rt_nic *)0)->id.rdma_dev)];
	uint32_t port;
	uint32_t top_k;			/* [Agent] MetricsTopQPs= */
};

struct ag_mjob {
	struct ag_mcol *col;
	bool module;			/* rocetune.ko's family is open */
	bool qp_labels;			/* --metrics-qp-labels */
	uint32_t max_series;		/* --metrics-max-series */
	size_t qp_max;			/* the sum of the NICs' top K */
	size_t n;
	struct ag_mjob_nic v[];
};

/*
 * With --metrics-qp-labels, per NIC whose profile asks for it, the top K
 * QPs of its port by received ECN-CE packets (as "rocetune -o prometheus
 * qp show"), with the labels device and port of the port series, and
 * qpn and comm; at most --metrics-max-series of them.
 */
static void ag_collect_qps(FILE *f, struct rt_nl *nl,
			   const struct ag_mjob *j)
{
	struct ag_qp_list l = { .max = j->qp_max };
	size_t i, start, series, written = 0;
	struct nl_msg *msg;
	int err;

	for (i = 0; i < j->n && l.max; i++) {
		msg = rt_nl_msg_dev(nl, ROCETUNE_CMD_QP_GET, j->v[i].dev,
				    j->v[i].port);
		if (!msg || nla_put_u32(msg, ROCETUNE_A_QP_TOP_K,
					j->v[i].top_k) ||
		    nla_put_u32(msg, ROCETUNE_A_QP_TOP_BY,
				ROCETUNE_A_QP_RX_ECN_CE_PKTS)) {
			nlmsg_free(msg);
			continue;
		}
		start = l.n;
		err = rt_nl_dump(nl, msg, ag_qp_cb, &l);
		if (err) {
			l.n = start;	/* no half answer */
			ag_log(AG_DEBUG, "metrics: no QPs of %s/%u: %s",
			       j->v[i].dev, j->v[i].port, strerror(-err));
		}
	}
	/* QPs in the order the kernel ranks them, as long as they fit */
	for (i = 0; i < l.n; i++) {
		series = rt_prom_qp_series(&l.v[i]);
		if (written + series > j->max_series)
			break;
		written += series;
	}
	rt_prom_write_qps(f, l.v, i);
	ag_metrics_write_qp_limit(f, written, l.n - i, j->max_series);
	free(l.v);
}

/* The job's NICs: those whose profile asks for per-QP series. */
static struct ag_mjob *ag_mjob_new(struct ag *ag)
{
	static bool said;		/* MetricsTopQPs= without the flag */
	const struct rt_profile *p;
	struct ag_nic *an;
	struct ag_mjob *j;
	size_t i;

	j = calloc(1, sizeof(*j) + ag->n * sizeof(j->v[0]));
	if (!j)
		return NULL;
	j->col = &ag->mcol;
	j->module = ag->cmd_open;
	j->qp_labels = ag->o.qp_labels;
	j->max_series = ag->o.max_series;
	for (i = 0; i < ag->n; i++) {
		an = ag->nics[i];
		p = an->prof;
		if (!p || !p->metrics_top_qps)
			continue;
		if (!ag->o.qp_labels) {
			/* no qpn and comm labels unless asked: they name tenants */
			if (!said)
				ag_log(AG_NOTICE, "%s: MetricsTopQPs=%" PRIu32 " gives no per-QP series without --metrics-qp-labels",
				       p->path, p->metrics_top_qps);
			said = true;
			continue;
		}
		j->qp_max += p->metrics_top_qps;
		if (!an->nic.id.rdma_dev[0])
			continue;
		memcpy(j->v[j->n].dev, an->nic.id.rdma_dev,
		       sizeof(j->v[j->n].dev));
		j->v[j->n].port = an->nic.port;
		j->v[j->n].top_k = p->metrics_top_qps;
		j->n++;
	}
	return j;
}

size_t ag_ready_reasons(struct ag *ag, FILE *f)
{
	struct ag_ready_in in = {
		.started = ag->ready,
		.reload_error = ag->reload_error,
		.n = ag->n,
	};
	struct ag_ready_nic *v;
	struct ag_nic *an;
	size_t i, n;

	v = calloc(ag->n ? ag->n : 1, sizeof(*v));
	if (!v) {
		if (f)
			fputs("out of memory\n", f);
		return 1;
	}
	for (i = 0; i < ag->n; i++) {
		an = ag->nics[i];
		v[i].netdev = an->nic.id.netdev;
		v[i].profile = an->prof != NULL;
		v[i].profile_name = an->prof ? an->prof->name : "";
		v[i].applied = an->applied_once;
		v[i].busy = an->apply_busy;
		v[i].last = an->last_result;
		v[i].last_error = an->last_error;
		v[i].drift_left = an->drift == AG_DRIFT_REPORTED ||
				  an->drift == AG_DRIFT_SUPPRESSED;
		v[i].drift_why = an->drift == AG_DRIFT_REPORTED ?
				 "OnDrift=report" :
				 "its re-apply limit was reached";
		v[i].journal_stuck = an->prof &&
			rt_journal_status(&an->nic, NULL, 0) ==
			RT_JOURNAL_STUCK;
		v[i].storm_action = an->st.action_active;
	}
	in.nics = v;
	n = ag_ready_write(f, &in);
	free(v);
	return n;
}

int ag_fill_ready(FILE *f, void *arg)
{
	return ag_ready_reasons(arg, f) ? -1 : 0;
}

void *ag_fill_metrics(FILE *f, void *arg)
{
	struct ag *ag = arg;
	const struct ag_stats **st;
	size_t i;

	st = calloc(ag->n ? ag->n : 1, sizeof(*st));
	if (!st)
		return NULL;
	for (i = 0; i < ag->n; i++) {
		ag->nics[i]->st.suppressed = ag->nics[i]->rl.suppressed;
		ag->nics[i]->st.journal_stuck =
			rt_journal_status(&ag->nics[i]->nic, NULL, 0) ==
			RT_JOURNAL_STUCK;
		st[i] = &ag->nics[i]->st;
	}
	ag->g.ready = !ag_ready_reasons(ag, NULL);
	ag_metrics_write(f, &ag->g, st, ag->n);
	free(st);
	return ag_mjob_new(ag);
}

/*
 * A test hook: ROCETUNE_METRICS_DELAY_MS slows each scrape's collection
 * (the module's port and QP dumps) by that many milliseconds, as a large
 * QP table or a loaded kernel would.  Logged as it begins, so that a
 * test can time an event into a collection.
 */
static void ag_metrics_delay(void)
{
	const char *s = secure_getenv("ROCETUNE_METRICS_DELAY_MS");
	uint32_t ms;
	struct timespec ts;

	if (!s || rt_parse_u32(s, 0, 60000, &ms) || !ms)
		return;
	ag_log(AG_INFO, "metrics: collection held %" PRIu32 " ms (ROCETUNE_METRICS_DELAY_MS, a test hook)",
	       ms);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void ag_mcol_close(struct ag_mcol *col)
{
	if (col->open)
		rt_nl_close(&col->nl);
	col->open = false;
}

void ag_collect_metrics(FILE *f, void *job)
{
	struct ag_mjob *j = job;
	struct ag_mcol *col = j->col;
	struct ag_port_list *l;
	struct nl_msg *msg;
	size_t i;
	int err;

	ag_metrics_delay();
	if (!j->module)
		return;
	if (!col->open) {
		err = rt_nl_open(&col->nl);
		if (err) {
			ag_log(AG_DEBUG, "metrics: rocetune netlink: %s",
			       strerror(-err));
			return;
		}
		col->open = true;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return;
	msg = rt_nl_msg(&col->nl, ROCETUNE_CMD_PORT_GET);
	err = msg ? rt_nl_dump(&col->nl, msg, ag_port_cb, l) : -ENOMEM;
	if (!err)
		rt_prom_write_ports(f, l->v, l->n, false);
	if (l->full)
		ag_log(AG_DEBUG, "metrics: more than %d ports; the others left out",
		       AG_PORTS_MAX);
	for (i = 0; i < l->n; i++)
		rt_port_free(&l->v[i]);
	free(l);
	if (j->qp_labels)
		ag_collect_qps(f, &col->nl, j);
	if (err && err != -ENOMEM) {
		/* the module went, or came back: a new socket next time */
		ag_log(AG_DEBUG, "metrics: the module's ports: %s",
		       strerror(-err));
		ag_mcol_close(col);
	}
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

/* "ready": true, or false and "not_ready": the reasons, as GET /ready. */
static void ag_status_ready(struct rt_print *pr, struct ag *ag)
{
	char *t = NULL, *line, *save = NULL;
	size_t len = 0, n;
	FILE *f;

	f = open_memstream(&t, &len);
	if (!f)
		return;
	n = ag_ready_reasons(ag, f);
	if (fclose(f)) {
		free(t);
		return;
	}
	rt_print_bool(pr, RT_PRINT_ANY, "ready", "  ready: %s\n", !n);
	rt_print_open_array(pr, "not_ready");
	for (line = strtok_r(t, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		rt_print_string(pr, RT_PRINT_ANY, NULL, "    %s\n", line);
	rt_print_close_array(pr);
	free(t);
}

void ag_fill_status(FILE *f, bool json, bool pretty, void *arg)
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
	ag_status_ready(&pr, ag);
	rt_print_open_array(&pr, "nics");
	for (i = 0; i < ag->n; i++)
		ag_status_nic(&pr, ag, ag->nics[i]);
	rt_print_close_array(&pr);
	rt_print_close_object(&pr);
	if (json && !pretty)
		fputc('\n', f);
}
