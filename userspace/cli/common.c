// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune command-line tool: argument cursor, dispatch, global options
 * and error reporting shared by the objects.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rocetune.h"
#include "rt_util.h"

static void rt_vmessage(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

static void rt_vmessage(const char *fmt, va_list ap)
{
	fputs("rocetune: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void rt_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rt_vmessage(fmt, ap);
	va_end(ap);
}

void rt_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rt_vmessage(fmt, ap);
	va_end(ap);
}

const char *rt_arg_peek(const struct rt_cli *cli)
{
	return cli->argc > 0 ? cli->argv[0] : NULL;
}

const char *rt_arg_next(struct rt_cli *cli)
{
	const char *word = rt_arg_peek(cli);

	if (word) {
		cli->argc--;
		cli->argv++;
	}
	return word;
}

bool rt_arg_is(const struct rt_cli *cli, const char *keyword)
{
	return rt_keyword(rt_arg_peek(cli), keyword);
}

/* The word after keyword @kw, which the cursor has just passed. */
static const char *rt_arg_value(struct rt_cli *cli, const char *kw)
{
	const char *v = rt_arg_next(cli);

	if (!v)
		rt_usage_error("\"%s\" needs a value; try \"rocetune %s help\"",
			       kw, cli->object ? cli->object : "");
	return v;
}

int rt_arg_u64(struct rt_cli *cli, const char *kw, uint64_t min, uint64_t max,
	       uint64_t *out)
{
	const char *v = rt_arg_value(cli, kw);
	int err;

	if (!v)
		return RT_EXIT_USAGE;
	err = rt_parse_u64(v, min, max, out);
	if (err == -ERANGE) {
		rt_usage_error("value \"%s\" of \"%s\" is out of range (%llu..%llu)",
			       v, kw, (unsigned long long)min,
			       (unsigned long long)max);
		return RT_EXIT_USAGE;
	}
	if (err) {
		rt_usage_error("invalid value \"%s\" for \"%s\": not a number",
			       v, kw);
		return RT_EXIT_USAGE;
	}
	return 0;
}

int rt_arg_u32(struct rt_cli *cli, const char *kw, uint32_t min, uint32_t max,
	       uint32_t *out)
{
	uint64_t v;
	int err;

	err = rt_arg_u64(cli, kw, min, max, &v);
	if (!err)
		*out = (uint32_t)v;
	return err;
}

int rt_arg_dev_port(struct rt_cli *cli, char *dev, uint32_t *port,
		    bool port_ok)
{
	const char *v = rt_arg_next(cli);
	uint32_t p = 0;

	if (!v || rt_parse_dev_port(v, dev, RT_NAME_LEN, &p)) {
		rt_usage_error("invalid device \"%s\"; expected %s", v ? v : "",
			       port_ok ? "DEV or DEV/PORT (PORT 1..255)" : "DEV");
		return RT_EXIT_USAGE;
	}
	if (p && !port_ok) {
		rt_usage_error("invalid device \"%s\"; expected DEV without a port",
			       v);
		return RT_EXIT_USAGE;
	}
	if (port)
		*port = p;
	return 0;
}

int rt_arg_end(struct rt_cli *cli)
{
	const char *word = rt_arg_peek(cli);

	if (!word)
		return 0;
	rt_usage_error("unexpected argument \"%s\"; try \"rocetune %s help\"",
		       word, cli->object ? cli->object : "");
	return RT_EXIT_USAGE;
}

int rt_cli_dispatch(struct rt_cli *cli, const struct rt_cmd *cmds)
{
	const char *word = rt_arg_peek(cli);
	const struct rt_cmd *c;

	if (!word)
		return cmds[0].fn(cli);
	for (c = cmds; c->name; c++) {
		if (rt_keyword(word, c->name)) {
			rt_arg_next(cli);
			return c->fn(cli);
		}
	}
	if (cli->object)
		rt_usage_error("unknown command \"%s\" for object \"%s\"; try \"rocetune %s help\"",
			       word, cli->object, cli->object);
	else
		rt_usage_error("unknown object \"%s\"; try \"rocetune help\"",
			       word);
	return RT_EXIT_USAGE;
}

void rt_usage(FILE *f)
{
	fputs("Usage: rocetune [ OPTIONS ] OBJECT { COMMAND | help }\n"
	      "       rocetune [ -V | -h ]\n"
	      "where  OBJECT := { dev | port | qp | config | monitor }\n"
	      "       OPTIONS := { -j | -p | -s | -o { text | json | prometheus } |\n"
	      "                    -V | -h }  (long: --json --pretty --stats\n"
	      "                    --output --version --help)\n"
	      "Exit status: 0 success, 1 the request failed, 2 usage error.\n",
	      f);
}

static bool rt_opt(const char *arg, const char *s, const char *l)
{
	return rt_keyword(arg, s) || rt_keyword(arg, l);
}

static int rt_cli_output(struct rt_cli *cli, const char *fmt)
{
	if (!fmt) {
		rt_usage_error("\"-o\" needs a value: text, json or prometheus");
		return RT_EXIT_USAGE;
	}
	if (rt_keyword(fmt, "prometheus")) {
		cli->output = RT_OUTPUT_PROMETHEUS;
	} else if (rt_keyword(fmt, "json")) {
		cli->json = true;
	} else if (rt_keyword(fmt, "text")) {
		cli->output = RT_OUTPUT_DEFAULT;
	} else {
		rt_usage_error("unknown output format \"%s\"; expected text, json or prometheus",
			       fmt);
		return RT_EXIT_USAGE;
	}
	return -1;
}

/* One option at the cursor: -1 to go on, else an exit code. */
static int rt_cli_option(struct rt_cli *cli, const char *opt)
{
	if (rt_opt(opt, "-o", "--output"))
		return rt_cli_output(cli, rt_arg_next(cli));
	if (rt_opt(opt, "-V", "--version")) {
		printf("rocetune %s\n", ROCETUNE_VERSION);
		return RT_EXIT_OK;
	}
	if (rt_opt(opt, "-h", "--help")) {
		rt_usage(stdout);
		return RT_EXIT_OK;
	}
	if (rt_opt(opt, "-j", "--json")) {
		cli->json = true;
	} else if (rt_opt(opt, "-p", "--pretty")) {
		cli->pretty = true;
	} else if (rt_opt(opt, "-s", "--stats")) {
		cli->stats = true;
	} else {
		rt_usage_error("unknown option \"%s\"; try \"rocetune -h\"", opt);
		return RT_EXIT_USAGE;
	}
	return -1;
}

int rt_cli_options(struct rt_cli *cli, int argc, char **argv)
{
	int ret;

	memset(cli, 0, sizeof(*cli));
	cli->argc = argc - 1;
	cli->argv = argv + 1;
	while (rt_arg_peek(cli) && rt_arg_peek(cli)[0] == '-') {
		ret = rt_cli_option(cli, rt_arg_next(cli));
		if (ret >= 0)
			return ret;
	}
	if (cli->json && cli->output == RT_OUTPUT_PROMETHEUS) {
		rt_usage_error("-j and -o prometheus exclude each other");
		return RT_EXIT_USAGE;
	}
	return -1;
}

int rt_cli_no_prometheus(const struct rt_cli *cli)
{
	if (cli->output != RT_OUTPUT_PROMETHEUS)
		return 0;
	rt_usage_error("-o prometheus is only supported by \"port show\" and \"qp show\"");
	return RT_EXIT_USAGE;
}

int rt_cli_nl_open(struct rt_cli *cli)
{
	int err = rt_nl_open(&cli->nl);

	if (err == -ENOENT) {
		rt_error("the rocetune kernel module is not loaded (modprobe rocetune)");
		return RT_EXIT_ERROR;
	}
	if (err) {
		rt_error("cannot open a generic netlink socket: %s",
			 cli->nl.lib_msg ? cli->nl.lib_msg : strerror(-err));
		return RT_EXIT_ERROR;
	}
	return 0;
}

static const char *rt_errno_hint(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return " (needs CAP_NET_ADMIN)";
	case -EOPNOTSUPP:
		return " (not supported by the loaded rocetune module)";
	case -EINTR:
		return " (the device list changed during the dump; retry)";
	default:
		return "";
	}
}

int rt_cli_nl_error(struct rt_cli *cli, int err, const char *what)
{
	const struct rt_nl *nl = &cli->nl;
	const char *text = strerror(-err);
	char miss[48] = "", range[64] = "";

	if (nl->lib_msg && !nl->ext_msg[0] && err != -EINTR)
		text = nl->lib_msg;
	if (nl->ext_miss_type)
		snprintf(miss, sizeof(miss), " (missing attribute %u)",
			 nl->ext_miss_type);
	if (nl->ext_has_range)
		snprintf(range, sizeof(range), " (valid range %llu..%llu)",
			 (unsigned long long)nl->ext_min,
			 (unsigned long long)nl->ext_max);
	rt_error("%s: %s%s%s%s%s%s", what, text, nl->ext_msg[0] ? ": " : "",
		 nl->ext_msg, miss, range, rt_errno_hint(err));
	return RT_EXIT_ERROR;
}
