// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune command-line tool: argument cursor, dispatch, global options
 * and error reporting shared by the objects.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
	if (err) {
		rt_usage_error("invalid value \"%s\" for \"%s\": %s (expected %llu..%llu)",
			       v, kw, err == -ERANGE ? "out of range" : "not a number",
			       (unsigned long long)min, (unsigned long long)max);
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

int rt_arg_dev(struct rt_cli *cli, const char *kw, char *dev, uint32_t *port,
	       bool port_ok)
{
	const char *want = port_ok ? "DEV or DEV/PORT (PORT 1..255)" : "DEV";
	const char *v = kw ? rt_arg_value(cli, kw) : rt_arg_next(cli);
	uint32_t p = 0;

	if (!v)
		return RT_EXIT_USAGE;
	if (rt_parse_dev_port(v, dev, RT_NAME_LEN, &p) || (p && !port_ok)) {
		if (kw)
			rt_usage_error("invalid value \"%s\" for \"%s\": expected %s",
				       v, kw, want);
		else
			rt_usage_error("invalid device \"%s\": expected %s", v,
				       want);
		return RT_EXIT_USAGE;
	}
	if (port)
		*port = p;
	rt_cli_subject(cli, dev, p);
	return 0;
}

int rt_arg_dev_port(struct rt_cli *cli, char *dev, uint32_t *port,
		    bool port_ok)
{
	return rt_arg_dev(cli, NULL, dev, port, port_ok);
}

void rt_cli_subject(struct rt_cli *cli, const char *dev, uint32_t port)
{
	snprintf(cli->subject_dev, sizeof(cli->subject_dev), "%s",
		 dev ? dev : "");
	cli->subject_port = port;
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

/* The entry of @cmds that @word names: whole, or as a unique prefix. */
static const struct rt_cmd *rt_cli_lookup(const struct rt_cmd *cmds,
					  const char *word, unsigned int *nmatch)
{
	size_t len = strlen(word);
	const struct rt_cmd *c, *found = NULL;

	*nmatch = 0;
	for (c = cmds; c->name; c++)
		if (!strcmp(word, c->name)) {
			*nmatch = 1;
			return c;
		}
	for (c = cmds; len && c->name; c++) {
		if (strncmp(word, c->name, len))
			continue;
		found = c;
		(*nmatch)++;
	}
	return *nmatch == 1 ? found : NULL;
}

static void rt_cli_ambiguous(const struct rt_cli *cli, const struct rt_cmd *cmds,
			     const char *word)
{
	size_t len = strlen(word), used = 0;
	const struct rt_cmd *c;
	char list[256] = "";

	for (c = cmds; c->name; c++) {
		if (strncmp(word, c->name, len))
			continue;
		used += snprintf(list + used, used < sizeof(list) ?
				 sizeof(list) - used : 0, "%s%s",
				 used ? ", " : "", c->name);
		if (used >= sizeof(list))
			used = sizeof(list) - 1;
	}
	if (cli->object)
		rt_usage_error("ambiguous command \"%s\" for object \"%s\": %s",
			       word, cli->object, list);
	else
		rt_usage_error("ambiguous object \"%s\": %s", word, list);
}

int rt_cli_dispatch(struct rt_cli *cli, const struct rt_cmd *cmds)
{
	const char *word = rt_arg_peek(cli);
	const struct rt_cmd *c;
	unsigned int n;

	if (!word)
		return cmds[0].fn(cli);
	c = rt_cli_lookup(cmds, word, &n);
	if (c) {
		rt_arg_next(cli);
		return c->fn(cli);
	}
	if (n > 1)
		rt_cli_ambiguous(cli, cmds, word);
	else if (cli->object)
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
	      "where  OBJECT := { dev | port | qp | config | monitor | profile |\n"
	      "                   agent }\n"
	      "       OPTIONS := { -j | -p | -s | -o { text | json | prometheus } |\n"
	      "                    -V | -h }  (long: --json --pretty --stats\n"
	      "                    --output --version --help)\n"
	      "Short options may be bundled (-jp); objects and commands may be\n"
	      "abbreviated to a unique prefix (dev sh).\n"
	      "Exit status: 0 success, 1 the request failed, 2 usage error.\n",
	      f);
}

static int rt_cli_output(struct rt_cli *cli, const char *fmt)
{
	if (rt_keyword(fmt, "prometheus")) {
		cli->output = RT_OUTPUT_PROMETHEUS;
		cli->json = false;
	} else if (rt_keyword(fmt, "json")) {
		cli->output = RT_OUTPUT_DEFAULT;
		cli->json = true;
	} else if (rt_keyword(fmt, "text")) {
		cli->output = RT_OUTPUT_DEFAULT;
		cli->json = false;
	} else {
		rt_usage_error("invalid value \"%s\" for \"-o\": expected text, json or prometheus",
			       fmt);
		return RT_EXIT_USAGE;
	}
	return -1;
}

static const struct option rt_long_options[] = {
	{ "json",	no_argument,		NULL, 'j' },
	{ "pretty",	no_argument,		NULL, 'p' },
	{ "stats",	no_argument,		NULL, 's' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "version",	no_argument,		NULL, 'V' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 },
};

/* getopt_long()'s complaint about argv[optind - 1], in our words. */
static int rt_cli_bad_option(int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (c == ':') {
		rt_usage_error("\"%s\" needs a value: text, json or prometheus",
			       strncmp(arg, "--", 2) ? "-o" : arg);
	} else if (optopt) {
		rt_usage_error("unknown option \"-%c\"; try \"rocetune -h\"",
			       optopt);
	} else {
		rt_usage_error("unknown or ambiguous option \"%s\"; try \"rocetune -h\"",
			       arg);
	}
	return RT_EXIT_USAGE;
}

/* One option: -1 to go on, else an exit code. */
static int rt_cli_option(struct rt_cli *cli, int c, char **argv)
{
	switch (c) {
	case 'j':
		cli->json = true;
		cli->json_opt = true;
		return -1;
	case 'p':
		cli->pretty = true;
		return -1;
	case 's':
		cli->stats = true;
		return -1;
	case 'o':
		return rt_cli_output(cli, optarg);
	case 'V':
		printf("rocetune %s\n", ROCETUNE_VERSION);
		return RT_EXIT_OK;
	case 'h':
		rt_usage(stdout);
		return RT_EXIT_OK;
	default:
		return rt_cli_bad_option(c, argv);
	}
}

/*
 * "-json" would be -j -s -o "n": iproute2's single-dash long options are
 * refused with a hint instead.  Returns an exit code or -1.
 */
static int rt_cli_single_dash(int argc, char **argv)
{
	const struct option *o;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i], *o_at;

		if (!strcmp(a, "--output")) {
			i++;		/* its value is no option */
			continue;
		}
		if (a[1] == '-')
			continue;
		for (o = rt_long_options; o->name; o++) {
			if (strcmp(a + 1, o->name))
				continue;
			rt_usage_error("unknown option \"%s\"; did you mean \"-%s\"?",
				       a, a);
			return RT_EXIT_USAGE;
		}
		/* -o last in a bundle: its value is the next word. */
		o_at = strchr(a + 1, 'o');
		if (o_at && !o_at[1])
			i++;
	}
	return -1;
}

int rt_cli_options(struct rt_cli *cli, int argc, char **argv)
{
	int c, ret;

	memset(cli, 0, sizeof(*cli));
	ret = rt_cli_single_dash(argc, argv);
	if (ret >= 0)
		return ret;
	/* "+": options end at the object; ":": a missing value is ':'. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jpso:Vh", rt_long_options,
				NULL)) != -1) {
		ret = rt_cli_option(cli, c, argv);
		if (ret >= 0)
			return ret;
	}
	cli->argc = argc - optind;
	cli->argv = argv + optind;
	if (cli->json_opt && cli->output == RT_OUTPUT_PROMETHEUS) {
		rt_usage_error("-j and -o prometheus exclude each other");
		return RT_EXIT_USAGE;
	}
	/* Not silently ignored: -p changes JSON only. */
	if (cli->pretty && !cli->json) {
		rt_usage_error("-p indents JSON: it needs -j (or -o json)");
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

/* The command-line keyword of a request attribute, for messages. */
static const char *rt_attr_keyword(uint32_t type)
{
	static const char * const kw[ROCETUNE_A_MAX + 1] = {
		[ROCETUNE_A_DEV_INDEX]		= "dev",
		[ROCETUNE_A_DEV_NAME]		= "dev",
		[ROCETUNE_A_PORT_INDEX]		= "port",
		[ROCETUNE_A_INTERVAL_MS]	= "interval-ms",
		[ROCETUNE_A_STORM_MS]		= "storm-ms",
		[ROCETUNE_A_CNP_RATE_THRESH]	= "cnp-rate-thresh",
		[ROCETUNE_A_ECN_RATE_THRESH]	= "ecn-rate-thresh",
		[ROCETUNE_A_QPN]		= "qpn",
		[ROCETUNE_A_QP_TOP_K]		= "top",
		[ROCETUNE_A_QP_TOP_BY]		= "by",
		[ROCETUNE_A_QP_SINCE_GEN]	= "since",
		[ROCETUNE_A_QP_TOP_SAMPLE]	= "since",
		[ROCETUNE_A_QP_ACCT]		= "accounting",
		[ROCETUNE_A_QP_TABLE_MAX]	= "table-max",
		[ROCETUNE_A_QP_LINGER_MS]	= "linger-ms",
		[ROCETUNE_A_QP_VERIFY_MS]	= "verify-ms",
		[ROCETUNE_A_QP_NP_ENABLE]	= "np",
		[ROCETUNE_A_QP_NP_MIN_CNP_GAP_US] = "np-min-cnp-gap-us",
	};

	return type <= ROCETUNE_A_MAX ? kw[type] : NULL;
}

/* /sys/class/infiniband/DEV[/ports/PORT] exists. */
static bool rt_sysfs_has(const char *dev, uint32_t port)
{
	char path[RT_NAME_LEN + 64];
	struct stat st;

	if (port)
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u",
			 dev, port);
	else
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev);
	return !stat(path, &st);
}

/*
 * -ENODEV for the device or port the command named: say which one is
 * wrong, in the user's words.  The kernel points at the attribute it
 * refused; where it does not (dumps), the device's sysfs entry decides.
 * Returns false when this is not such an error.
 */
static bool rt_cli_nodev(const struct rt_cli *cli, int err, const char *what)
{
	const struct rt_nl *nl = &cli->nl;
	const char *dev = cli->subject_dev, *why;
	uint32_t port = cli->subject_port;
	bool port_bad;

	if (err != -ENODEV || !dev[0])
		return false;
	why = nl->ext_msg[0] ? nl->ext_msg : strerror(-err);
	if (nl->ext_bad_type == ROCETUNE_A_PORT_INDEX)
		port_bad = true;
	else if (nl->ext_bad_type)
		port_bad = false;
	else
		port_bad = port && rt_sysfs_has(dev, 0);
	if (!port_bad && !rt_sysfs_has(dev, 0))
		rt_error("%s: \"%s\" is not an RDMA device", what, dev);
	else if (!port_bad)
		rt_error("%s: RDMA device \"%s\": %s", what, dev, why);
	else if (!rt_sysfs_has(dev, port))
		rt_error("%s: RDMA device \"%s\" has no port %u", what, dev,
			 port);
	else
		rt_error("%s: port %u of \"%s\": %s", what, port, dev, why);
	return true;
}

int rt_cli_nl_error(struct rt_cli *cli, int err, const char *what)
{
	const struct rt_nl *nl = &cli->nl;
	const char *text = strerror(-err), *kw;
	char miss[64] = "", range[64] = "", attr[48] = "";

	if (rt_cli_nodev(cli, err, what))
		return RT_EXIT_ERROR;
	if (nl->lib_msg && !nl->ext_msg[0] && err != -EINTR)
		text = nl->lib_msg;
	kw = rt_attr_keyword(nl->ext_bad_type);
	if (kw)
		snprintf(attr, sizeof(attr), "\"%s\": ", kw);
	if (nl->ext_miss_type && rt_attr_keyword(nl->ext_miss_type))
		snprintf(miss, sizeof(miss), " (\"%s\" is missing)",
			 rt_attr_keyword(nl->ext_miss_type));
	else if (nl->ext_miss_type)
		snprintf(miss, sizeof(miss), " (missing attribute %u)",
			 nl->ext_miss_type);
	if (nl->ext_has_range)
		snprintf(range, sizeof(range), " (valid range %llu..%llu)",
			 (unsigned long long)nl->ext_min,
			 (unsigned long long)nl->ext_max);
	rt_error("%s: %s%s%s%s%s%s%s", what, attr, text,
		 nl->ext_msg[0] ? ": " : "", nl->ext_msg, miss, range,
		 rt_errno_hint(err));
	return RT_EXIT_ERROR;
}
