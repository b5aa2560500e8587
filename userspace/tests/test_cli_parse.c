// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the CLI's command-line handling: global options, object
 * and command dispatch, DEV/PORT, numbers and the errors (exit code 2).
 * Nothing here reaches the kernel: every case fails or stops before a
 * netlink socket is opened.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rocetune.h"

#define ARGV(...) ((char *[]){ "rocetune", __VA_ARGS__, NULL })
#define ARGC(argv) ((int)(sizeof(argv) / sizeof(char *)) - 1)

/* Options of argv, then the cursor on what follows. */
static int options(struct rt_cli *cli, int argc, char **argv)
{
	return rt_cli_options(cli, argc, argv);
}

#define OPTIONS(cli, ...) options(cli, ARGC(ARGV(__VA_ARGS__)), ARGV(__VA_ARGS__))

/* Words as they come after "rocetune OBJECT COMMAND". */
static struct rt_cli *words(struct rt_cli *cli, int argc, char **argv,
			    const char *object)
{
	memset(cli, 0, sizeof(*cli));
	cli->argc = argc;
	cli->argv = argv;
	cli->object = object;
	return cli;
}

#define WORDS(cli, obj, ...) \
	words(cli, ARGC(ARGV(__VA_ARGS__)) - 1, ARGV(__VA_ARGS__) + 1, obj)

/* What a call writes to file descriptor @fd, captured in a temporary file. */
struct capture {
	int fd;
	int saved;
	FILE *tmp;
	char buf[512];
};

static void capture_start(struct capture *c, int fd)
{
	fflush(stdout);
	fflush(stderr);
	c->fd = fd;
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(fd);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), fd) >= 0);
}

static const char *capture_end(struct capture *c)
{
	size_t n;

	fflush(stdout);
	fflush(stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	rewind(c->tmp);
	n = fread(c->buf, 1, sizeof(c->buf) - 1, c->tmp);
	c->buf[n] = '\0';
	fclose(c->tmp);
	return c->buf;
}

static void global_options(void **state)
{
	struct capture cap;
	struct rt_cli cli;
	int ret;

	(void)state;
	assert_int_equal(OPTIONS(&cli, "-j", "-p", "-s", "dev", "show"), -1);
	assert_true(cli.json && cli.pretty && cli.stats);
	assert_string_equal(rt_arg_peek(&cli), "dev");
	assert_int_equal(OPTIONS(&cli, "--json", "--stats", "port"), -1);
	assert_true(cli.json && cli.stats && !cli.pretty);
	assert_int_equal(OPTIONS(&cli, "-o", "prometheus", "port"), -1);
	assert_int_equal(cli.output, RT_OUTPUT_PROMETHEUS);
	assert_int_equal(OPTIONS(&cli, "-o", "json", "dev"), -1);
	assert_true(cli.json);
	capture_start(&cap, STDOUT_FILENO);
	ret = OPTIONS(&cli, "-V");
	assert_string_equal(capture_end(&cap), "rocetune " ROCETUNE_VERSION "\n");
	assert_int_equal(ret, RT_EXIT_OK);
	capture_start(&cap, STDOUT_FILENO);
	ret = OPTIONS(&cli, "-h");
	assert_non_null(strstr(capture_end(&cap), "Usage: rocetune"));
	assert_int_equal(ret, RT_EXIT_OK);
}

/* getopt_long: bundled short options, values glued or not, long prefixes. */
static void global_options_bundled(void **state)
{
	struct rt_cli cli;

	(void)state;
	assert_int_equal(OPTIONS(&cli, "-js", "dev"), -1);
	assert_true(cli.json && cli.stats && !cli.pretty);
	assert_string_equal(rt_arg_peek(&cli), "dev");
	assert_int_equal(OPTIONS(&cli, "-jp", "port", "show"), -1);
	assert_true(cli.json && cli.pretty);
	assert_int_equal(cli.argc, 2);
	assert_int_equal(OPTIONS(&cli, "-soprometheus", "port"), -1);
	assert_true(cli.stats && cli.output == RT_OUTPUT_PROMETHEUS);
	assert_int_equal(OPTIONS(&cli, "-s", "-o", "prometheus", "qp"), -1);
	assert_true(cli.stats && cli.output == RT_OUTPUT_PROMETHEUS);
	assert_int_equal(OPTIONS(&cli, "--output=json", "--pre", "dev"), -1);
	assert_true(cli.json && cli.pretty);
	assert_int_equal(OPTIONS(&cli, "--js", "dev"), -1);
	assert_true(cli.json);
	/* -p indents JSON: refused without it, not ignored. */
	assert_int_equal(OPTIONS(&cli, "-p", "dev"), RT_EXIT_USAGE);
	assert_int_equal(OPTIONS(&cli, "-jp", "-o", "text", "dev"), RT_EXIT_USAGE);
	assert_int_equal(OPTIONS(&cli, "-p", "-o", "prometheus", "qp"),
			 RT_EXIT_USAGE);
	/* Options end at the object; "--" ends them too. */
	assert_int_equal(OPTIONS(&cli, "dev", "-j"), -1);
	assert_false(cli.json);
	assert_int_equal(cli.argc, 2);
	assert_int_equal(OPTIONS(&cli, "-j", "--", "dev"), -1);
	assert_string_equal(rt_arg_peek(&cli), "dev");
}

static void global_options_errors(void **state)
{
	struct capture cap;
	struct rt_cli cli;

	(void)state;
	assert_int_equal(OPTIONS(&cli, "-x"), RT_EXIT_USAGE);
	assert_int_equal(OPTIONS(&cli, "-jx", "dev"), RT_EXIT_USAGE);
	assert_int_equal(OPTIONS(&cli, "-o"), RT_EXIT_USAGE);
	assert_int_equal(OPTIONS(&cli, "-o", "yaml", "dev"), RT_EXIT_USAGE);
	assert_int_equal(OPTIONS(&cli, "-j", "-o", "prometheus", "port"),
			 RT_EXIT_USAGE);
	assert_int_equal(OPTIONS(&cli, "-jo", "prometheus", "port"),
			 RT_EXIT_USAGE);
	assert_int_equal(OPTIONS(&cli, "--json=1", "dev"), RT_EXIT_USAGE);
	assert_int_equal(OPTIONS(&cli, "--nope", "dev"), RT_EXIT_USAGE);
	capture_start(&cap, STDERR_FILENO);
	OPTIONS(&cli, "-jx", "dev");
	assert_string_equal(capture_end(&cap),
			    "rocetune: unknown option \"-x\"; try \"rocetune -h\"\n");
	capture_start(&cap, STDERR_FILENO);
	OPTIONS(&cli, "-o");
	assert_string_equal(capture_end(&cap),
			    "rocetune: \"-o\" needs a value: text, json or prometheus\n");
	capture_start(&cap, STDERR_FILENO);
	OPTIONS(&cli, "--output");
	assert_string_equal(capture_end(&cap),
			    "rocetune: \"--output\" needs a value: text, json or prometheus\n");
	capture_start(&cap, STDERR_FILENO);
	OPTIONS(&cli, "-o", "yaml");
	assert_string_equal(capture_end(&cap),
			    "rocetune: invalid value \"yaml\" for \"-o\": expected text, json or prometheus\n");
}

static void dispatch_unknown(void **state)
{
	struct rt_cli cli;

	(void)state;
	/* Unknown commands never reach the kernel. */
	assert_int_equal(rt_cmd_dev(WORDS(&cli, NULL, "foo")), RT_EXIT_USAGE);
	assert_int_equal(rt_cmd_port(WORDS(&cli, NULL, "showw")), RT_EXIT_USAGE);
	assert_int_equal(rt_cmd_config(WORDS(&cli, NULL, "get")), RT_EXIT_USAGE);
	assert_int_equal(rt_cmd_monitor(WORDS(&cli, NULL, "all")), RT_EXIT_USAGE);
	assert_int_equal(rt_cmd_monitor(WORDS(&cli, NULL, "events", "x")),
			 RT_EXIT_USAGE);
	assert_int_equal(rt_cmd_dev(WORDS(&cli, NULL, "")), RT_EXIT_USAGE);
	/* Usage errors come before the socket, also for good commands. */
	assert_int_equal(rt_cmd_dev(WORDS(&cli, NULL, "show", "a", "b")),
			 RT_EXIT_USAGE);
	assert_int_equal(rt_cmd_config(WORDS(&cli, NULL, "set")), RT_EXIT_USAGE);
}

static int picked;

static int pick_a(struct rt_cli *cli)
{
	(void)cli;
	picked = 'a';
	return RT_EXIT_OK;
}

static int pick_b(struct rt_cli *cli)
{
	(void)cli;
	picked = 'b';
	return RT_EXIT_OK;
}

/* Abbreviations as iproute2: a unique prefix; ambiguous ones are named. */
static void dispatch_prefix(void **state)
{
	static const struct rt_cmd objs[] = {
		{ "help", pick_a }, { "port", pick_a }, { "profile", pick_b },
		{ "qp", pick_b }, { NULL, NULL },
	};
	struct capture cap;
	struct rt_cli cli;
	int ret;

	(void)state;
	picked = 0;
	assert_int_equal(rt_cli_dispatch(WORDS(&cli, NULL, "pr"), objs), RT_EXIT_OK);
	assert_int_equal(picked, 'b');
	assert_int_equal(rt_cli_dispatch(WORDS(&cli, NULL, "po"), objs), RT_EXIT_OK);
	assert_int_equal(picked, 'a');
	assert_int_equal(rt_cli_dispatch(WORDS(&cli, NULL, "q"), objs), RT_EXIT_OK);
	assert_int_equal(picked, 'b');
	picked = 0;
	capture_start(&cap, STDERR_FILENO);
	ret = rt_cli_dispatch(WORDS(&cli, NULL, "p"), objs);
	assert_string_equal(capture_end(&cap),
			    "rocetune: ambiguous object \"p\": port, profile\n");
	assert_int_equal(ret, RT_EXIT_USAGE);
	assert_int_equal(picked, 0);
	assert_int_equal(rt_cli_dispatch(WORDS(&cli, NULL, "ports"), objs),
			 RT_EXIT_USAGE);
	/* Commands: "dev sh" is "dev show" (then its own argument check). */
	assert_int_equal(rt_cmd_dev(WORDS(&cli, NULL, "sh", "a", "b")),
			 RT_EXIT_USAGE);
	capture_start(&cap, STDOUT_FILENO);
	ret = rt_cmd_dev(WORDS(&cli, NULL, "h"));
	assert_non_null(strstr(capture_end(&cap), "Usage: rocetune dev"));
	assert_int_equal(ret, RT_EXIT_OK);
	capture_start(&cap, STDERR_FILENO);
	ret = rt_cmd_qp(WORDS(&cli, NULL, "s"));
	assert_string_equal(capture_end(&cap),
			    "rocetune: ambiguous command \"s\" for object \"qp\": show, stats, set\n");
	assert_int_equal(ret, RT_EXIT_USAGE);
	capture_start(&cap, STDERR_FILENO);
	ret = rt_cmd_qp(WORDS(&cli, NULL, "st", "dev"));
	assert_string_equal(capture_end(&cap),
			    "rocetune: \"dev\" needs a value; try \"rocetune qp help\"\n");
	assert_int_equal(ret, RT_EXIT_USAGE);
}

static void help_everywhere(void **state)
{
	int (*objs[])(struct rt_cli *cli) = {
		rt_cmd_dev, rt_cmd_port, rt_cmd_config, rt_cmd_monitor,
	};
	struct capture cap;
	struct rt_cli cli;
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		capture_start(&cap, STDOUT_FILENO);
		ret = objs[i](WORDS(&cli, NULL, "help"));
		assert_non_null(strstr(capture_end(&cap), "Usage: rocetune"));
		assert_int_equal(ret, RT_EXIT_OK);
	}
}

/* The messages themselves: what was wrong, and where to look. */
static void error_messages(void **state)
{
	struct rt_config_req req;
	struct capture cap;
	struct rt_cli cli;
	int ret;

	(void)state;
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(rt_cmd_dev(WORDS(&cli, NULL, "foo")), RT_EXIT_USAGE);
	assert_string_equal(capture_end(&cap),
			    "rocetune: unknown command \"foo\" for object \"dev\"; "
			    "try \"rocetune dev help\"\n");
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(rt_config_set_parse(WORDS(&cli, "config", "interval-ms", "5x"),
					     &req), RT_EXIT_USAGE);
	assert_string_equal(capture_end(&cap),
			    "rocetune: invalid value \"5x\" for \"interval-ms\": not a number "
			    "(milliseconds; rocetune.ko checks the range)\n");
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(rt_config_set_parse(WORDS(&cli, "config", "storm-ms",
						   "4294967296"), &req),
			 RT_EXIT_USAGE);
	assert_string_equal(capture_end(&cap),
			    "rocetune: invalid value \"4294967296\" for \"storm-ms\": out of range "
			    "(milliseconds; rocetune.ko checks the range)\n");
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(rt_config_set_parse(WORDS(&cli, "config", "cnp-rate"), &req),
			 RT_EXIT_USAGE);
	assert_string_equal(capture_end(&cap),
			    "rocetune: \"cnp-rate\" needs a value; try \"rocetune config help\"\n");
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(rt_config_show_parse(WORDS(&cli, "config", "dev"), &req),
			 RT_EXIT_USAGE);
	assert_string_equal(capture_end(&cap),
			    "rocetune: \"dev\" needs a value; try \"rocetune config help\"\n");
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(rt_config_show_parse(WORDS(&cli, "config", "dev", "rxe0/1"),
					      &req), RT_EXIT_USAGE);
	assert_string_equal(capture_end(&cap),
			    "rocetune: invalid value \"rxe0/1\" for \"dev\": expected DEV\n");
	capture_start(&cap, STDERR_FILENO);
	ret = rt_cmd_qp(WORDS(&cli, NULL, "show", "qpn", "16777216"));
	assert_string_equal(capture_end(&cap),
			    "rocetune: invalid value \"16777216\" for \"qpn\": out of range "
			    "(expected 0..16777215)\n");
	assert_int_equal(ret, RT_EXIT_USAGE);
	capture_start(&cap, STDERR_FILENO);
	ret = rt_cmd_qp(WORDS(&cli, NULL, "show", "top", "5", "by"));
	assert_non_null(strstr(capture_end(&cap), "\"by\" needs a value"));
	assert_int_equal(ret, RT_EXIT_USAGE);
	capture_start(&cap, STDERR_FILENO);
	ret = rt_cmd_qp(WORDS(&cli, NULL, "show", "top", "5", "by", "rx-ecn"));
	assert_non_null(strstr(capture_end(&cap),
			       "invalid value \"rx-ecn\" for \"by\": not a QP counter"));
	assert_int_equal(ret, RT_EXIT_USAGE);
	capture_start(&cap, STDERR_FILENO);
	ret = rt_cmd_qp(WORDS(&cli, NULL, "set", "dev", "rxe0", "accounting"));
	assert_string_equal(capture_end(&cap),
			    "rocetune: \"accounting\" needs a value: on or off\n");
	assert_int_equal(ret, RT_EXIT_USAGE);
	capture_start(&cap, STDERR_FILENO);
	ret = rt_cmd_port(WORDS(&cli, NULL, "show", "rxe0/0"));
	assert_string_equal(capture_end(&cap),
			    "rocetune: invalid device \"rxe0/0\": expected DEV or DEV/PORT "
			    "(PORT 1..255)\n");
	assert_int_equal(ret, RT_EXIT_USAGE);
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(OPTIONS(&cli, "-json"), RT_EXIT_USAGE);
	assert_string_equal(capture_end(&cap),
			    "rocetune: unknown option \"-json\"; did you mean \"--json\"?\n");
}

/* A kernel refusal names the device, port or keyword it is about. */
static void nl_error_messages(void **state)
{
	struct capture cap;
	struct rt_cli cli;
	int ret;

	(void)state;
	memset(&cli, 0, sizeof(cli));
	rt_cli_subject(&cli, "rt_nodev", 0);
	strcpy(cli.nl.ext_msg, "no RDMA device by this name or index");
	capture_start(&cap, STDERR_FILENO);
	ret = rt_cli_nl_error(&cli, -ENODEV, "qp show");
	assert_string_equal(capture_end(&cap),
			    "rocetune: qp show: \"rt_nodev\" is not an RDMA device\n");
	assert_int_equal(ret, RT_EXIT_ERROR);
	/* The port, where the kernel points at it. */
	rt_cli_subject(&cli, "rt_nodev", 9);
	cli.nl.ext_bad_type = ROCETUNE_A_PORT_INDEX;
	capture_start(&cap, STDERR_FILENO);
	rt_cli_nl_error(&cli, -ENODEV, "port show");
	assert_string_equal(capture_end(&cap),
			    "rocetune: port show: RDMA device \"rt_nodev\" has no port 9\n");
	/* A value out of the kernel's range: its keyword and the range. */
	memset(&cli, 0, sizeof(cli));
	strcpy(cli.nl.ext_msg, "integer out of range");
	cli.nl.ext_bad_type = ROCETUNE_A_INTERVAL_MS;
	cli.nl.ext_has_range = true;
	cli.nl.ext_min = 10;
	cli.nl.ext_max = 10000;
	capture_start(&cap, STDERR_FILENO);
	rt_cli_nl_error(&cli, -ERANGE, "config set");
	assert_string_equal(capture_end(&cap),
			    "rocetune: config set: \"interval-ms\": Numerical result out of range: "
			    "integer out of range (valid range 10..10000)\n");
	/* A missing attribute, by its keyword. */
	memset(&cli, 0, sizeof(cli));
	cli.nl.ext_miss_type = ROCETUNE_A_QPN;
	capture_start(&cap, STDERR_FILENO);
	rt_cli_nl_error(&cli, -EINVAL, "qp show");
	assert_string_equal(capture_end(&cap),
			    "rocetune: qp show: Invalid argument (\"qpn\" is missing)\n");
}

static void prometheus_only_for_port(void **state)
{
	struct rt_cli cli;

	(void)state;
	WORDS(&cli, NULL, "show");
	cli.output = RT_OUTPUT_PROMETHEUS;
	assert_int_equal(rt_cmd_dev(&cli), RT_EXIT_USAGE);
	WORDS(&cli, NULL, "show");
	cli.output = RT_OUTPUT_PROMETHEUS;
	assert_int_equal(rt_cmd_config(&cli), RT_EXIT_USAGE);
}

static void dev_show(void **state)
{
	struct rt_dev_req req;
	struct rt_cli cli;

	(void)state;
	assert_int_equal(rt_dev_show_parse(WORDS(&cli, "dev", "rxe0"), &req), 0);
	assert_string_equal(req.dev, "rxe0");
	words(&cli, 0, NULL, "dev");
	assert_int_equal(rt_dev_show_parse(&cli, &req), 0);
	assert_string_equal(req.dev, "");
	assert_int_equal(rt_dev_show_parse(WORDS(&cli, "dev", "rxe0/1"), &req),
			 RT_EXIT_USAGE);
	assert_int_equal(rt_dev_show_parse(WORDS(&cli, "dev", ""), &req),
			 RT_EXIT_USAGE);
}

static void port_show(void **state)
{
	struct rt_port_req req;
	struct rt_cli cli;

	(void)state;
	assert_int_equal(rt_port_show_parse(WORDS(&cli, "port", "mlx5_0/2"), &req), 0);
	assert_string_equal(req.dev, "mlx5_0");
	assert_int_equal(req.port, 2);
	assert_int_equal(rt_port_show_parse(WORDS(&cli, "port", "rxe0"), &req), 0);
	assert_string_equal(req.dev, "rxe0");
	assert_int_equal(req.port, 0);
	assert_int_equal(rt_port_show_parse(WORDS(&cli, "port", "rxe0/x"), &req),
			 RT_EXIT_USAGE);
	assert_int_equal(rt_port_show_parse(WORDS(&cli, "port", "rxe0/0"), &req),
			 RT_EXIT_USAGE);
	assert_int_equal(rt_port_show_parse(WORDS(&cli, "port", "rxe0/1/2"), &req),
			 RT_EXIT_USAGE);
	assert_int_equal(rt_port_show_parse(WORDS(&cli, "port", "rxe0", "rxe1"), &req),
			 RT_EXIT_USAGE);
}

static void config_show(void **state)
{
	struct rt_config_req req;
	struct rt_cli cli;

	(void)state;
	assert_int_equal(rt_config_show_parse(WORDS(&cli, "config", "dev", "rxe0"),
					      &req), 0);
	assert_string_equal(req.dev, "rxe0");
	assert_int_equal(rt_config_show_parse(WORDS(&cli, "config", "dev"), &req),
			 RT_EXIT_USAGE);
	assert_int_equal(rt_config_show_parse(WORDS(&cli, "config", "rxe0"), &req),
			 RT_EXIT_USAGE);
	assert_int_equal(rt_config_show_parse(WORDS(&cli, "config", "dev", "rxe0/1"),
					      &req), RT_EXIT_USAGE);
}

static void config_set(void **state)
{
	struct rt_config_req req;
	struct rt_cli cli;

	(void)state;
	assert_int_equal(rt_config_set_parse(WORDS(&cli, "config", "dev", "rxe0",
						   "interval", "50", "storm-ms", "0x10",
						   "cnp-rate", "0",
						   "ecn-rate", "18446744073709551615"),
					     &req), 0);
	assert_string_equal(req.dev, "rxe0");
	assert_int_equal(req.interval_ms, 50);
	assert_int_equal(req.storm_ms, 16);
	assert_int_equal(req.cnp_rate, 0);
	assert_true(req.ecn_rate == UINT64_MAX);
	assert_true(rt_has(req.attrs, ROCETUNE_A_INTERVAL_MS) &&
		    rt_has(req.attrs, ROCETUNE_A_STORM_MS) &&
		    rt_has(req.attrs, ROCETUNE_A_CNP_RATE_THRESH) &&
		    rt_has(req.attrs, ROCETUNE_A_ECN_RATE_THRESH));
	/* Only what was given is sent. */
	assert_int_equal(rt_config_set_parse(WORDS(&cli, "config", "ecn-rate", "7"),
					     &req), 0);
	assert_int_equal(req.attrs, RT_BIT(ROCETUNE_A_ECN_RATE_THRESH));
	assert_string_equal(req.dev, "");
	/* The shorter names of rocetune 0.1 stay (config_show_to_set has
	 * the ones "config show" prints); keywords in any order.
	 */
	assert_int_equal(rt_config_set_parse(WORDS(&cli, "config", "interval", "5",
						   "dev", "rxe1"), &req), 0);
	assert_string_equal(req.dev, "rxe1");
}

/* What "config show" prints, "config set" takes: the same keywords. */
static void config_show_to_set(void **state)
{
	struct rt_config c = {
		.attrs = RT_BIT(ROCETUNE_A_DEV_NAME) | RT_BIT(ROCETUNE_A_INTERVAL_MS) |
			 RT_BIT(ROCETUNE_A_STORM_MS) |
			 RT_BIT(ROCETUNE_A_CNP_RATE_THRESH) |
			 RT_BIT(ROCETUNE_A_ECN_RATE_THRESH),
		.dev = "mlx5_0", .interval_ms = 250, .storm_ms = 700,
		.cnp_rate_thresh = 5000, .ecn_rate_thresh = 18446744073709551615ULL,
	};
	struct rt_config_req req;
	struct rt_print pr;
	struct rt_cli cli;
	char *text = NULL, *w[16], *save, *tok;
	size_t len;
	int n = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	rt_print_init(&pr, f, false, false);
	rt_config_print(&pr, &c);
	fclose(f);
	for (tok = strtok_r(text, " \n", &save); tok && n < 16;
	     tok = strtok_r(NULL, " \n", &save))
		w[n++] = tok;
	words(&cli, n, w, "config");
	assert_int_equal(rt_config_set_parse(&cli, &req), 0);
	assert_string_equal(req.dev, "mlx5_0");
	assert_int_equal(req.interval_ms, 250);
	assert_int_equal(req.storm_ms, 700);
	assert_int_equal(req.cnp_rate, 5000);
	assert_true(req.ecn_rate == UINT64_MAX);
	assert_int_equal(req.attrs, RT_BIT(ROCETUNE_A_INTERVAL_MS) |
				    RT_BIT(ROCETUNE_A_STORM_MS) |
				    RT_BIT(ROCETUNE_A_CNP_RATE_THRESH) |
				    RT_BIT(ROCETUNE_A_ECN_RATE_THRESH));
	free(text);
}

static void config_set_errors(void **state)
{
	struct rt_config_req req;
	struct rt_cli cli;

	(void)state;
#define SET_FAILS(...) \
	assert_int_equal(rt_config_set_parse(WORDS(&cli, "config", __VA_ARGS__), \
					     &req), RT_EXIT_USAGE)
	SET_FAILS("interval");
	SET_FAILS("interval", "4294967296");
	SET_FAILS("interval", "-5");
	SET_FAILS("interval", "10ms");
	SET_FAILS("interval", "");
	SET_FAILS("storm-ms", "1e3");
	SET_FAILS("cnp-rate", "18446744073709551616");
	SET_FAILS("int", "5");
	SET_FAILS("storm", "5");
	SET_FAILS("dev", "rxe0");
	SET_FAILS("dev", "rxe0", "interval", "5", "dev", "rxe1");
	SET_FAILS("dev");
#undef SET_FAILS
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(global_options),
		cmocka_unit_test(global_options_bundled),
		cmocka_unit_test(global_options_errors),
		cmocka_unit_test(dispatch_unknown),
		cmocka_unit_test(dispatch_prefix),
		cmocka_unit_test(help_everywhere),
		cmocka_unit_test(error_messages),
		cmocka_unit_test(nl_error_messages),
		cmocka_unit_test(prometheus_only_for_port),
		cmocka_unit_test(dev_show),
		cmocka_unit_test(port_show),
		cmocka_unit_test(config_show),
		cmocka_unit_test(config_set),
		cmocka_unit_test(config_show_to_set),
		cmocka_unit_test(config_set_errors),
	};

	return cmocka_run_group_tests_name("rt_cli_parse", tests, NULL, NULL);
}
