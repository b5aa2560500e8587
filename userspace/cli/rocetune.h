/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune command-line tool: what main and the objects share.
 */
#ifndef ROCETUNE_CLI_H
#define ROCETUNE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_model.h"
#include "rt_nl.h"
#include "rt_print.h"

/*
 * Runs of a dump that the kernel marked inconsistent (NLM_F_DUMP_INTR:
 * devices or QPs came or went meanwhile) before the command gives up.
 */
#define RT_DUMP_TRIES	5

/* Exit codes, documented in rocetune(8). */
enum {
	RT_EXIT_OK = 0,
	RT_EXIT_ERROR = 1,	/* the request failed */
	RT_EXIT_USAGE = 2,	/* the command line is wrong */
};

enum rt_output {
	RT_OUTPUT_DEFAULT,
	RT_OUTPUT_PROMETHEUS,
};

struct rt_cli {
	bool json;
	bool json_opt;			/* -j was given */
	bool pretty;
	bool stats;
	enum rt_output output;
	int argc;			/* words left */
	char **argv;
	const char *object;		/* for messages: "dev", "port", ... */
	char subject_dev[RT_NAME_LEN];	/* the device the command names */
	uint32_t subject_port;		/* ... and its port, 0 if none */
	struct rt_print pr;
	struct rt_nl nl;
};

struct rt_cmd {
	const char *name;
	int (*fn)(struct rt_cli *cli);
};

/*
 * Command-line cursor; keywords match whole words only (objects and
 * commands, through rt_cli_dispatch(), also as a unique prefix).
 */
const char *rt_arg_peek(const struct rt_cli *cli);
const char *rt_arg_next(struct rt_cli *cli);
bool rt_arg_is(const struct rt_cli *cli, const char *keyword);

/*
 * rt_arg_u32() / rt_arg_u64() - the value after keyword @kw, in range; a
 * missing, malformed or out-of-range value is a usage error that names
 * @kw and the range.
 */
int rt_arg_u32(struct rt_cli *cli, const char *kw, uint32_t min, uint32_t max,
	       uint32_t *out);
int rt_arg_u64(struct rt_cli *cli, const char *kw, uint64_t min, uint64_t max,
	       uint64_t *out);
/*
 * rt_arg_dev() - DEV or DEV/PORT, the value of keyword @kw (NULL: a
 * positional word); PORT is refused unless @port_ok.  Records the device
 * as the command's subject (rt_cli_subject()).
 */
int rt_arg_dev(struct rt_cli *cli, const char *kw, char *dev, uint32_t *port,
	       bool port_ok);
/* rt_arg_dev_port() - rt_arg_dev() of a positional word. */
int rt_arg_dev_port(struct rt_cli *cli, char *dev, uint32_t *port,
		    bool port_ok);
/*
 * rt_cli_subject() - the device (and port, 0 if none) the command is
 * about, so that rt_cli_nl_error() can say which one does not exist.
 */
void rt_cli_subject(struct rt_cli *cli, const char *dev, uint32_t port);
/* rt_arg_end() - usage error unless every word was used. */
int rt_arg_end(struct rt_cli *cli);

/*
 * rt_cli_dispatch() - run the entry of @cmds named by the next word, or
 * by a prefix of it that no other entry shares ("dev sh"); an ambiguous
 * prefix is a usage error listing the candidates.  With no word left the
 * first entry runs.  cli->object is NULL at the top level.
 */
int rt_cli_dispatch(struct rt_cli *cli, const struct rt_cmd *cmds);

/*
 * rt_cli_options() - parse the global options of argv[1..] with
 * getopt_long() (bundled short options, unique prefixes of long ones);
 * leaves the cursor on the object.  Returns -1 to go on, else an exit
 * code.
 */
int rt_cli_options(struct rt_cli *cli, int argc, char **argv);

/* rt_cli_no_prometheus() - usage error when -o prometheus was given. */
int rt_cli_no_prometheus(const struct rt_cli *cli);

/*
 * Netlink: open once per run; report a failure of @what ("port show") to
 * the user, naming the device or port that does not exist, the keyword
 * whose value the kernel refused and the range it accepts.
 */
int rt_cli_nl_open(struct rt_cli *cli);
int rt_cli_nl_error(struct rt_cli *cli, int err, const char *what);

void rt_usage(FILE *f);
void rt_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The objects. */
int rt_cmd_dev(struct rt_cli *cli);
int rt_cmd_port(struct rt_cli *cli);
int rt_cmd_config(struct rt_cli *cli);
int rt_cmd_monitor(struct rt_cli *cli);
int rt_cmd_qp(struct rt_cli *cli);		/* cli/qp.c (per-QP issue) */
int rt_cmd_profile(struct rt_cli *cli);		/* cli/profile.c */
int rt_profile_journal(struct rt_cli *cli);	/* cli/journal.c */
int rt_cmd_agent(struct rt_cli *cli);		/* cli/agent.c */

/* Parsed requests, exposed for the unit tests. */
struct rt_dev_req {
	char dev[RT_NAME_LEN];		/* "" for all */
};

struct rt_port_req {
	char dev[RT_NAME_LEN];		/* "" for all */
	uint32_t port;			/* 0 for all */
};

struct rt_config_req {
	char dev[RT_NAME_LEN];		/* "" for the global configuration */
	uint64_t attrs;			/* RT_BIT(ROCETUNE_A_*) given */
	uint32_t interval_ms;
	uint32_t storm_ms;
	uint64_t cnp_rate;
	uint64_t ecn_rate;
};

int rt_dev_show_parse(struct rt_cli *cli, struct rt_dev_req *req);
int rt_port_show_parse(struct rt_cli *cli, struct rt_port_req *req);
int rt_config_show_parse(struct rt_cli *cli, struct rt_config_req *req);
int rt_config_set_parse(struct rt_cli *cli, struct rt_config_req *req);

/* Printers, exposed for the unit tests. */
void rt_dev_print(struct rt_print *pr, const struct rt_dev *dev);
void rt_port_print(struct rt_print *pr, const struct rt_port *port, bool stats);
void rt_config_print(struct rt_print *pr, const struct rt_config *cfg);
void rt_event_print(struct rt_print *pr, const struct rt_event *ev);

#endif /* ROCETUNE_CLI_H */
