// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: tuning profiles, the values.
 *
 * One parser per kind of value (numbers, globs, priority lists, the
 * "L:R" pairs of the [Lossless] maps, booleans, keywords) and
 * rt_p_value(), which parses the value of a key into struct rt_profile
 * or reports what is wrong with it.  What keys say of each other is
 * rt_pcheck.c's.
 */
#include <string.h>
#include <strings.h>

#include "rt_pparse.h"

/*
 * [Tune] Parameter=: only a rate or a timer of DCQCN's reaction and
 * notification points is moved by a rule.  Why each other key is not:
 * NULL here is a rate or timer.  (CNPDSCP and CNPPriority move the CNPs
 * to another traffic class, where no PFC and ETS of the profile may
 * hold them; the gains, counts and modes change what DCQCN is, not how
 * fast it acts.)
 */
static const char *const rt_tune_not_tunable[RT_DCQCN_NUM] = {
	[RT_DCQCN_CNP_DSCP] =
		"it moves the CNPs to another DSCP, and so another traffic class",
	[RT_DCQCN_CNP_PRIORITY] =
		"it moves the CNPs to another priority, and so another traffic class",
	[RT_DCQCN_BYTE_RESET_BYTES] = "a byte count",
	[RT_DCQCN_THRESHOLD] = "a count of rate-increase events",
	[RT_DCQCN_INITIAL_ALPHA] = "a gain (alpha, in 1/1024)",
	[RT_DCQCN_G] = "a gain (g, in 1/1024)",
	[RT_DCQCN_GD] = "a gain (the shift of the rate decrease)",
	[RT_DCQCN_MIN_DECREASE_FACTOR_PERCENT] = "a factor",
	[RT_DCQCN_CLAMP_TARGET_RATE] = "a boolean (a mode)",
	[RT_DCQCN_CLAMP_TARGET_RATE_AFTER_TIME_INC] = "a boolean (a mode)",
	[RT_DCQCN_ENABLE] = "it turns DCQCN on or off",
};

#define RT_TUNE_TUNABLE	"MinRateMbps, MaxRateMbps, AIRateMbps, HAIRateMbps, " \
			"RateOnFirstCNPMbps, MinTimeBetweenCNPsUs, " \
			"RateReduceMonitorPeriodUs, TimeResetUs or DceTcpRttUs"

enum rt_num {
	RT_NUM_OK,
	RT_NUM_SYNTAX,
	RT_NUM_SIGN,
	RT_NUM_ZERO,
	RT_NUM_RANGE,
};

/* Decimal, no sign, no leading zero, in [min, max]. */
static enum rt_num rt_num_parse(const char *s, uint64_t min, uint64_t max,
				uint64_t *out)
{
	uint64_t v = 0;
	const char *q;

	if (*s == '-' || *s == '+')
		return RT_NUM_SIGN;
	if (!*s)
		return RT_NUM_SYNTAX;
	for (q = s; *q; q++)
		if (*q < '0' || *q > '9')
			return RT_NUM_SYNTAX;
	if (s[0] == '0' && s[1])
		return RT_NUM_ZERO;
	for (q = s; *q; q++) {
		if (v > (UINT64_MAX - 9) / 10)
			return RT_NUM_RANGE;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (v < min || v > max)
		return RT_NUM_RANGE;
	*out = v;
	return RT_NUM_OK;
}

static const char *rt_num_why(enum rt_num r)
{
	switch (r) {
	case RT_NUM_SIGN:
		return "has a sign";
	case RT_NUM_ZERO:
		return "has a leading zero";
	case RT_NUM_RANGE:
		return "is out of range";
	default:
		return "is not a decimal number";
	}
}

/* A key's whole value is one number: report with the allowed range. */
static int rt_scalar(struct rt_pstate *st, enum rt_pkey k, const char *v,
		     uint64_t min, uint64_t max, const char *extra,
		     uint64_t *out)
{
	enum rt_num r = rt_num_parse(v, min, max, out);

	if (r == RT_NUM_OK)
		return 0;
	rt_kerr(st, st->lineno, k, v, "%s (decimal %llu..%llu%s%s)",
		r == RT_NUM_RANGE ? "out of range" :
		r == RT_NUM_ZERO ? "leading zero" :
		r == RT_NUM_SIGN ? "no sign allowed" : "not a decimal number",
		(unsigned long long)min, (unsigned long long)max,
		extra ? ", " : "", extra ? extra : "");
	return -1;
}

/*
 * Next whitespace-separated token of *s into @tok (of RT_PROF_LINE_MAX + 1
 * bytes, a value is never longer).  Returns false at the end.
 */
static bool rt_token(const char **s, char *tok)
{
	const char *a = *s;
	size_t n = 0;

	while (rt_isblank(*a))
		a++;
	if (!*a)
		return false;
	while (a[n] && !rt_isblank(a[n]))
		n++;
	memcpy(tok, a, n);
	tok[n] = '\0';
	*s = a + n;
	return true;
}

static int rt_p_globs(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	char g[RT_PROF_MAX_GLOBS][RT_PROF_GLOB_LEN];
	char tok[RT_PROF_LINE_MAX + 1];
	struct rt_shown b;
	unsigned int n = 0;
	const char *s = v;
	int ret = 0;

	while (rt_token(&s, tok)) {
		if (n == RT_PROF_MAX_GLOBS) {
			rt_kerr(st, st->lineno, k, v,
				"too many globs (at most %d)",
				RT_PROF_MAX_GLOBS);
			return -1;
		}
		if (strlen(tok) >= RT_PROF_GLOB_LEN) {
			rt_kerr(st, st->lineno, k, v,
				"glob '%s' is too long (at most %d characters)",
				rt_show(&b, tok), RT_PROF_GLOB_LEN - 1);
			ret = -1;
			continue;
		}
		if (tok[0] == '!') {
			rt_kerr(st, st->lineno, k, v,
				"glob '%s': negation is not supported (globs that must match)",
				tok);
			ret = -1;
			continue;
		}
		strcpy(g[n++], tok);
	}
	if (ret)
		return ret;
	memcpy(st->p->match[k], g, sizeof(g[0]) * n);
	st->p->nmatch[k] = n;
	return 0;
}

/* A keyword of a value and what it stands for; a NULL word ends a list. */
struct rt_word {
	const char *word;
	uint32_t val;
	const char *refuse;	/* not NULL: the word is an error, why */
};

/*
 * rt_p_word() - the value in @words of keyword @v, in *@out; else the
 * error @what (which lists the keywords) and -1.
 */
static int rt_p_word(struct rt_pstate *st, enum rt_pkey k, const char *v,
		     const struct rt_word *words, const char *what,
		     uint32_t *out)
{
	for (; words->word; words++) {
		if (!strcmp(v, words->word)) {
			*out = words->val;
			return 0;
		}
	}
	rt_kerr(st, st->lineno, k, v, "%s", what);
	return -1;
}

static const struct rt_word rt_trust_words[] = {
	{ "dscp", RT_TRUST_DSCP, NULL },
	{ "pcp", RT_TRUST_PCP, NULL },
	{ NULL, 0, NULL },
};

static const struct rt_word rt_drift_words[] = {
	{ "reapply", RT_DRIFT_REAPPLY, NULL },
	{ "report", RT_DRIFT_REPORT, NULL },
	{ NULL, 0, NULL },
};

static const struct rt_word rt_wd_words[] = {
	{ "alert", RT_WD_ALERT, NULL },
	{ "timeout", RT_WD_TIMEOUT, NULL },
	{ "disable-pfc", RT_WD_DISABLE_PFC, NULL },
	{ NULL, 0, NULL },
};

static const struct rt_word rt_dir_words[] = {
	{ "increase", RT_TUNE_INCREASE, NULL },
	{ "decrease", RT_TUNE_DECREASE, NULL },
	{ NULL, 0, NULL },
};

static int rt_p_trust(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	uint32_t w;

	if (rt_p_word(st, k, v, rt_trust_words,
		      "not a trust mode (dscp or pcp)", &w))
		return -1;
	st->p->trust = w;
	return 0;
}

static int rt_p_pfc(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	const char *s = v, *e;
	char tok[RT_PROF_LINE_MAX + 1];
	unsigned int commas;
	uint8_t en = 0;
	uint64_t prio;
	enum rt_num r;
	int ret = 0;
	size_t n;

	if (!strcmp(v, "none")) {
		st->p->pfc_en = 0;
		return 0;
	}
	for (;;) {
		/* Separators: blanks with at most one comma, none at the ends. */
		e = s;
		commas = 0;
		while (rt_isblank(*s) || *s == ',')
			commas += *s++ == ',';
		if (commas > 1 || (commas && (e == v || !*s))) {
			rt_kerr(st, st->lineno, k, v,
				"empty priority between commas (priorities 0..7 separated by spaces or commas, or none)");
			return -1;
		}
		if (!*s)
			break;
		for (e = s; *e && !rt_isblank(*e) && *e != ','; e++)
			;
		n = (size_t)(e - s);
		memcpy(tok, s, n);
		tok[n] = '\0';
		s = e;
		r = rt_num_parse(tok, 0, RT_NPRIO - 1, &prio);
		if (r != RT_NUM_OK) {
			rt_kerr(st, st->lineno, k, v,
				"priority '%s' %s (priorities 0..7 separated by spaces or commas, or none)",
				tok, !strcmp(tok, "none") ?
				"cannot be combined with others" :
				rt_num_why(r));
			ret = -1;
			continue;
		}
		en |= 1u << prio;
	}
	if (!ret)
		st->p->pfc_en = en;
	return ret;
}

/* The syntax of a pairs key: "L:R" or "LO-HI:R". */
struct rt_pairs {
	const char *syntax;	/* "DSCP:PRIO or LO-HI:PRIO" */
	const char *lname;
	unsigned int lmax;
	const char *rname;
	bool rnum;		/* R may be a number in [rmin, rmax] */
	uint32_t rmin, rmax;
	const char *rnote;	/* after the range: " or unlimited" */
	const struct rt_word *words;	/* R may be one of these */
};

/*
 * Parse the pairs of @v into out[] (of @ps->lmax + 1 entries), marking each
 * index given in *given.  Later pairs win.  Every bad pair is reported.
 */
static int rt_pairs_parse(struct rt_pstate *st, enum rt_pkey k, const char *v,
			  const struct rt_pairs *ps, uint32_t *out,
			  uint64_t *given)
{
	char tok[RT_PROF_LINE_MAX + 1], l[RT_PROF_LINE_MAX + 1];
	char pair[80];
	const struct rt_word *w;
	uint64_t lo, hi, val = 0, i;
	const char *s = v;
	char *colon, *dash;
	struct rt_shown b;
	enum rt_num r;
	int ret = 0;

	*given = 0;
	while (rt_token(&s, tok)) {
		snprintf(pair, sizeof(pair), "'%s'", rt_show(&b, tok));
		if (strchr(tok, ',')) {
			rt_kerr(st, st->lineno, k, v,
				"%s: pairs are separated by blanks, not commas (%s)",
				pair, ps->syntax);
			ret = -1;
			continue;
		}
		colon = strchr(tok, ':');
		if (!colon || strchr(colon + 1, ':') || colon == tok ||
		    !colon[1]) {
			rt_kerr(st, st->lineno, k, v, "%s: not a pair (%s)",
				pair, ps->syntax);
			ret = -1;
			continue;
		}
		*colon = '\0';
		strcpy(l, tok);
		dash = strchr(l, '-');
		if (dash && dash != l) {
			*dash = '\0';
			r = rt_num_parse(l, 0, ps->lmax, &lo);
			if (r == RT_NUM_OK) {
				r = rt_num_parse(dash + 1, 0, ps->lmax, &hi);
				if (r != RT_NUM_OK) {
					rt_kerr(st, st->lineno, k, v,
						"%s: %s '%s' %s (%s, %s 0..%u)",
						pair, ps->lname, dash + 1,
						rt_num_why(r), ps->syntax,
						ps->lname, ps->lmax);
					ret = -1;
					continue;
				}
			} else {
				rt_kerr(st, st->lineno, k, v,
					"%s: %s '%s' %s (%s, %s 0..%u)", pair,
					ps->lname, l, rt_num_why(r), ps->syntax,
					ps->lname, ps->lmax);
				ret = -1;
				continue;
			}
			if (lo > hi) {
				rt_kerr(st, st->lineno, k, v,
					"%s: range %llu-%llu is empty (LO-HI with LO <= HI)",
					pair, (unsigned long long)lo,
					(unsigned long long)hi);
				ret = -1;
				continue;
			}
		} else {
			r = rt_num_parse(l, 0, ps->lmax, &lo);
			if (r != RT_NUM_OK) {
				rt_kerr(st, st->lineno, k, v,
					"%s: %s '%s' %s (%s, %s 0..%u)", pair,
					ps->lname, l, rt_num_why(r), ps->syntax,
					ps->lname, ps->lmax);
				ret = -1;
				continue;
			}
			hi = lo;
		}
		for (w = ps->words; w && w->word; w++)
			if (!strcmp(colon + 1, w->word))
				break;
		if (w && w->word) {
			if (w->refuse) {
				rt_kerr(st, st->lineno, k, v, "%s: %s", pair,
					w->refuse);
				ret = -1;
				continue;
			}
			val = w->val;
		} else {
			r = ps->rnum ? rt_num_parse(colon + 1, ps->rmin,
						    ps->rmax, &val) :
				       RT_NUM_SYNTAX;
			if (r != RT_NUM_OK) {
				char allowed[96];

				if (ps->rnum)
					snprintf(allowed, sizeof(allowed),
						 ", %s %u..%u%s", ps->rname,
						 ps->rmin, ps->rmax,
						 ps->rnote ? ps->rnote : "");
				else
					allowed[0] = '\0';
				rt_kerr(st, st->lineno, k, v,
					"%s: '%s' %s (%s%s)", pair,
					colon + 1,
					ps->rnum ? rt_num_why(r) :
						   "is not allowed",
					ps->syntax, allowed);
				ret = -1;
				continue;
			}
		}
		for (i = lo; i <= hi; i++) {
			out[i] = (uint32_t)val;
			*given |= 1ull << i;
		}
	}
	return ret;
}

static const struct rt_pairs rt_pairs_dscp = {
	.syntax = "DSCP:PRIO or LO-HI:PRIO",
	.lname = "DSCP", .lmax = RT_NDSCP - 1,
	.rname = "priority", .rnum = true, .rmin = 0, .rmax = RT_NPRIO - 1,
};

static const struct rt_pairs rt_pairs_prio_tc = {
	.syntax = "PRIO:TC or LO-HI:TC",
	.lname = "priority", .lmax = RT_NPRIO - 1,
	.rname = "TC", .rnum = true, .rmin = 0, .rmax = RT_NTC - 1,
};

static const struct rt_pairs rt_pairs_ets_bw = {
	.syntax = "TC:PERCENT",
	.lname = "TC", .lmax = RT_NTC - 1,
	.rname = "percent", .rnum = true, .rmin = 0, .rmax = 100,
};

static const struct rt_word rt_tsa_words[] = {
	{ "ets", RT_TSA_ETS, NULL },
	{ "strict", RT_TSA_STRICT, NULL },
	{ "vendor", RT_TSA_VENDOR, NULL },
	{ "cbs", RT_TSA_CBS,
	  "cbs is not supported: no RoCE NIC implements the credit-based shaper (ets, strict or vendor)" },
	{ NULL, 0, NULL },
};

static const struct rt_pairs rt_pairs_tsa = {
	.syntax = "TC:ets|strict|vendor",
	.lname = "TC", .lmax = RT_NTC - 1,
	.rname = "ets, strict or vendor", .rnum = false,
	.words = rt_tsa_words,
};

static const struct rt_word rt_unlimited_words[] = {
	{ "unlimited", 0, NULL },
	{ NULL, 0, NULL },
};

static const struct rt_pairs rt_pairs_maxrate = {
	.syntax = "TC:MBPS",
	.lname = "TC", .lmax = RT_NTC - 1,
	.rname = "Mb/s", .rnum = true, .rmin = 0, .rmax = 1000000,
	.rnote = " or unlimited; 0 is unlimited too",
	.words = rt_unlimited_words,
};

static const struct rt_pairs rt_pairs_bufsize = {
	.syntax = "BUF:BYTES",
	.lname = "buffer", .lmax = RT_NBUF - 1,
	.rname = "bytes", .rnum = true, .rmin = 0, .rmax = UINT32_MAX,
};

static const struct rt_pairs rt_pairs_prio_buf = {
	.syntax = "PRIO:BUF",
	.lname = "priority", .lmax = RT_NPRIO - 1,
	.rname = "buffer", .rnum = true, .rmin = 0, .rmax = RT_NBUF - 1,
};

static int rt_p_pairs(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	struct rt_profile *p = st->p;
	const struct rt_pairs *ps;
	uint32_t out[RT_NDSCP];
	uint64_t given;
	unsigned int i;

	switch (k) {
	case RT_PK_DSCP_TO_PRIORITY:
		ps = &rt_pairs_dscp;
		break;
	case RT_PK_PRIORITY_TO_TC:
		ps = &rt_pairs_prio_tc;
		break;
	case RT_PK_ETS_BANDWIDTH:
		ps = &rt_pairs_ets_bw;
		break;
	case RT_PK_TSA:
		ps = &rt_pairs_tsa;
		break;
	case RT_PK_MAX_RATE_MBPS:
		ps = &rt_pairs_maxrate;
		break;
	case RT_PK_BUFFER_SIZE_BYTES:
		ps = &rt_pairs_bufsize;
		break;
	default:
		ps = &rt_pairs_prio_buf;
		break;
	}
	if (rt_pairs_parse(st, k, v, ps, out, &given))
		return -1;

	/* The whole key is replaced: an index not listed gets its default. */
	for (i = 0; i <= ps->lmax; i++) {
		bool g = given & (1ull << i);

		switch (k) {
		case RT_PK_DSCP_TO_PRIORITY:
			p->dscp_prio[i] = g ? (int8_t)out[i] : -1;
			break;
		case RT_PK_PRIORITY_TO_TC:
			p->prio_tc[i] = g ? (uint8_t)out[i] : 0;
			break;
		case RT_PK_ETS_BANDWIDTH:
			p->ets_bw[i] = g ? (uint8_t)out[i] : 0;
			break;
		case RT_PK_TSA:
			p->tsa[i] = g ? (uint8_t)out[i] : RT_TSA_ETS;
			break;
		case RT_PK_MAX_RATE_MBPS:
			p->maxrate_mbps[i] = g ? out[i] : 0;
			break;
		case RT_PK_BUFFER_SIZE_BYTES:
			p->buffer_size[i] = g ? out[i] : 0;
			break;
		default:
			p->prio_buffer[i] = g ? (uint8_t)out[i] : 0;
			break;
		}
	}
	return 0;
}

static int rt_p_cable(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	uint64_t m;

	if (rt_scalar(st, k, v, 1, 999, "meters, under 1000", &m))
		return -1;
	st->p->cable_length_m = (uint16_t)m;
	return 0;
}

static int rt_p_storm(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	uint64_t ms;

	if (!strcmp(v, "auto")) {
		st->p->pfc_storm_tout = RT_PFC_STORM_AUTO;
		return 0;
	}
	if (!strcmp(v, "off")) {
		st->p->pfc_storm_tout = RT_PFC_STORM_OFF;
		return 0;
	}
	if (rt_scalar(st, k, v, RT_PFC_STORM_MIN_MS, RT_PFC_STORM_MAX_MS,
		      "auto or off", &ms))
		return -1;
	st->p->pfc_storm_tout = (uint16_t)ms;
	return 0;
}

static int rt_parse_bool(const char *v, bool *b)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (!strcasecmp(v, yes[i])) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*b = false;
			return 0;
		}
	}
	return -1;
}

static int rt_p_dcqcn(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	const struct rt_dcqcn_key *dk = &rt_dcqcn_keys[k - RT_PK_DCQCN];
	const char *extra = NULL;
	uint64_t n;
	bool b;

	if (dk->boolean) {
		if (rt_parse_bool(v, &b)) {
			rt_kerr(st, st->lineno, k, v,
				"not a boolean (yes/no/true/false/on/off/1/0)");
			return -1;
		}
		st->p->dcqcn[k - RT_PK_DCQCN] = b;
		return 0;
	}
	switch (k - RT_PK_DCQCN) {
	case RT_DCQCN_MAX_RATE_MBPS:
		extra = "0: line rate";
		break;
	case RT_DCQCN_RATE_ON_FIRST_CNP_MBPS:
		extra = "0: off";
		break;
	case RT_DCQCN_G:
	case RT_DCQCN_INITIAL_ALPHA:
		extra = "in 1/1024";
		break;
	default:
		break;
	}
	if (rt_scalar(st, k, v, dk->min, dk->max, extra, &n))
		return -1;
	st->p->dcqcn[k - RT_PK_DCQCN] = (uint32_t)n;
	return 0;
}

static int rt_p_agent(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	struct rt_profile *p = st->p;
	uint64_t n;
	uint32_t w;

	switch (k) {
	case RT_PK_AGENT_ON_DRIFT:
		if (rt_p_word(st, k, v, rt_drift_words,
			      "not a drift policy (reapply or report)", &w))
			return -1;
		p->on_drift = w;
		return 0;
	case RT_PK_AGENT_MAX_REAPPLIES:
		if (rt_scalar(st, k, v, 0, 1000, "0: never re-apply", &n))
			return -1;
		p->max_reapplies = (uint32_t)n;
		return 0;
	case RT_PK_AGENT_REAPPLY_WINDOW_SEC:
		if (rt_scalar(st, k, v, 1, 86400, "seconds", &n))
			return -1;
		p->reapply_window_s = (uint32_t)n;
		return 0;
	case RT_PK_AGENT_POLL_INTERVAL_SEC:
		if (rt_scalar(st, k, v, 1, 3600, "seconds", &n))
			return -1;
		p->poll_interval_s = (uint32_t)n;
		return 0;
	case RT_PK_AGENT_METRICS_TOP_QPS:
		if (rt_scalar(st, k, v, 0, RT_AGENT_MAX_TOP_QPS,
			      "QPs, 0: none", &n))
			return -1;
		p->metrics_top_qps = (uint32_t)n;
		return 0;
	case RT_PK_WD_ACTION:
		if (rt_p_word(st, k, v, rt_wd_words,
			      "not a storm action (alert, timeout or disable-pfc)", &w))
			return -1;
		p->wd_action = w;
		return 0;
	case RT_PK_WD_STORM_MS:
		if (rt_scalar(st, k, v, RT_WD_STORM_MIN_MS, RT_WD_STORM_MAX_MS,
			      "the module's storm-ms range", &n))
			return -1;
		p->wd_storm_ms = (uint32_t)n;
		return 0;
	case RT_PK_WD_RESTORE_AFTER_MS:
		if (rt_scalar(st, k, v, 0, 86400000, "milliseconds", &n))
			return -1;
		p->wd_restore_after_ms = (uint32_t)n;
		return 0;
	default:	/* RT_PK_WD_TIMEOUT_MS */
		if (rt_scalar(st, k, v, RT_PFC_STORM_MIN_MS,
			      RT_PFC_STORM_MAX_MS, "mlx5 pfc-prevention-tout",
			      &n))
			return -1;
		p->wd_timeout_ms = (uint16_t)n;
		return 0;
	}
}

/* A [Tune] metric: Metric= and Guard=. */
static int rt_p_metric(struct rt_pstate *st, enum rt_pkey k, const char *v,
		       unsigned int *out)
{
	unsigned int m = rt_tune_metric_parse(v);

	if (m == RT_TM_NONE) {
		rt_kerr(st, st->lineno, k, v,
			"not a metric (cnp, ecn, pause, rx-pause, tx-pause or a port counter of \"rocetune port show\": tx-cnp-pkts, out-of-sequence, ...)");
		return -1;
	}
	*out = m;
	return 0;
}

static int rt_p_tune(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	struct rt_profile *p = st->p;
	unsigned int i;
	uint64_t n;
	uint32_t w;
	int key;

	switch (k) {
	case RT_PK_TUNE_PARAMETER:
		key = rt_pkey_lookup("DCQCN", v);
		if (key < 0) {
			rt_kerr(st, st->lineno, k, v,
				"not a [DCQCN] key (RateReduceMonitorPeriodUs, MinTimeBetweenCNPsUs, AIRateMbps, ...; keys are case-sensitive)");
			return -1;
		}
		i = (unsigned int)key - RT_PK_DCQCN;
		if (rt_tune_not_tunable[i]) {
			rt_kerr(st, st->lineno, k, v,
				"not tunable: %s; a rule moves only a rate or a timer (" RT_TUNE_TUNABLE ")",
				rt_tune_not_tunable[i]);
			return -1;
		}
		p->tune_param = i;
		return 0;
	case RT_PK_TUNE_METRIC:
		return rt_p_metric(st, k, v, &p->tune_metric);
	case RT_PK_TUNE_GUARD:
		return rt_p_metric(st, k, v, &p->tune_guard);
	case RT_PK_TUNE_DIRECTION:
		if (rt_p_word(st, k, v, rt_dir_words,
			      "not a direction (increase or decrease)", &w))
			return -1;
		p->tune_dir = w;
		return 0;
	case RT_PK_TUNE_ABOVE:
	case RT_PK_TUNE_BELOW:
	case RT_PK_TUNE_GUARD_TOLERANCE:
		if (rt_scalar(st, k, v, 0, RT_TUNE_RATE_MAX, "events/s", &n))
			return -1;
		if (k == RT_PK_TUNE_BELOW && !n) {
			rt_kerr(st, st->lineno, k, v,
				"no rate is below 0, so the rule would never step back (a one-way ratchet): at least 1 events/s");
			return -1;
		}
		if (k == RT_PK_TUNE_ABOVE)
			p->tune_above = n;
		else if (k == RT_PK_TUNE_BELOW)
			p->tune_below = n;
		else
			p->tune_guard_tol = n;
		return 0;
	case RT_PK_TUNE_STEP:
		if (rt_scalar(st, k, v, 1, UINT32_MAX,
			      "in the unit of Parameter=", &n))
			return -1;
		p->tune_step = (uint32_t)n;
		return 0;
	case RT_PK_TUNE_MIN:
	case RT_PK_TUNE_MAX:
		if (rt_scalar(st, k, v, 0, UINT32_MAX,
			      "in the unit of Parameter=", &n))
			return -1;
		if (k == RT_PK_TUNE_MIN)
			p->tune_min = (uint32_t)n;
		else
			p->tune_max = (uint32_t)n;
		return 0;
	case RT_PK_TUNE_COOLDOWN_MS:
		if (rt_scalar(st, k, v, 0, 86400000, "milliseconds", &n))
			return -1;
		if (n < RT_TUNE_MIN_COOLDOWN_MS) {
			rt_kerr(st, st->lineno, k, v,
				"at least %u ms between two writes (at most %u an hour; CooldownMs=0 with IntervalMs=100 is 36000)",
				RT_TUNE_MIN_COOLDOWN_MS,
				3600000 / RT_TUNE_MIN_COOLDOWN_MS);
			return -1;
		}
		p->tune_cooldown_ms = (uint32_t)n;
		return 0;
	case RT_PK_TUNE_MAX_WRITES_PER_HOUR:
		if (rt_scalar(st, k, v, 2, RT_TUNE_MAX_WRITES_PER_HOUR,
			      "writes in any hour, a step and its revert at least",
			      &n))
			return -1;
		p->tune_max_writes_h = (uint32_t)n;
		return 0;
	default:	/* RT_PK_TUNE_INTERVAL_MS */
		if (rt_scalar(st, k, v, RT_TUNE_MIN_INTERVAL_MS, 3600000,
			      "milliseconds", &n))
			return -1;
		p->tune_interval_ms = (uint32_t)n;
		return 0;
	}
}

/* [Verify]: durations, a percentage of the time paused, rates. */
static int rt_p_verify(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	struct rt_profile *p = st->p;
	uint64_t n;

	switch (k) {
	case RT_PK_VERIFY_FOR_SEC:
		if (rt_scalar(st, k, v, 1, RT_VERIFY_MAX_FOR_S, "seconds", &n))
			return -1;
		p->verify_for_s = (uint32_t)n;
		return 0;
	case RT_PK_VERIFY_BASELINE_SEC:
		if (rt_scalar(st, k, v, 1, RT_VERIFY_MAX_BASELINE_S, "seconds",
			      &n))
			return -1;
		p->verify_baseline_s = (uint32_t)n;
		return 0;
	case RT_PK_VERIFY_INTERVAL_MS:
		if (rt_scalar(st, k, v, RT_VERIFY_MIN_INTERVAL_MS,
			      RT_VERIFY_MAX_INTERVAL_MS, "milliseconds", &n))
			return -1;
		p->verify_interval_ms = (uint32_t)n;
		return 0;
	case RT_PK_VERIFY_MAX_PAUSE_PERCENT:
	case RT_PK_VERIFY_PAUSE_MARGIN_PERCENT:
		if (rt_scalar(st, k, v, 0, 100,
			      "percent of the time a priority is paused", &n))
			return -1;
		if (k == RT_PK_VERIFY_MAX_PAUSE_PERCENT)
			p->verify_max_pause_pct = (uint32_t)n;
		else
			p->verify_pause_margin_pct = (uint32_t)n;
		return 0;
	default:
		if (rt_scalar(st, k, v, 0, RT_TUNE_RATE_MAX, "events/s", &n))
			return -1;
		if (k == RT_PK_VERIFY_MAX_CNP_RATE)
			p->verify_max_cnp = n;
		else if (k == RT_PK_VERIFY_CNP_RATE_MARGIN)
			p->verify_cnp_margin = n;
		else if (k == RT_PK_VERIFY_MAX_RETRANS_RATE)
			p->verify_max_retrans = n;
		else
			p->verify_retrans_margin = n;
		return 0;
	}
}

int rt_p_value(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	if (k >= RT_PK_VERIFY_FOR_SEC)
		return rt_p_verify(st, k, v);
	if (k >= RT_PK_TUNE_PARAMETER)
		return rt_p_tune(st, k, v);
	if (k >= RT_PK_AGENT_ON_DRIFT)
		return rt_p_agent(st, k, v);
	switch (k) {
	case RT_PK_MATCH_NAME:
	case RT_PK_MATCH_DRIVER:
	case RT_PK_MATCH_RDMA_DEVICE:
	case RT_PK_MATCH_PCI_ADDRESS:
		return rt_p_globs(st, k, v);
	case RT_PK_TRUST:
		return rt_p_trust(st, k, v);
	case RT_PK_PFC:
		return rt_p_pfc(st, k, v);
	case RT_PK_CABLE_LENGTH_METERS:
		return rt_p_cable(st, k, v);
	case RT_PK_PFC_STORM_TIMEOUT_MS:
		return rt_p_storm(st, k, v);
	case RT_PK_DSCP_TO_PRIORITY:
	case RT_PK_PRIORITY_TO_TC:
	case RT_PK_ETS_BANDWIDTH:
	case RT_PK_TSA:
	case RT_PK_MAX_RATE_MBPS:
	case RT_PK_BUFFER_SIZE_BYTES:
	case RT_PK_PRIORITY_TO_BUFFER:
		return rt_p_pairs(st, k, v);
	default:
		return rt_p_dcqcn(st, k, v);
	}
}

/* What @k takes, for "needs a value". */
const char *rt_allowed(enum rt_pkey k, char *buf, size_t len)
{
	const struct rt_dcqcn_key *dk;

	switch (k) {
	case RT_PK_MATCH_NAME:
	case RT_PK_MATCH_DRIVER:
	case RT_PK_MATCH_RDMA_DEVICE:
	case RT_PK_MATCH_PCI_ADDRESS:
		return "1 to 8 globs separated by blanks";
	case RT_PK_TRUST:
		return "dscp or pcp";
	case RT_PK_PFC:
		return "priorities 0..7 separated by spaces or commas, or none";
	case RT_PK_DSCP_TO_PRIORITY:
		return rt_pairs_dscp.syntax;
	case RT_PK_PRIORITY_TO_TC:
		return rt_pairs_prio_tc.syntax;
	case RT_PK_ETS_BANDWIDTH:
		return rt_pairs_ets_bw.syntax;
	case RT_PK_TSA:
		return rt_pairs_tsa.syntax;
	case RT_PK_MAX_RATE_MBPS:
		return rt_pairs_maxrate.syntax;
	case RT_PK_BUFFER_SIZE_BYTES:
		return rt_pairs_bufsize.syntax;
	case RT_PK_PRIORITY_TO_BUFFER:
		return rt_pairs_prio_buf.syntax;
	case RT_PK_CABLE_LENGTH_METERS:
		return "decimal 1..999";
	case RT_PK_PFC_STORM_TIMEOUT_MS:
		return "decimal 80..8000, auto or off";
	case RT_PK_AGENT_ON_DRIFT:
		return "reapply or report";
	case RT_PK_AGENT_MAX_REAPPLIES:
		return "decimal 0..1000";
	case RT_PK_AGENT_REAPPLY_WINDOW_SEC:
		return "decimal 1..86400";
	case RT_PK_AGENT_POLL_INTERVAL_SEC:
		return "decimal 1..3600";
	case RT_PK_AGENT_METRICS_TOP_QPS:
		return "decimal 0..1000";
	case RT_PK_TUNE_PARAMETER:
		return "a rate or timer [DCQCN] key";
	case RT_PK_TUNE_METRIC:
	case RT_PK_TUNE_GUARD:
		return "cnp, ecn, pause, rx-pause, tx-pause or a port counter";
	case RT_PK_TUNE_DIRECTION:
		return "increase or decrease";
	case RT_PK_TUNE_ABOVE:
	case RT_PK_TUNE_BELOW:
	case RT_PK_TUNE_GUARD_TOLERANCE:
		return "decimal events/s";
	case RT_PK_TUNE_STEP:
		return "decimal 1..4294967295";
	case RT_PK_TUNE_MIN:
	case RT_PK_TUNE_MAX:
		return "decimal 0..4294967295";
	case RT_PK_TUNE_COOLDOWN_MS:
		return "decimal 1000..86400000";
	case RT_PK_TUNE_MAX_WRITES_PER_HOUR:
		return "decimal 2..600";
	case RT_PK_TUNE_INTERVAL_MS:
		return "decimal 100..3600000";
	case RT_PK_VERIFY_FOR_SEC:
		return "decimal seconds 1..86400";
	case RT_PK_VERIFY_BASELINE_SEC:
		return "decimal seconds 1..3600";
	case RT_PK_VERIFY_INTERVAL_MS:
		return "decimal 100..60000";
	case RT_PK_VERIFY_MAX_PAUSE_PERCENT:
	case RT_PK_VERIFY_PAUSE_MARGIN_PERCENT:
		return "decimal percent 0..100";
	case RT_PK_VERIFY_MAX_CNP_RATE:
	case RT_PK_VERIFY_CNP_RATE_MARGIN:
	case RT_PK_VERIFY_MAX_RETRANS_RATE:
	case RT_PK_VERIFY_RETRANS_RATE_MARGIN:
		return "decimal events/s";
	case RT_PK_WD_ACTION:
		return "alert, timeout or disable-pfc";
	case RT_PK_WD_STORM_MS:
		return "decimal 10..600000";
	case RT_PK_WD_RESTORE_AFTER_MS:
		return "decimal 0..86400000";
	case RT_PK_WD_TIMEOUT_MS:
		return "decimal 80..8000";
	default:
		dk = &rt_dcqcn_keys[k - RT_PK_DCQCN];
		if (dk->boolean)
			return "yes/no/true/false/on/off/1/0";
		snprintf(buf, len, "decimal %u..%u", dk->min, dk->max);
		return buf;
	}
}
