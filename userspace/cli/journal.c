// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune profile journal: the journals interrupted applies left.
 *
 *	rocetune profile journal show [ dev NETDEV ]
 *	rocetune profile journal discard dev NETDEV
 *
 * show lists each journal of the run directory with its state (pending:
 * the next apply restores it; in-progress; stuck: damaged, of another
 * device, or its restore failed, which blocks applies to the NIC), why,
 * and the values it would restore.  discard removes the journals naming
 * NETDEV (by file, name or ifindex) without touching the NIC, under the
 * NIC's locks: a running apply's journal is never discarded.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocetune.h"
#include "rt_run.h"

static int rt_journal_parse_dev(struct rt_cli *cli, char *dev, size_t len,
				bool required)
{
	const char *v;

	dev[0] = '\0';
	while (rt_arg_peek(cli)) {
		if (!rt_arg_is(cli, "dev")) {
			rt_usage_error("unknown argument \"%s\"; try \"rocetune profile journal help\"",
				       rt_arg_peek(cli));
			return RT_EXIT_USAGE;
		}
		rt_arg_next(cli);
		v = rt_arg_next(cli);
		if (!v) {
			rt_usage_error("\"dev\" needs a network interface name");
			return RT_EXIT_USAGE;
		}
		if (!v[0] || strlen(v) >= len || strpbrk(v, "/: \t")) {
			rt_usage_error("\"%s\" is not a network interface name",
				       v);
			return RT_EXIT_USAGE;
		}
		snprintf(dev, len, "%s", v);
	}
	if (required && !dev[0]) {
		rt_usage_error("\"discard\" needs \"dev NETDEV\": the NIC whose journal to drop");
		return RT_EXIT_USAGE;
	}
	return rt_cli_no_prometheus(cli);
}

static void rt_print_journal(struct rt_print *pr, const struct rt_journal *j,
			     bool with_state)
{
	char name[64], value[256], when[64] = "?", why[1024];
	enum rt_journal_state st;
	struct tm tm;
	time_t t = (time_t)j->time;
	unsigned int i;

	rt_print_open_object(pr, NULL);
	rt_print_string(pr, RT_PRINT_ANY, "netdev", "%s:",
			j->valid ? j->netdev : j->file_netdev);
	rt_print_string(pr, RT_PRINT_ANY, "file", " journal %s", j->path);
	if (with_state) {
		st = rt_journal_state_of(j, why, sizeof(why));
		rt_print_string(pr, RT_PRINT_ANY, "state", ": %s\n",
				rt_journal_state_name(st));
		rt_print_string(pr, RT_PRINT_ANY, "reason", "  %s\n", why);
	} else {
		rt_print_text(pr, "\n");
	}
	rt_print_bool(pr, RT_PRINT_JSON, "valid", NULL, j->valid);
	if (!j->valid) {
		/* "reason" says what is wrong with it */
		rt_print_close_object(pr);
		return;
	}
	if (t && localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%F %T", &tm);
	rt_print_uint(pr, RT_PRINT_ANY, "ifindex", "  ifindex %" PRIu64,
		      (uint64_t)j->ifindex);
	rt_print_string(pr, RT_PRINT_JSON, "driver", NULL, j->driver);
	rt_print_string(pr, RT_PRINT_JSON, "bus_info", NULL, j->bus_info);
	rt_print_string(pr, RT_PRINT_JSON, "rdma_device", NULL, j->rdma_dev);
	if (j->driver[0])
		rt_print_text(pr, " (%s%s%s%s%s)", j->driver,
			      j->rdma_dev[0] ? ", " : "", j->rdma_dev,
			      j->bus_info[0] ? ", " : "", j->bus_info);
	rt_print_uint(pr, RT_PRINT_ANY, "pid", ", written by pid %" PRIu64,
		      (uint64_t)j->pid);
	rt_print_uint(pr, RT_PRINT_JSON, "time", NULL, (uint64_t)j->time);
	rt_print_text(pr, " at %s", when);
	rt_print_string(pr, RT_PRINT_JSON, "profile", NULL, j->profile);
	rt_print_text(pr, ", profile %s\n", j->profile[0] ? j->profile : "-");
	rt_print_uint(pr, RT_PRINT_JSON, "restore_failures", NULL,
		      j->failures);
	rt_print_string(pr, RT_PRINT_JSON, "last_error", NULL, j->last_error);
	if (j->failures)
		rt_print_text(pr, "  restore failed %u time%s: %s\n",
			      j->failures, j->failures == 1 ? "" : "s",
			      j->last_error);
	rt_print_open_array(pr, "settings");
	for (i = 0; i < j->snap.n; i++) {
		const struct rt_setting *s = &j->snap.s[i];

		rt_setting_name(s, name, sizeof(name));
		if (s->absent)
			snprintf(value, sizeof(value), "absent");
		else
			rt_setting_value(s, value, sizeof(value));
		rt_print_open_object(pr, NULL);
		rt_print_string(pr, RT_PRINT_ANY, "setting", "  %s: ", name);
		rt_print_string(pr, RT_PRINT_ANY, "value", "%s\n", value);
		rt_print_close_object(pr);
	}
	rt_print_close_array(pr);
	rt_print_close_object(pr);
}

/* Does journal @j concern @dev (its file, its name, @dev's ifindex)? */
static bool rt_journal_of(const struct rt_journal *j, const char *dev,
			  int ifindex)
{
	return !strcmp(j->file_netdev, dev) ||
	       (j->valid && (!strcmp(j->netdev, dev) ||
			     (ifindex > 0 && j->ifindex == ifindex)));
}

static int rt_journal_show(struct rt_cli *cli)
{
	struct rt_journal *v = NULL;
	char dev[IF_NAMESIZE], msg[512] = "";
	int n, i, ifindex, ret;

	ret = rt_journal_parse_dev(cli, dev, sizeof(dev), false);
	if (ret)
		return ret;
	n = rt_journal_list(&v, msg, sizeof(msg));
	if (n < 0) {
		rt_error("%s", msg);
		return RT_EXIT_ERROR;
	}
	ifindex = dev[0] ? (int)if_nametoindex(dev) : 0;
	rt_print_open_array(&cli->pr, NULL);
	for (i = 0; i < n; i++)
		if (!dev[0] || rt_journal_of(&v[i], dev, ifindex))
			rt_print_journal(&cli->pr, &v[i], true);
	rt_print_close_array(&cli->pr);
	free(v);
	return RT_EXIT_OK;
}

static int rt_journal_discard_cmd(struct rt_cli *cli)
{
	struct rt_journal *v = NULL;
	char dev[IF_NAMESIZE], msg[1024] = "";
	unsigned int n = 0, i;
	int ret;

	ret = rt_journal_parse_dev(cli, dev, sizeof(dev), true);
	if (ret)
		return ret;
	ret = rt_journal_discard(dev, &v, &n, msg, sizeof(msg));
	rt_print_open_array(&cli->pr, NULL);
	for (i = 0; i < n; i++) {
		rt_print_text(&cli->pr, "discarded (nothing was written to the NIC): ");
		rt_print_journal(&cli->pr, &v[i], false);
	}
	rt_print_close_array(&cli->pr);
	free(v);
	if (ret < 0) {
		rt_error("%s", msg);
		return RT_EXIT_ERROR;
	}
	if (!n) {
		rt_error("no journal names %s in %s", dev, rt_run_dir());
		return RT_EXIT_ERROR;
	}
	return RT_EXIT_OK;
}

static int rt_journal_help(struct rt_cli *cli)
{
	(void)cli;
	printf("Usage: rocetune profile journal show [ dev NETDEV ]\n"
	       "       rocetune profile journal discard dev NETDEV\n"
	       "       rocetune profile journal help\n"
	       "Journals: %s/NETDEV.journal (ROCETUNE_RUN_DIR overrides)\n",
	       rt_run_dir());
	return RT_EXIT_OK;
}

static const struct rt_cmd rt_journal_cmds[] = {
	{ "show",	rt_journal_show },
	{ "discard",	rt_journal_discard_cmd },
	{ "help",	rt_journal_help },
	{ NULL,		NULL },
};

int rt_profile_journal(struct rt_cli *cli)
{
	cli->object = "profile journal";
	return rt_cli_dispatch(cli, rt_journal_cmds);
}
