// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the agent's own series in the Prometheus text exposition
 * format (the port series come from rt_prom.c).  Names follow what
 * "promtool check metrics" checks: counters end in _total, times are in
 * seconds, one # HELP and one # TYPE per family, families without a
 * sample are left out.  NIC series carry the label "netdev"; the profile
 * info series also "device" and "port", the labels of node_exporter's
 * infiniband collector, so that both join.
 */
#include <inttypes.h>
#include <string.h>

#include "agent.h"
#include "rt_prom.h"

const double ag_hist_bounds[AG_HIST_N] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 5, -1,
};

static const char *const ag_hist_le[AG_HIST_N] = {
	"0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.2",
	"0.5", "1", "5", "+Inf",
};

void ag_hist_add(struct ag_hist *h, double seconds)
{
	unsigned int i;

	if (seconds < 0)
		seconds = 0;
	for (i = 0; i < AG_HIST_N - 1; i++)
		if (seconds <= ag_hist_bounds[i])
			break;
	h->bucket[i]++;
	h->count++;
	h->sum += seconds;
}

void ag_stats_drift(struct ag_stats *s, const char *setting)
{
	unsigned int i;

	for (i = 0; i < s->ndrift; i++)
		if (!strcmp(s->drift[i].setting, setting))
			break;
	if (i == s->ndrift) {
		if (s->ndrift == AG_DRIFT_KEYS) {
			i = AG_DRIFT_KEYS - 1;	/* the last one is "other" */
		} else {
			snprintf(s->drift[i].setting,
				 sizeof(s->drift[i].setting), "%s",
				 i == AG_DRIFT_KEYS - 1 ? "other" : setting);
			s->ndrift++;
		}
	}
	s->drift[i].n++;
}

void ag_stats_tune(struct ag_stats *s, const struct ag_tune_decision *d)
{
	/* Nothing to do is no decision: not counted; nor a stopped rule. */
	if (d->reason == AG_TUNE_R_IDLE || d->reason == AG_TUNE_R_NO_DATA ||
	    d->reason == AG_TUNE_R_STOPPED ||
	    (unsigned int)d->reason >= AG_TUNE_R_NUM)
		return;
	s->tune_decisions[d->dir > 0 ? 2 : d->dir < 0 ? 0 : 1][d->reason]++;
}

const char *ag_act_name(enum ag_act a)
{
	switch (a) {
	case AG_ACT_ALERT:
		return "alert";
	case AG_ACT_TIMEOUT:
		return "timeout";
	case AG_ACT_DISABLE_PFC:
		return "disable-pfc";
	default:
		return "restore";
	}
}

/* A family whose header is written before its first sample. */
struct ag_fam {
	FILE *f;
	const char *name;
	const char *type;
	const char *help;
	bool started;
};

static void ag_fam_sample(struct ag_fam *fam, const char *suffix)
{
	if (!fam->started) {
		fprintf(fam->f, "# HELP %s %s\n# TYPE %s %s\n", fam->name,
			fam->help, fam->name, fam->type);
		fam->started = true;
	}
	fprintf(fam->f, "%s%s", fam->name, suffix ? suffix : "");
}

static void ag_label_nic(FILE *f, const struct ag_stats *s)
{
	fputs("{netdev=", f);
	rt_prom_label_value(f, s->netdev);
}

static void ag_write_u64(struct ag_fam *fam, const struct ag_stats *s,
			 uint64_t v)
{
	ag_fam_sample(fam, NULL);
	ag_label_nic(fam->f, s);
	fprintf(fam->f, "} %" PRIu64 "\n", v);
}

static void ag_write_global(FILE *f, const char *name, const char *type,
			    const char *help, const char *value)
{
	struct ag_fam fam = { f, name, type, help, false };

	ag_fam_sample(&fam, NULL);
	fprintf(f, "%s%s\n", value[0] == '{' ? "" : " ", value);
}

static void ag_write_hist(FILE *f, const char *name, const char *help,
			  const struct ag_hist *h)
{
	uint64_t cum = 0;
	unsigned int i;

	fprintf(f, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (i = 0; i < AG_HIST_N; i++) {
		cum += h->bucket[i];
		fprintf(f, "%s_bucket{le=\"%s\"} %" PRIu64 "\n", name,
			ag_hist_le[i], cum);
	}
	fprintf(f, "%s_sum %.9g\n%s_count %" PRIu64 "\n", name, h->sum, name,
		h->count);
}

/* One per-NIC family of a u64 field. */
#define AG_NIC_U64(f, nics, n, name, type, help, field) do {		\
	struct ag_fam fam_ = { f, name, type, help, false };		\
	size_t i_;							\
									\
	for (i_ = 0; i_ < (n); i_++)					\
		ag_write_u64(&fam_, (nics)[i_], (nics)[i_]->field);	\
} while (0)

/* {netdev="rsim5",parameter="AIRateMbps" -- the caller closes it. */
static void ag_label_tune(FILE *f, const struct ag_stats *s)
{
	ag_label_nic(f, s);
	fputs(",parameter=", f);
	rt_prom_label_value(f, s->tune_param);
}

static void ag_write_tune(FILE *f, const struct ag_stats *const *nics,
			  size_t n)
{
	static const char *const dirs[3] = { "down", "none", "up" };
	struct ag_fam dec = { f, "rocetune_agent_tune_decisions_total",
		"counter",
		"Decisions of a NIC's [Tune] rule that moved its parameter or would have (held by cooldown, limit or blocked), by direction and reason.",
		false };
	struct ag_fam val = { f, "rocetune_agent_tune_value", "gauge",
		"The value of the [Tune] rule's DCQCN parameter in force on a NIC, in the parameter's unit.",
		false };
	struct ag_fam stop = { f, "rocetune_agent_tune_stopped", "gauge",
		"1 when a NIC's [Tune] rule has stopped for this reason (oscillation, or its MaxWritesPerHour= budget spent) until the profiles are reloaded; the value in force stays.",
		false };
	unsigned int d, r;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!nics[i]->tune)
			continue;
		for (r = AG_TUNE_STOP_OSCILLATION; r < AG_TUNE_STOP_NUM; r++) {
			ag_fam_sample(&stop, NULL);
			ag_label_tune(f, nics[i]);
			fprintf(f, ",reason=\"%s\"} %d\n", ag_tune_stop_name(r),
				nics[i]->tune_stopped == r);
		}
	}
	for (i = 0; i < n; i++) {
		if (!nics[i]->tune)
			continue;
		ag_fam_sample(&val, NULL);
		ag_label_tune(f, nics[i]);
		fprintf(f, "} %" PRIu32 "\n", nics[i]->tune_value);
	}
	for (i = 0; i < n; i++) {
		if (!nics[i]->tune)
			continue;
		for (d = 0; d < 3; d++) {
			for (r = 0; r < AG_TUNE_R_NUM; r++) {
				if (!nics[i]->tune_decisions[d][r])
					continue;
				ag_fam_sample(&dec, NULL);
				ag_label_tune(f, nics[i]);
				fprintf(f, ",direction=\"%s\",reason=\"%s\"} %" PRIu64 "\n",
					dirs[d], ag_tune_reason_name(r),
					nics[i]->tune_decisions[d][r]);
			}
		}
	}
}

static void ag_write_nics(FILE *f, const struct ag_stats *const *nics,
			  size_t n)
{
	struct ag_fam info = { f, "rocetune_agent_profile_info", "gauge",
		"The profile in force on a NIC (value 1), with its RDMA device and port.",
		false };
	struct ag_fam applies = { f, "rocetune_agent_applies_total", "counter",
		"Profile applies of a NIC by result (start, hotplug, drift, storm action, restore).",
		false };
	struct ag_fam last = { f, "rocetune_agent_last_apply_timestamp_seconds",
		"gauge", "When a profile was last applied to a NIC (Unix time).",
		false };
	struct ag_fam drift = { f, "rocetune_agent_drift_events_total",
		"counter",
		"Settings found different from the profile, by setting.",
		false };
	struct ag_fam supp = { f, "rocetune_agent_reapply_suppressed", "gauge",
		"1 when the agent stopped re-applying a NIC after MaxReapplies= drift re-applies in ReapplyWindowSec=.",
		false };
	struct ag_fam active = { f, "rocetune_agent_storm_action_active",
		"gauge", "1 while a pause-storm action holds on a NIC.", false };
	struct ag_fam storms = { f, "rocetune_agent_storm_events_total",
		"counter", "Pause-storm events of the module, by event.",
		false };
	struct ag_fam acts = { f, "rocetune_agent_storm_actions_total",
		"counter",
		"Pause-storm actions taken (alert, timeout, disable-pfc) and restores.",
		false };
	struct ag_fam skipped = { f, "rocetune_agent_storm_actions_skipped_total",
		"counter",
		"Pause-storm actions not taken, by reason: the state the action would change could not be read, so nothing was written.",
		false };
	struct ag_fam lat = { f,
		"rocetune_agent_storm_action_last_latency_seconds", "gauge",
		"Time from the last STORM_START (kernel timestamp) to its action applied and read back.",
		false };
	size_t i;
	unsigned int j;

	for (i = 0; i < n; i++) {
		if (!nics[i]->profile[0])
			continue;
		ag_fam_sample(&info, NULL);
		ag_label_nic(f, nics[i]);
		fputs(",device=", f);
		rt_prom_label_value(f, nics[i]->rdma_dev);
		fprintf(f, ",port=\"%" PRIu32 "\",profile=", nics[i]->port);
		rt_prom_label_value(f, nics[i]->profile);
		fputs("} 1\n", f);
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < AG_NRES; j++) {
			if (!nics[i]->applies[j])
				continue;
			ag_fam_sample(&applies, NULL);
			ag_label_nic(f, nics[i]);
			fprintf(f, ",result=\"%s\"} %" PRIu64 "\n",
				rt_result_name(j), nics[i]->applies[j]);
		}
	}
	AG_NIC_U64(f, nics, n, "rocetune_agent_writes_total", "counter",
		   "Writes to a NIC's settings (including restoring writes).",
		   writes);
	AG_NIC_U64(f, nics, n, "rocetune_agent_apply_failures_total",
		   "counter",
		   "Applies that did not leave the NIC as its profile says.",
		   failures);
	for (i = 0; i < n; i++) {
		if (!nics[i]->last_apply_time_s)
			continue;
		ag_fam_sample(&last, NULL);
		ag_label_nic(f, nics[i]);
		fprintf(f, "} %.3f\n", nics[i]->last_apply_time_s);
	}
	AG_NIC_U64(f, nics, n, "rocetune_agent_drift_checks_total", "counter",
		   "Comparisons of a NIC with its profile (notifications and polls).",
		   drift_checks);
	AG_NIC_U64(f, nics, n, "rocetune_agent_drift_checks_skipped_total",
		   "counter",
		   "Comparisons skipped because another process (rocetune profile apply) held the NIC's lock; they run when it is free.",
		   drift_checks_skipped);
	AG_NIC_U64(f, nics, n, "rocetune_agent_lock_busy_total", "counter",
		   "Applies and comparisons that found the NIC's lock held by another process and were tried again without waiting.",
		   lock_busy);
	for (i = 0; i < n; i++) {
		for (j = 0; j < nics[i]->ndrift; j++) {
			ag_fam_sample(&drift, NULL);
			ag_label_nic(f, nics[i]);
			fputs(",setting=", f);
			rt_prom_label_value(f, nics[i]->drift[j].setting);
			fprintf(f, "} %" PRIu64 "\n", nics[i]->drift[j].n);
		}
	}
	AG_NIC_U64(f, nics, n, "rocetune_agent_drift_reapplies_total",
		   "counter", "Profile re-applies because of drift.", reapplies);
	AG_NIC_U64(f, nics, n, "rocetune_agent_reapply_suppressions_total",
		   "counter",
		   "Drifts left alone because the re-apply limit was reached.",
		   suppressions);
	for (i = 0; i < n; i++) {
		ag_fam_sample(&supp, NULL);
		ag_label_nic(f, nics[i]);
		fprintf(f, "} %d\n", nics[i]->suppressed);
	}
	AG_NIC_U64(f, nics, n, "rocetune_agent_journal_stuck", "gauge",
		   "1 when a journal blocks applies to a NIC (damaged, of another device, or its restore failed): see rocetune profile journal show.",
		   journal_stuck);
	for (i = 0; i < n; i++) {
		if (!nics[i]->storm_starts && !nics[i]->storm_ends)
			continue;
		ag_fam_sample(&storms, NULL);
		ag_label_nic(f, nics[i]);
		fprintf(f, ",event=\"start\"} %" PRIu64 "\n",
			nics[i]->storm_starts);
		ag_fam_sample(&storms, NULL);
		ag_label_nic(f, nics[i]);
		fprintf(f, ",event=\"end\"} %" PRIu64 "\n", nics[i]->storm_ends);
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < AG_ACT_NUM; j++) {
			if (!nics[i]->actions[j])
				continue;
			ag_fam_sample(&acts, NULL);
			ag_label_nic(f, nics[i]);
			fprintf(f, ",action=\"%s\"} %" PRIu64 "\n",
				ag_act_name(j), nics[i]->actions[j]);
		}
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < AG_SKIP_NUM; j++) {
			if (!nics[i]->skipped[j])
				continue;
			ag_fam_sample(&skipped, NULL);
			ag_label_nic(f, nics[i]);
			fprintf(f, ",reason=\"%s\"} %" PRIu64 "\n",
				ag_skip_name(j), nics[i]->skipped[j]);
		}
	}
	AG_NIC_U64(f, nics, n, "rocetune_agent_storm_resyncs_total", "counter",
		   "Times the storm state the module reports (PORT_GET) differed from the agent's after lost events or at start, and was taken.",
		   storm_resyncs);
	for (i = 0; i < n; i++) {
		ag_fam_sample(&active, NULL);
		ag_label_nic(f, nics[i]);
		fprintf(f, "} %d\n", nics[i]->action_active);
	}
	for (i = 0; i < n; i++) {
		if (nics[i]->last_action_latency_s < 0)
			continue;
		ag_fam_sample(&lat, NULL);
		ag_label_nic(f, nics[i]);
		fprintf(f, "} %.6f\n", nics[i]->last_action_latency_s);
	}
	ag_write_tune(f, nics, n);
}

void ag_metrics_write(FILE *f, const struct ag_global *g,
		      const struct ag_stats *const *nics, size_t n)
{
	struct ag_fam reloads = { f, "rocetune_agent_profile_reloads_total",
		"counter", "Profile reloads (SIGHUP) by result.", false };
	char buf[64];

	ag_write_global(f, "rocetune_agent_build_info", "gauge",
			"The agent's version (value 1).",
			"{version=\"" ROCETUNE_VERSION "\"} 1");
	snprintf(buf, sizeof(buf), "%.3f", g->start_time_s);
	ag_write_global(f, "rocetune_agent_start_time_seconds", "gauge",
			"When the agent started (Unix time).", buf);
	ag_write_global(f, "rocetune_agent_module_connected", "gauge",
			"1 when the agent receives rocetune.ko's events (hotplug, pause storms).",
			g->module ? "1" : "0");
	ag_write_global(f, "rocetune_agent_ready", "gauge",
			"1 when every NIC a profile matches has it in force (GET /ready says why not).",
			g->ready ? "1" : "0");
	snprintf(buf, sizeof(buf), "%zu", n);
	ag_write_global(f, "rocetune_agent_nics", "gauge",
			"RoCE NICs the agent sees.", buf);
	ag_fam_sample(&reloads, NULL);
	fprintf(f, "{result=\"ok\"} %" PRIu64 "\n", g->reloads_ok);
	ag_fam_sample(&reloads, NULL);
	fprintf(f, "{result=\"error\"} %" PRIu64 "\n", g->reloads_failed);
	ag_write_global(f, "rocetune_agent_last_reload_success", "gauge",
			"0 when the last profile reload failed (the previous profiles stay in force).",
			g->last_reload_ok ? "1" : "0");
	snprintf(buf, sizeof(buf), "%" PRIu64, g->events);
	ag_write_global(f, "rocetune_agent_module_events_total", "counter",
			"Events received from rocetune.ko.", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, g->events_lost);
	ag_write_global(f, "rocetune_agent_event_overruns_total", "counter",
			"Times events of rocetune.ko or rtnetlink notifications were lost (socket overrun; every NIC and its storm state are checked again).",
			buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, g->rescans);
	ag_write_global(f, "rocetune_agent_rescans_total", "counter",
			"Scans of the host for RoCE NICs.", buf);
	ag_write_nics(f, nics, n);
	ag_write_hist(f, "rocetune_agent_storm_action_latency_seconds",
		      "Time from the module's STORM_START (kernel timestamp) to the storm action applied and read back.",
		      &g->storm_latency);
	ag_write_hist(f, "rocetune_agent_hotplug_apply_latency_seconds",
		      "Time from a NIC's appearance (module event, or the link notification) to its profile applied.",
		      &g->hotplug_latency);
}

void ag_metrics_write_qp_limit(FILE *f, size_t series, size_t dropped,
			       uint32_t max)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%zu", series);
	ag_write_global(f, "rocetune_agent_qp_series", "gauge",
			"Per-QP series in this scrape (--metrics-qp-labels).",
			buf);
	snprintf(buf, sizeof(buf), "%" PRIu32, max);
	ag_write_global(f, "rocetune_agent_qp_series_limit", "gauge",
			"At most this many per-QP series a scrape (--metrics-max-series).",
			buf);
	snprintf(buf, sizeof(buf), "%zu", dropped);
	ag_write_global(f, "rocetune_agent_qp_series_dropped_qps", "gauge",
			"QPs of the profiles' MetricsTopQPs= left out of this scrape by the limit.",
			buf);
}
