// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the agent's pure parts (cmocka): the re-apply rate
 * limiter, the pause-storm watchdog, the metrics text and the parsing of
 * rtnetlink notifications.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "agent.h"

/* ---- rate limiter ---- */

static void rl_bounded(void **state)
{
	struct ag_ratelimit *rl = calloc(1, sizeof(*rl));
	unsigned int i;

	(void)state;
	assert_non_null(rl);
	ag_rl_init(rl, 3, 10);
	/* Three re-applies within the window are allowed ... */
	assert_true(ag_rl_allow(rl, 1000));
	assert_true(ag_rl_allow(rl, 1100));
	assert_true(ag_rl_allow(rl, 1200));
	assert_int_equal(ag_rl_count(rl, 1200), 3);
	assert_false(rl->suppressed);
	/* ... the fourth is refused and suppresses for good. */
	assert_false(ag_rl_allow(rl, 1300));
	assert_true(rl->suppressed);
	assert_int_equal(rl->suppressed_at_ms, 1300);
	/* Even after the window has passed: never fight. */
	assert_false(ag_rl_allow(rl, 1000000));
	/* A flapping setter every 100 ms: at most 3 writes, whatever the time. */
	ag_rl_init(rl, 3, 10);
	unsigned int allowed = 0;

	for (i = 0; i < 1000; i++)
		allowed += ag_rl_allow(rl, 5000 + i * 100);
	assert_int_equal(allowed, 3);
	free(rl);
}

static void rl_window_slides(void **state)
{
	struct ag_ratelimit *rl = calloc(1, sizeof(*rl));

	(void)state;
	assert_non_null(rl);
	ag_rl_init(rl, 2, 1);
	assert_true(ag_rl_allow(rl, 0));
	assert_true(ag_rl_allow(rl, 500));
	/* At 1000 the first one has left the 1 s window. */
	assert_int_equal(ag_rl_count(rl, 1000), 1);
	assert_true(ag_rl_allow(rl, 1000));
	assert_true(ag_rl_allow(rl, 2600));
	assert_int_equal(ag_rl_count(rl, 2600), 1);
	assert_true(ag_rl_allow(rl, 2700));
	assert_false(ag_rl_allow(rl, 2800));
	/* MaxReapplies=0: never. */
	ag_rl_init(rl, 0, 60);
	assert_false(ag_rl_allow(rl, 0));
	assert_true(rl->suppressed);
	/* Bounded by the slots. */
	ag_rl_init(rl, 5000, 60);
	assert_int_equal(rl->max, AG_RL_SLOTS);
	free(rl);
}

/* ---- watchdog ---- */

static void wd_start_end_restore(void **state)
{
	struct ag_wd wd;

	(void)state;
	ag_wd_init(&wd, 1000);
	assert_int_equal(wd.state, AG_WD_IDLE);
	assert_int_equal(ag_wd_deadline(&wd), 0);
	assert_int_equal(ag_wd_storm_start(&wd, 3, 100), AG_WD_DO_ACT);
	assert_int_equal(wd.state, AG_WD_ACTIVE);
	assert_int_equal(wd.acted, 1 << 3);
	/* The same storm reported again: nothing more to do. */
	assert_int_equal(ag_wd_storm_start(&wd, 3, 150), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_tick(&wd, 100000), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_storm_end(&wd, 3, 2000), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_HOLD);
	assert_int_equal(ag_wd_deadline(&wd), 3000);
	assert_int_equal(ag_wd_tick(&wd, 2999), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_tick(&wd, 3000), AG_WD_DO_RESTORE);
	assert_int_equal(wd.state, AG_WD_IDLE);
	assert_int_equal(wd.acted, 0);
	assert_int_equal(ag_wd_tick(&wd, 5000), AG_WD_DO_NOTHING);
	assert_string_equal(ag_wd_state_name(wd.state), "idle");
}

static void wd_two_prios_and_restart(void **state)
{
	struct ag_wd wd;

	(void)state;
	ag_wd_init(&wd, 500);
	assert_int_equal(ag_wd_storm_start(&wd, 3, 0), AG_WD_DO_ACT);
	/* A second priority: act for it too. */
	assert_int_equal(ag_wd_storm_start(&wd, 4, 10), AG_WD_DO_ACT);
	assert_int_equal(wd.acted, (1 << 3) | (1 << 4));
	/* One ends: the other still storms, the action holds. */
	assert_int_equal(ag_wd_storm_end(&wd, 3, 100), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_ACTIVE);
	assert_int_equal(ag_wd_storm_end(&wd, 4, 200), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_HOLD);
	/* A storm again during the hold: back to active, no new action. */
	assert_int_equal(ag_wd_storm_start(&wd, 4, 300), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_ACTIVE);
	assert_int_equal(ag_wd_deadline(&wd), 0);
	assert_int_equal(ag_wd_tick(&wd, 100000), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_storm_end(&wd, 4, 1000), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_tick(&wd, 1500), AG_WD_DO_RESTORE);
	/* An end without a start (agent started mid-storm): nothing. */
	assert_int_equal(ag_wd_storm_end(&wd, 2, 2000), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_IDLE);
	/* Bad priorities are ignored. */
	assert_int_equal(ag_wd_storm_start(&wd, 8, 0), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_IDLE);
}

static void wd_restore_immediately(void **state)
{
	struct ag_wd wd;

	(void)state;
	ag_wd_init(&wd, 0);
	assert_int_equal(ag_wd_storm_start(&wd, 0, 10), AG_WD_DO_ACT);
	assert_int_equal(ag_wd_storm_end(&wd, 0, 20), AG_WD_DO_RESTORE);
	assert_int_equal(wd.state, AG_WD_IDLE);
}

/* ---- metrics ---- */

static char *metrics_text(const struct ag_global *g,
			  const struct ag_stats *const *nics, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ag_metrics_write(f, g, nics, n);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static unsigned int count(const char *s, const char *sub)
{
	unsigned int n = 0;

	while ((s = strstr(s, sub))) {
		n++;
		s += strlen(sub);
	}
	return n;
}

/* promtool check metrics, when promtool is installed (make deps does). */
static void promtool_clean(const char *text)
{
	char path[] = "/tmp/rt-agent-metrics.XXXXXX", cmd[256];
	FILE *f;
	int fd, rc;

	if (access("/usr/bin/promtool", X_OK)) {
		fprintf(stderr, "# promtool is not installed: lint not run\n");
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd),
		 "promtool check metrics < %s > %s.out 2>&1", path, path);
	rc = system(cmd);
	if (rc) {
		snprintf(cmd, sizeof(cmd), "cat %s.out >&2", path);
		assert_int_equal(system(cmd), 0);
	}
	snprintf(cmd, sizeof(cmd), "%s.out", path);
	unlink(cmd);
	unlink(path);
	assert_int_equal(rc, 0);
}

static void metrics_families(void **state)
{
	struct ag_global g = { .start_time_s = 1700000000.5, .module = true,
			       .reloads_ok = 2, .last_reload_ok = true };
	struct ag_stats *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const struct ag_stats *v[2] = { a, b };
	char *t;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	snprintf(a->netdev, sizeof(a->netdev), "rsim5");
	snprintf(a->rdma_dev, sizeof(a->rdma_dev), "rsim_ib5");
	a->port = 1;
	snprintf(a->profile, sizeof(a->profile), "50-lossless \"x\".conf");
	a->applies[RT_RES_APPLIED] = 2;
	a->applies[RT_RES_UNCHANGED] = 1;
	a->writes = 17;
	a->last_apply_time_s = 1700000001.25;
	ag_stats_drift(a, "pfc");
	ag_stats_drift(a, "pfc");
	ag_stats_drift(a, "dscp 26");
	a->suppressed = true;
	a->suppressions = 4;
	a->storm_starts = 1;
	a->actions[AG_ACT_TIMEOUT] = 1;
	a->last_action_latency_s = 0.0123;
	snprintf(b->netdev, sizeof(b->netdev), "va");
	b->last_action_latency_s = -1;
	ag_hist_add(&g.storm_latency, 0.0123);
	ag_hist_add(&g.storm_latency, 0.3);
	ag_hist_add(&g.storm_latency, 99);

	t = metrics_text(&g, v, 2);
	/* One HELP and TYPE per family. */
	assert_int_equal(count(t, "# TYPE rocetune_agent_applies_total counter\n"), 1);
	assert_int_equal(count(t, "# HELP rocetune_agent_applies_total "), 1);
	assert_non_null(strstr(t, "rocetune_agent_applies_total{netdev=\"rsim5\",result=\"applied\"} 2\n"));
	assert_non_null(strstr(t, "rocetune_agent_applies_total{netdev=\"rsim5\",result=\"unchanged\"} 1\n"));
	/* No sample for a result that never happened. */
	assert_null(strstr(t, "result=\"rolled-back\""));
	/* The info series joins node_exporter's labels; quotes escaped. */
	assert_non_null(strstr(t, "rocetune_agent_profile_info{netdev=\"rsim5\",device=\"rsim_ib5\",port=\"1\",profile=\"50-lossless \\\"x\\\".conf\"} 1\n"));
	assert_null(strstr(t, "rocetune_agent_profile_info{netdev=\"va\""));
	assert_non_null(strstr(t, "rocetune_agent_drift_events_total{netdev=\"rsim5\",setting=\"pfc\"} 2\n"));
	assert_non_null(strstr(t, "rocetune_agent_drift_events_total{netdev=\"rsim5\",setting=\"dscp 26\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_reapply_suppressed{netdev=\"rsim5\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_reapply_suppressed{netdev=\"va\"} 0\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_actions_total{netdev=\"rsim5\",action=\"timeout\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_last_latency_seconds{netdev=\"rsim5\"} 0.012300\n"));
	assert_null(strstr(t, "rocetune_agent_storm_action_last_latency_seconds{netdev=\"va\"}"));
	assert_non_null(strstr(t, "rocetune_agent_last_apply_timestamp_seconds{netdev=\"rsim5\"} 1700000001.250\n"));
	/* The histogram is cumulative and ends in +Inf = count. */
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"0.01\"} 0\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"0.025\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"0.5\"} 2\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"5\"} 2\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"+Inf\"} 3\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_count 3\n"));
	assert_non_null(strstr(t, "rocetune_agent_module_connected 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_profile_reloads_total{result=\"ok\"} 2\n"));
	promtool_clean(t);
	free(t);

	/* No NICs at all: still valid. */
	t = metrics_text(&g, v, 0);
	assert_null(strstr(t, "rocetune_agent_applies_total"));
	assert_non_null(strstr(t, "rocetune_agent_nics 0\n"));
	promtool_clean(t);
	free(t);
	free(a);
	free(b);
}

static void drift_table_bounded(void **state)
{
	struct ag_stats *s = calloc(1, sizeof(*s));
	char name[32];
	unsigned int i;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "dscp %u", i);
		ag_stats_drift(s, name);
	}
	assert_int_equal(s->ndrift, AG_DRIFT_KEYS);
	assert_string_equal(s->drift[AG_DRIFT_KEYS - 2].setting, "dscp 30");
	assert_string_equal(s->drift[AG_DRIFT_KEYS - 1].setting, "other");
	assert_int_equal(s->drift[AG_DRIFT_KEYS - 1].n, 64 - (AG_DRIFT_KEYS - 1));
	ag_stats_drift(s, "dscp 0");
	assert_int_equal(s->drift[0].n, 2);
	free(s);
}

/* ---- rtnetlink ---- */

static void rtnl_messages(void **state)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct ag_rtnl_msg m;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	struct dcbmsg *dcb;

	(void)state;
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 42;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "rsim7");
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len, &m), 0);
	assert_int_equal(m.kind, AG_RTNL_NEWLINK);
	assert_int_equal(m.ifindex, 42);
	assert_string_equal(m.ifname, "rsim7");
	nlh->nlmsg_type = RTM_DELLINK;
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len, &m), 0);
	assert_int_equal(m.kind, AG_RTNL_DELLINK);
	/* Truncated: refused. */
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len - 1, &m), -EINVAL);

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETDCB;
	dcb = mnl_nlmsg_put_extra_header(nlh, sizeof(*dcb));
	dcb->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "rsim9");
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len, &m), 0);
	assert_int_equal(m.kind, AG_RTNL_DCB);
	assert_string_equal(m.ifname, "rsim9");

	nlh->nlmsg_type = RTM_NEWADDR;
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len, &m), 0);
	assert_int_equal(m.kind, AG_RTNL_OTHER);
	/* A header that claims too little. */
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_len = sizeof(*nlh) + 2;
	assert_int_equal(ag_rtnl_parse(nlh, sizeof(buf), &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rl_bounded),
		cmocka_unit_test(rl_window_slides),
		cmocka_unit_test(wd_start_end_restore),
		cmocka_unit_test(wd_two_prios_and_restart),
		cmocka_unit_test(wd_restore_immediately),
		cmocka_unit_test(metrics_families),
		cmocka_unit_test(drift_table_bounded),
		cmocka_unit_test(rtnl_messages),
	};

	ag_log_init(false, AG_ERR);
	return cmocka_run_group_tests_name("rocetuned", tests, NULL, NULL);
}
