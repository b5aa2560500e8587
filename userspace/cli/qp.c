// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune qp: per-QP accounting of software RoCE devices.
 *
 *	rocetune [ -o prometheus ] qp show [ dev DEV[/PORT] ] [ qpn N ]
 *			 [ top K [ by FIELD ] ]
 *			 [ since GEN | changed ]
 *	rocetune qp stats [ dev DEV ]
 *	rocetune qp set [ dev DEV [ accounting { on | off } ]
 *			  [ np { on | off } ] [ np-min-cnp-gap-us US ]
 *			  [ np-cnp-dscp DSCP ] [ np-cnp-prio PRIO ]
 *			  [ rp { on | off } ] [ rp-PARAM N ... ] ]
 *			[ table-max N ] [ linger-ms MS ] [ verify-ms MS ]
 *
 * Every "qp show" prints the generation of its dump ("gen"); passing it
 * back with "since GEN" shows only the QPs that changed after it, and with
 * "top K" ranks them by the change since that dump (the kernel's top-K
 * sample).  "changed" does the same with the generation of the previous
 * "changed" call, kept in a file of the user's runtime directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "rocetune.h"
#include "rt_prom.h"
#include "rt_run.h"

/* QPs in -o prometheus without "top K": bounds the number of series. */
#define RT_QP_PROM_TOP_K	20

struct rt_qp_req {
	char dev[RT_NAME_LEN];		/* "" for all */
	uint32_t port;			/* 0 for all */
	bool has_qpn;
	uint32_t qpn;
	uint32_t top_k;			/* 0: all */
	uint32_t top_by;		/* ROCETUNE_A_QP_* counter */
	bool has_since;
	uint64_t since;
	bool changed;			/* since the previous "changed" call */
};

/*
 * State of one "qp show": the highest dump generation seen; for
 * Prometheus, the QPs (the format groups samples by metric).
 */
struct rt_qp_show_ctx {
	struct rt_cli *cli;
	uint64_t gen;
	unsigned int n;
	struct rt_qp *v;
	size_t nv, cap;
};

/* The reaction point's line of a QP that handled a CNP. */
static void rt_qp_print_rp(struct rt_print *pr, const struct rt_qp *qp)
{
	if (!rt_has(qp->qattrs, ROCETUNE_A_QP_RP_CNPS))
		return;
	rt_print_text(pr, "\n   ");
	rt_print_kv_bool(pr, "rp_paced", qp->rp_paced);
	rt_print_kv_uint(pr, "rp_rate_kbps", qp->rp_rate_kbps);
	rt_print_kv_uint(pr, "rp_target_kbps", qp->rp_target_kbps);
	rt_print_kv_uint(pr, "rp_alpha", qp->rp_alpha);
	rt_print_kv_uint(pr, "rp_cnps", qp->rp_cnps);
	rt_print_kv_uint(pr, "rp_cuts", qp->rp_cuts);
	rt_print_kv_uint(pr, "rp_releases", qp->rp_releases);
}

/* The round-trip line of a QP that measured one. */
static void rt_qp_print_rtt(struct rt_print *pr, const struct rt_qp *qp)
{
	if (!rt_has(qp->qattrs, ROCETUNE_A_QP_RTT_SAMPLES))
		return;
	rt_print_text(pr, "\n   ");
	rt_print_kv_uint(pr, "rtt_samples", qp->rtt_samples);
	rt_print_kv_uint(pr, "rtt_p50_ns", qp->rtt_p50_ns);
	rt_print_kv_uint(pr, "rtt_p99_ns", qp->rtt_p99_ns);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_RTT_PACING_NS))
		rt_print_kv_uint(pr, "rtt_pacing_ns", qp->rtt_pacing_ns);
	if (!rt_has(qp->qattrs, ROCETUNE_A_QP_JITTER_P50_NS))
		return;
	rt_print_kv_uint(pr, "jitter_p50_ns", qp->jitter_p50_ns);
	rt_print_kv_uint(pr, "jitter_p99_ns", qp->jitter_p99_ns);
}

static void rt_qp_print(struct rt_print *pr, const struct rt_qp *qp)
{
	size_t i;

	rt_print_open_object(pr, NULL);
	if (rt_has(qp->attrs, ROCETUNE_A_DEV_NAME))
		rt_print_string(pr, RT_PRINT_ANY, "dev", "%s", qp->dev);
	if (rt_has(qp->attrs, ROCETUNE_A_DEV_INDEX))
		rt_print_uint(pr, RT_PRINT_JSON, "dev_index", NULL,
			      qp->dev_index);
	rt_print_kv_uint(pr, "qpn", qp->qpn);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_PORT))
		rt_print_kv_uint(pr, "port", qp->port);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_TYPE))
		rt_print_kv_string(pr, "type", rt_qp_type_name(qp->type));
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_REMOTE_QPN))
		rt_print_kv_uint(pr, "remote_qpn", qp->remote_qpn);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_PID))
		rt_print_kv_uint(pr, "pid", qp->pid);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_COMM))
		rt_print_kv_string(pr, "comm", qp->comm);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_DESTROYED_NS))
		rt_print_kv_uint(pr, "destroyed_ns", qp->destroyed_ns);
	if (rt_has(qp->attrs, ROCETUNE_A_QP_GEN))
		rt_print_kv_uint(pr, "gen", qp->gen);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_TOP_DELTA))
		rt_print_kv_uint(pr, "top_delta", qp->top_delta);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_CHANGED_GEN))
		rt_print_uint(pr, RT_PRINT_JSON, "changed_gen", NULL,
			      qp->changed_gen);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_FIRST_SEEN_NS))
		rt_print_uint(pr, RT_PRINT_JSON, "first_seen_ns", NULL,
			      qp->first_seen_ns);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_LAST_SEEN_NS))
		rt_print_uint(pr, RT_PRINT_JSON, "last_seen_ns", NULL,
			      qp->last_seen_ns);
	rt_print_text(pr, "\n   ");
	for (i = 0; i < rt_qp_counter_ndescs; i++) {
		const struct rt_counter_desc *d = &rt_qp_counter_descs[i];

		if (!rt_has(qp->qattrs, d->attr))
			continue;
		rt_print_kv_uint(pr, d->key, qp->cnt[d->attr]);
		/* Two text lines: traffic, ECN and CNPs; then NAKs. */
		if (d->attr == ROCETUNE_A_QP_TX_CNP_PKTS)
			rt_print_text(pr, "\n   ");
	}
	rt_qp_print_rp(pr, qp);
	rt_qp_print_rtt(pr, qp);
	rt_print_text(pr, "\n");
	rt_print_close_object(pr);
}

static int rt_qp_show_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_qp_show_ctx *ctx = arg;
	struct rt_qp qp;

	if (rt_qp_parse(nlh, &qp)) {
		rt_error("malformed QP message from the kernel");
		return -EINVAL;
	}
	if (qp.gen > ctx->gen)
		ctx->gen = qp.gen;
	ctx->n++;
	/* Kept, printed at the end: a dump marked inconsistent runs again. */
	if (ctx->nv == ctx->cap) {
		size_t cap = ctx->cap ? 2 * ctx->cap : 64;
		struct rt_qp *v = realloc(ctx->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ctx->v = v;
		ctx->cap = cap;
	}
	ctx->v[ctx->nv++] = qp;
	return 0;
}

/* "by FIELD", the cursor on "by". */
static int rt_qp_parse_by(struct rt_cli *cli, struct rt_qp_req *req)
{
	const struct rt_counter_desc *d;
	const char *v;

	rt_arg_next(cli);
	v = rt_arg_next(cli);
	if (!v) {
		rt_usage_error("\"by\" needs a value: a QP counter such as rx_ecn_ce_pkts; see rocetune-qp(8)");
		return RT_EXIT_USAGE;
	}
	d = rt_qp_counter_by_name(v);
	if (!d) {
		rt_usage_error("invalid value \"%s\" for \"by\": not a QP counter (rx_pkts, rx_ecn_ce_pkts, ...; see rocetune-qp(8))",
			       v);
		return RT_EXIT_USAGE;
	}
	req->top_by = d->attr;
	return 0;
}

static int rt_qp_show_parse(struct rt_cli *cli, struct rt_qp_req *req)
{
	int err;

	memset(req, 0, sizeof(*req));
	req->top_by = ROCETUNE_A_QP_RX_ECN_CE_PKTS;
	while (rt_arg_peek(cli)) {
		if (rt_arg_is(cli, "dev")) {
			rt_arg_next(cli);
			err = rt_arg_dev(cli, "dev", req->dev, &req->port, true);
		} else if (rt_arg_is(cli, "qpn")) {
			rt_arg_next(cli);
			err = rt_arg_u32(cli, "qpn", 0, 0xffffff, &req->qpn);
			req->has_qpn = true;
		} else if (rt_arg_is(cli, "top")) {
			rt_arg_next(cli);
			err = rt_arg_u32(cli, "top", 1, UINT32_MAX, &req->top_k);
			if (!err && rt_arg_is(cli, "by"))
				err = rt_qp_parse_by(cli, req);
		} else if (rt_arg_is(cli, "since")) {
			rt_arg_next(cli);
			err = rt_arg_u64(cli, "since", 1, UINT64_MAX, &req->since);
			req->has_since = true;
		} else if (rt_arg_is(cli, "changed")) {
			rt_arg_next(cli);
			req->changed = true;
			err = 0;
		} else if (rt_arg_is(cli, "by")) {
			rt_usage_error("\"by\" comes after \"top K\"");
			return RT_EXIT_USAGE;
		} else {
			return rt_arg_end(cli);
		}
		if (err)
			return err;
	}
	if (req->changed && req->has_since) {
		rt_usage_error("\"changed\" and \"since\" exclude each other");
		return RT_EXIT_USAGE;
	}
	return 0;
}

/*
 * Where "changed" keeps the generation of its previous call: one file for
 * plain dumps, one for top-K dumps (whose generation names a sample).
 */
static int rt_qp_state_path(char *buf, size_t len, bool top)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	const char *name = top ? "qp-top-gen" : "qp-gen";

	if (dir && dir[0]) {
		snprintf(buf, len, "%s/rocetune-%s", dir, name);
		return 0;
	}
	if (geteuid() == 0) {
		char msg[512] = "";

		if (rt_run_dir_create(msg, sizeof(msg))) {
			rt_error("\"changed\": %s", msg);
			return RT_EXIT_ERROR;
		}
		snprintf(buf, len, "%s/%s", rt_run_dir(), name);
		return 0;
	}
	rt_usage_error("\"changed\" keeps its place in the runtime directory XDG_RUNTIME_DIR, which is not set; use \"since GEN\"");
	return RT_EXIT_USAGE;
}

/* The generation of the previous "changed" call, 0 if there was none. */
static uint64_t rt_qp_state_load(const char *path)
{
	unsigned long long gen = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &gen) != 1)
		gen = 0;
	fclose(f);
	return gen;
}

static int rt_qp_state_save(const char *path, uint64_t gen)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%" PRIu64 "\n", gen) < 0 || fclose(f) ||
	    rename(tmp, path)) {
		rt_error("\"changed\": cannot save the generation in %s: %s",
			 path, strerror(errno));
		unlink(tmp);
		return RT_EXIT_ERROR;
	}
	return RT_EXIT_OK;
}

static int rt_qp_show_req(struct rt_cli *cli, const struct rt_qp_req *req,
			  struct rt_qp_show_ctx *ctx)
{
	struct nl_msg *msg;
	bool one;

	msg = rt_nl_msg_dev(&cli->nl, ROCETUNE_CMD_QP_GET, req->dev, req->port);
	if (!msg)
		return -ENOMEM;
	one = req->dev[0] && req->has_qpn && !req->top_k && !req->has_since &&
	      !req->port;
	if ((req->has_qpn && nla_put_u32(msg, ROCETUNE_A_QPN, req->qpn)) ||
	    (req->top_k &&
	     (nla_put_u32(msg, ROCETUNE_A_QP_TOP_K, req->top_k) ||
	      nla_put_u32(msg, ROCETUNE_A_QP_TOP_BY, req->top_by))) ||
	    (req->has_since &&
	     nla_put_u64(msg, ROCETUNE_A_QP_SINCE_GEN, req->since)) ||
	    (req->has_since && req->top_k &&
	     nla_put_u64(msg, ROCETUNE_A_QP_TOP_SAMPLE, req->since))) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	if (one)
		return rt_nl_do(&cli->nl, msg, rt_qp_show_cb, ctx);
	return rt_nl_dump(&cli->nl, msg, rt_qp_show_cb, ctx);
}

/*
 * A "qp show" that found no QP says so: "qpn N" names a QP that is not
 * there, an error; otherwise a note on stderr in text output (JSON's empty
 * array says it), and success.
 */
static int rt_qp_show_none(struct rt_cli *cli, const struct rt_qp_req *req)
{
	char where[RT_NAME_LEN + 32] = "on any device";

	if (req->dev[0] && req->port)
		snprintf(where, sizeof(where), "on %s/%u", req->dev, req->port);
	else if (req->dev[0])
		snprintf(where, sizeof(where), "on %s", req->dev);
	if (req->has_qpn) {
		rt_error("qp show: no QP %u %s%s", req->qpn, where,
			 req->has_since ? " changed since that generation" :
			 " (accounted QPs only: see \"rocetune qp stats\")");
		return RT_EXIT_ERROR;
	}
	if (cli->json || cli->output != RT_OUTPUT_DEFAULT)
		return RT_EXIT_OK;
	if (req->has_since)
		fprintf(stderr, "rocetune: note: no QP %s changed since generation %" PRIu64 "\n",
			where, req->since);
	else
		fprintf(stderr, "rocetune: note: no QP %s: rocetune shows the QPs of devices with accounting on (\"rocetune qp stats\" says which; \"rocetune qp set dev DEV accounting on\")\n",
			where);
	return RT_EXIT_OK;
}

static int rt_qp_show(struct rt_cli *cli)
{
	struct rt_qp_show_ctx ctx = { .cli = cli };
	char path[4096] = "";
	struct rt_qp_req req;
	int err, tries;
	size_t i;

	err = rt_qp_show_parse(cli, &req);
	/* Series per QP: bounded, whatever the number of QPs. */
	if (cli->output == RT_OUTPUT_PROMETHEUS && !req.top_k && !req.has_qpn)
		req.top_k = RT_QP_PROM_TOP_K;
	if (!err && req.changed)
		err = rt_qp_state_path(path, sizeof(path), req.top_k);
	if (err)
		return err;
	if (req.changed) {
		req.since = rt_qp_state_load(path);
		req.has_since = req.since != 0;
	}
	err = rt_cli_nl_open(cli);
	if (err)
		return err;
	/*
	 * The kernel marks a dump during which QPs came or went (never a
	 * top-K one, whose ranking is one moment's): it is simply run again.
	 */
	for (tries = 0; tries < RT_DUMP_TRIES; tries++) {
		ctx.n = 0;
		ctx.nv = 0;
		ctx.gen = 0;
		err = rt_qp_show_req(cli, &req, &ctx);
		if (err != -EINTR)
			break;
	}
	if (err == -ESTALE && req.changed && !ctx.n) {
		/* The sample of the previous call was replaced meanwhile. */
		fprintf(stderr,
			"rocetune: note: the sample of the previous call is no longer held (replaced by a newer top-K sample); ranking by totals\n");
		req.has_since = false;
		err = rt_qp_show_req(cli, &req, &ctx);
	}
	rt_print_open_array(&cli->pr, NULL);
	for (i = 0; !err && cli->output != RT_OUTPUT_PROMETHEUS && i < ctx.nv; i++)
		rt_qp_print(&cli->pr, &ctx.v[i]);
	rt_print_close_array(&cli->pr);
	if (!err && cli->output == RT_OUTPUT_PROMETHEUS)
		rt_prom_write_qps(stdout, ctx.v, ctx.nv);
	free(ctx.v);
	if (err == -ESTALE)
		return rt_cli_nl_error(cli, err, "qp show: \"since\": top-K sample not held (a newer top-K dump replaced it)");
	if (err == -ENOENT && req.has_qpn) {
		/* The kernel points at "qpn": say which one. */
		rt_error("qp show: no QP %u on %s%s%s", req.qpn, req.dev,
			 cli->nl.ext_msg[0] ? ": " : "", cli->nl.ext_msg);
		return RT_EXIT_ERROR;
	}
	if (err)
		return rt_cli_nl_error(cli, err, "qp show");
	if (!ctx.n)
		return rt_qp_show_none(cli, &req);
	if (req.changed && ctx.gen)
		return rt_qp_state_save(path, ctx.gen);
	return RT_EXIT_OK;
}

/* The notification point's part of a QP stats message (on a new line). */
static void rt_qp_stats_np(struct rt_print *pr, struct nlattr **tb)
{
	static const struct {
		int attr;
		const char *key;
	} cnt[] = {
		{ ROCETUNE_A_QP_NP_CNP_SENT,		"np_cnp_sent" },
		{ ROCETUNE_A_QP_NP_CNP_FAILED,		"np_cnp_failed" },
		{ ROCETUNE_A_QP_NP_CE_COALESCED,	"np_ce_coalesced" },
		{ ROCETUNE_A_QP_NP_CE_NO_CNP,		"np_ce_no_cnp" },
	};
	size_t i;

	/* A kernel without the notification point says nothing of it. */
	if (!tb[ROCETUNE_A_QP_NP_ENABLE])
		return;
	rt_print_text(pr, "\n   ");
	rt_print_kv_bool(pr, "np", nla_get_u8(tb[ROCETUNE_A_QP_NP_ENABLE]));
	if (tb[ROCETUNE_A_QP_NP_MIN_CNP_GAP_US])
		rt_print_kv_uint(pr, "np_min_cnp_gap_us",
				 nla_get_u32(tb[ROCETUNE_A_QP_NP_MIN_CNP_GAP_US]));
	if (tb[ROCETUNE_A_QP_NP_CNP_DSCP])
		rt_print_kv_uint(pr, "np_cnp_dscp",
				 nla_get_u32(tb[ROCETUNE_A_QP_NP_CNP_DSCP]));
	if (tb[ROCETUNE_A_QP_NP_CNP_PRIO])
		rt_print_kv_uint(pr, "np_cnp_prio",
				 nla_get_u32(tb[ROCETUNE_A_QP_NP_CNP_PRIO]));
	for (i = 0; i < sizeof(cnt) / sizeof(cnt[0]); i++)
		if (tb[cnt[i].attr])
			rt_print_kv_uint(pr, cnt[i].key,
					 nla_get_u64(tb[cnt[i].attr]));
}

/*
 * The DCQCN parameters (of the reaction point, and the notification
 * point's CNP class, @np): the "qp set" keyword, the JSON key of "qp
 * stats" and the attribute, in the [DCQCN] keys' units.
 */
static const struct {
	int attr;
	const char *kw;
	const char *key;
	bool np;
} rt_qp_rp_params[] = {
	{ ROCETUNE_A_QP_RP_MIN_RATE_MBPS, "rp-min-rate-mbps", "rp_min_rate_mbps", false },
	{ ROCETUNE_A_QP_RP_MAX_RATE_MBPS, "rp-max-rate-mbps", "rp_max_rate_mbps", false },
	{ ROCETUNE_A_QP_RP_AI_RATE_MBPS, "rp-ai-rate-mbps", "rp_ai_rate_mbps", false },
	{ ROCETUNE_A_QP_RP_HAI_RATE_MBPS, "rp-hai-rate-mbps", "rp_hai_rate_mbps", false },
	{ ROCETUNE_A_QP_RP_TIME_RESET_US, "rp-time-reset-us", "rp_time_reset_us", false },
	{ ROCETUNE_A_QP_RP_BYTE_RESET_BYTES, "rp-byte-reset-bytes",
	  "rp_byte_reset_bytes", false },
	{ ROCETUNE_A_QP_RP_THRESHOLD, "rp-threshold", "rp_threshold", false },
	{ ROCETUNE_A_QP_RP_INITIAL_ALPHA, "rp-initial-alpha", "rp_initial_alpha", false },
	{ ROCETUNE_A_QP_RP_G, "rp-g", "rp_g", false },
	{ ROCETUNE_A_QP_RP_ALPHA_PERIOD_US, "rp-alpha-period-us",
	  "rp_alpha_period_us", false },
	{ ROCETUNE_A_QP_RP_RRMP_US, "rp-rate-reduce-period-us",
	  "rp_rate_reduce_period_us", false },
	{ ROCETUNE_A_QP_RP_RATE_FIRST_CNP_MBPS, "rp-rate-first-cnp-mbps",
	  "rp_rate_first_cnp_mbps", false },
	{ ROCETUNE_A_QP_RP_GD, "rp-gd", "rp_gd", false },
	{ ROCETUNE_A_QP_RP_MIN_DEC_FAC_PCT, "rp-min-dec-factor-pct",
	  "rp_min_dec_factor_pct", false },
	{ ROCETUNE_A_QP_RP_CLAMP_TGT, "rp-clamp-target", "rp_clamp_target", false },
	{ ROCETUNE_A_QP_RP_CLAMP_TGT_ATI, "rp-clamp-target-ati",
	  "rp_clamp_target_ati", false },
	{ ROCETUNE_A_QP_NP_CNP_DSCP, "np-cnp-dscp", "np_cnp_dscp", true },
	{ ROCETUNE_A_QP_NP_CNP_PRIO, "np-cnp-prio", "np_cnp_prio", true },
};

#define RT_QP_RP_NPARAMS	(sizeof(rt_qp_rp_params) / sizeof(rt_qp_rp_params[0]))

/* The reaction point's part of a QP stats message (on a new line). */
static void rt_qp_stats_rp(struct rt_print *pr, struct nlattr **tb)
{
	size_t i;

	/* A kernel without the reaction point says nothing of it. */
	if (!tb[ROCETUNE_A_QP_RP_ENABLE])
		return;
	rt_print_text(pr, "\n   ");
	rt_print_kv_bool(pr, "rp", nla_get_u8(tb[ROCETUNE_A_QP_RP_ENABLE]));
	for (i = 0; i < RT_QP_RP_NPARAMS; i++)
		if (!rt_qp_rp_params[i].np && tb[rt_qp_rp_params[i].attr])
			rt_print_kv_uint(pr, rt_qp_rp_params[i].key,
					 nla_get_u32(tb[rt_qp_rp_params[i].attr]));
}

/* "on" or "off" after keyword @kw into @out (1 or 0). */
static int rt_qp_arg_onoff(struct rt_cli *cli, const char *kw, int *out)
{
	const char *v;

	rt_arg_next(cli);
	v = rt_arg_next(cli);
	if (v && !strcmp(v, "on")) {
		*out = 1;
	} else if (v && !strcmp(v, "off")) {
		*out = 0;
	} else if (v) {
		rt_usage_error("invalid value \"%s\" for \"%s\": expected on or off",
			       v, kw);
		return RT_EXIT_USAGE;
	} else {
		rt_usage_error("\"%s\" needs a value: on or off", kw);
		return RT_EXIT_USAGE;
	}
	return 0;
}

static int rt_qp_stats_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[ROCETUNE_A_MAX + 1];
	struct rt_cli *cli = arg;
	struct rt_print *pr = &cli->pr;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, ROCETUNE_A_MAX,
			  NULL) < 0 ||
	    !tb[ROCETUNE_A_DEV_NAME]) {
		rt_error("malformed QP stats message from the kernel");
		return -EINVAL;
	}
	rt_print_open_object(pr, NULL);
	rt_print_string(pr, RT_PRINT_ANY, "dev", "%s:",
			nla_get_string(tb[ROCETUNE_A_DEV_NAME]));
	if (tb[ROCETUNE_A_QP_ACCT])
		rt_print_kv_bool(pr, "accounting",
				 nla_get_u8(tb[ROCETUNE_A_QP_ACCT]));
	if (tb[ROCETUNE_A_QP_UNATTR_RX])
		rt_print_kv_uint(pr, "unattributed_rx",
				 nla_get_u64(tb[ROCETUNE_A_QP_UNATTR_RX]));
	if (tb[ROCETUNE_A_QP_UNATTR_TX])
		rt_print_kv_uint(pr, "unattributed_tx",
				 nla_get_u64(tb[ROCETUNE_A_QP_UNATTR_TX]));
	if (tb[ROCETUNE_A_QP_RX_BAD_HDR])
		rt_print_kv_uint(pr, "rx_bad_hdr",
				 nla_get_u64(tb[ROCETUNE_A_QP_RX_BAD_HDR]));
	if (tb[ROCETUNE_A_QP_RX_BAD_ICRC])
		rt_print_kv_uint(pr, "rx_bad_icrc",
				 nla_get_u64(tb[ROCETUNE_A_QP_RX_BAD_ICRC]));
	if (tb[ROCETUNE_A_QP_RX_BAD_PEER])
		rt_print_kv_uint(pr, "rx_bad_peer",
				 nla_get_u64(tb[ROCETUNE_A_QP_RX_BAD_PEER]));
	if (tb[ROCETUNE_A_QP_TABLE_COUNT])
		rt_print_kv_uint(pr, "table_count",
				 nla_get_u32(tb[ROCETUNE_A_QP_TABLE_COUNT]));
	if (tb[ROCETUNE_A_QP_TABLE_MAX])
		rt_print_kv_uint(pr, "table_max",
				 nla_get_u32(tb[ROCETUNE_A_QP_TABLE_MAX]));
	if (tb[ROCETUNE_A_QP_REFUSED])
		rt_print_kv_uint(pr, "refused",
				 nla_get_u64(tb[ROCETUNE_A_QP_REFUSED]));
	if (tb[ROCETUNE_A_QP_LINGER_MS])
		rt_print_kv_uint(pr, "linger_ms",
				 nla_get_u32(tb[ROCETUNE_A_QP_LINGER_MS]));
	if (tb[ROCETUNE_A_QP_VERIFY_MS])
		rt_print_kv_uint(pr, "verify_ms",
				 nla_get_u32(tb[ROCETUNE_A_QP_VERIFY_MS]));
	if (tb[ROCETUNE_A_QP_GEN])
		rt_print_kv_uint(pr, "gen", nla_get_u64(tb[ROCETUNE_A_QP_GEN]));
	rt_qp_stats_np(pr, tb);
	rt_qp_stats_rp(pr, tb);
	if (tb[ROCETUNE_A_QP_LOOPBACK_UNSEEN] &&
	    nla_get_u8(tb[ROCETUNE_A_QP_LOOPBACK_UNSEEN])) {
		rt_print_bool(pr, RT_PRINT_JSON, "loopback_unseen", NULL, true);
		rt_print_text(pr, "\n    note: traffic between two QPs of this device takes rxe's loopback and is not counted");
	}
	rt_print_text(pr, "\n");
	rt_print_close_object(pr);
	return 0;
}

static int rt_qp_stats(struct rt_cli *cli)
{
	struct rt_qp_req req = { 0 };
	struct nl_msg *msg;
	int err = 0;

	if (rt_arg_is(cli, "dev")) {
		rt_arg_next(cli);
		err = rt_arg_dev(cli, "dev", req.dev, NULL, false);
	}
	if (!err)
		err = rt_arg_end(cli);
	if (!err)
		err = rt_cli_no_prometheus(cli);
	if (!err)
		err = rt_cli_nl_open(cli);
	if (err)
		return err;
	msg = rt_nl_msg_dev(&cli->nl, ROCETUNE_CMD_QP_STATS_GET, req.dev, 0);
	if (!msg)
		return rt_cli_nl_error(cli, -ENOMEM, "qp stats");
	rt_print_open_array(&cli->pr, NULL);
	if (req.dev[0])
		err = rt_nl_do(&cli->nl, msg, rt_qp_stats_cb, cli);
	else
		err = rt_nl_dump(&cli->nl, msg, rt_qp_stats_cb, cli);
	rt_print_close_array(&cli->pr);
	return err ? rt_cli_nl_error(cli, err, "qp stats") : RT_EXIT_OK;
}

/* Is the next argument a reaction point parameter; which one in @i. */
static bool rt_qp_rp_param(struct rt_cli *cli, size_t *i)
{
	for (*i = 0; *i < RT_QP_RP_NPARAMS; (*i)++)
		if (rt_arg_is(cli, rt_qp_rp_params[*i].kw))
			return true;
	return false;
}

static int rt_qp_set(struct rt_cli *cli)
{
	char dev[RT_NAME_LEN] = "";
	uint32_t table_max = 0, linger = 0, verify = 0, gap = 0;
	bool has_linger = false, has_verify = false, has_gap = false;
	uint32_t rpv[RT_QP_RP_NPARAMS];
	bool has_rpv[RT_QP_RP_NPARAMS] = { false };
	const char *first_kw = NULL;
	bool has_rpp = false;
	int acct = -1, np = -1, rp = -1, err = 0;
	struct nl_msg *msg;
	size_t i;

	while (!err && rt_arg_peek(cli)) {
		if (rt_arg_is(cli, "dev")) {
			rt_arg_next(cli);
			err = rt_arg_dev(cli, "dev", dev, NULL, false);
		} else if (rt_arg_is(cli, "accounting")) {
			err = rt_qp_arg_onoff(cli, "accounting", &acct);
		} else if (rt_arg_is(cli, "np")) {
			err = rt_qp_arg_onoff(cli, "np", &np);
		} else if (rt_arg_is(cli, "np-min-cnp-gap-us")) {
			rt_arg_next(cli);
			err = rt_arg_u32(cli, "np-min-cnp-gap-us", 0, UINT32_MAX,
					 &gap);
			has_gap = true;
		} else if (rt_arg_is(cli, "rp")) {
			err = rt_qp_arg_onoff(cli, "rp", &rp);
		} else if (rt_qp_rp_param(cli, &i)) {
			rt_arg_next(cli);
			err = rt_arg_u32(cli, rt_qp_rp_params[i].kw, 0,
					 UINT32_MAX, &rpv[i]);
			has_rpv[i] = true;
			if (!has_rpp)
				first_kw = rt_qp_rp_params[i].kw;
			has_rpp = true;
		} else if (rt_arg_is(cli, "table-max")) {
			rt_arg_next(cli);
			err = rt_arg_u32(cli, "table-max", 1, UINT32_MAX,
					 &table_max);
		} else if (rt_arg_is(cli, "linger-ms")) {
			rt_arg_next(cli);
			err = rt_arg_u32(cli, "linger-ms", 0, UINT32_MAX,
					 &linger);
			has_linger = true;
		} else if (rt_arg_is(cli, "verify-ms")) {
			rt_arg_next(cli);
			err = rt_arg_u32(cli, "verify-ms", 0, UINT32_MAX,
					 &verify);
			has_verify = true;
		} else {
			err = rt_arg_end(cli);
		}
	}
	if (!err && !dev[0] &&
	    (acct >= 0 || np >= 0 || has_gap || rp >= 0 || has_rpp)) {
		rt_usage_error("\"%s\" needs \"dev DEV\"",
			       acct >= 0 ? "accounting" :
			       np >= 0 ? "np" : has_gap ? "np-min-cnp-gap-us" :
			       rp >= 0 ? "rp" : first_kw);
		err = RT_EXIT_USAGE;
	}
	if (!err && acct < 0 && np < 0 && !has_gap && !table_max &&
	    !has_linger && !has_verify && rp < 0 && !has_rpp) {
		rt_usage_error("nothing to set; try \"rocetune qp help\"");
		err = RT_EXIT_USAGE;
	}
	if (!err)
		err = rt_cli_nl_open(cli);
	if (err)
		return err;
	msg = rt_nl_msg_dev(&cli->nl, ROCETUNE_CMD_QP_SET, dev, 0);
	if (!msg ||
	    (acct >= 0 && nla_put_u8(msg, ROCETUNE_A_QP_ACCT, acct)) ||
	    (np >= 0 && nla_put_u8(msg, ROCETUNE_A_QP_NP_ENABLE, np)) ||
	    (has_gap &&
	     nla_put_u32(msg, ROCETUNE_A_QP_NP_MIN_CNP_GAP_US, gap)) ||
	    (table_max && nla_put_u32(msg, ROCETUNE_A_QP_TABLE_MAX, table_max)) ||
	    (has_linger && nla_put_u32(msg, ROCETUNE_A_QP_LINGER_MS, linger)) ||
	    (has_verify && nla_put_u32(msg, ROCETUNE_A_QP_VERIFY_MS, verify)) ||
	    (rp >= 0 && nla_put_u8(msg, ROCETUNE_A_QP_RP_ENABLE, rp))) {
		nlmsg_free(msg);
		return rt_cli_nl_error(cli, -ENOMEM, "qp set");
	}
	for (i = 0; i < RT_QP_RP_NPARAMS; i++)
		if (has_rpv[i] &&
		    nla_put_u32(msg, rt_qp_rp_params[i].attr, rpv[i])) {
			nlmsg_free(msg);
			return rt_cli_nl_error(cli, -ENOMEM, "qp set");
		}
	err = rt_nl_do(&cli->nl, msg, NULL, NULL);
	return err ? rt_cli_nl_error(cli, err, "qp set") : RT_EXIT_OK;
}

static int rt_qp_help(struct rt_cli *cli)
{
	(void)cli;
	printf("Usage: rocetune [ -j [ -p ] | -o prometheus ] qp show [ dev DEV[/PORT] ] [ qpn N ]\n"
	       "                        [ top K [ by FIELD ] ] [ since GEN | changed ]\n"
	       "       rocetune qp stats [ dev DEV ]\n"
	       "       rocetune qp set [ dev DEV [ accounting { on | off } ]\n"
	       "                         [ np { on | off } ] [ np-min-cnp-gap-us US ]\n"
	       "                         [ np-cnp-dscp DSCP ] [ np-cnp-prio PRIO ]\n"
	       "                         [ rp { on | off } ] [ RP-PARAM N ]... ]\n"
	       "                       [ table-max N ] [ linger-ms MS ] [ verify-ms MS ]\n"
	       "       rocetune qp help\n"
	       "FIELD := rx_pkts | tx_pkts | rx_ecn_ce_pkts | rx_cnp_pkts | tx_cnp_pkts |\n"
	       "         tx_retransmit_pkts | rx_nak_seq_err | ... (see rocetune-qp(8))\n"
	       "RP-PARAM := rp-min-rate-mbps | rp-max-rate-mbps | rp-ai-rate-mbps |\n"
	       "            rp-hai-rate-mbps | rp-time-reset-us | rp-byte-reset-bytes |\n"
	       "            rp-threshold | rp-initial-alpha | rp-g | rp-alpha-period-us |\n"
	       "            rp-rate-reduce-period-us | rp-rate-first-cnp-mbps | rp-gd |\n"
	       "            rp-min-dec-factor-pct | rp-clamp-target | rp-clamp-target-ati\n"
	       "-o prometheus without \"top K\" or \"qpn N\" writes the top %d QPs.\n",
	       RT_QP_PROM_TOP_K);
	return RT_EXIT_OK;
}

static const struct rt_cmd rt_qp_cmds[] = {
	{ "show",	rt_qp_show },
	{ "stats",	rt_qp_stats },
	{ "set",	rt_qp_set },
	{ "help",	rt_qp_help },
	{ NULL,		NULL },
};

int rt_cmd_qp(struct rt_cli *cli)
{
	cli->object = "qp";
	return rt_cli_dispatch(cli, rt_qp_cmds);
}
