// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: tuning profiles (parser, checker, matcher).
 *
 * The reader takes one physical line at a time, so its line count is the
 * line of every key.  It takes leading blanks off every line (an indented
 * line is never the continuation of the previous value), refuses inline
 * ';' comments, "Key: value" lines, control characters and over-long
 * lines, and keeps track of the section, so that an unknown or empty
 * section is an error even when no key follows it.
 * Documentation/profiles.rst is the reference of every key.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_counters.h"
#include "rt_profile.h"

/* In enum rt_dcqcn_param order. */
const struct rt_dcqcn_key rt_dcqcn_keys[RT_DCQCN_NUM] = {
	[RT_DCQCN_CNP_DSCP] = { "CNPDSCP", 0, 63, false },
	[RT_DCQCN_CNP_PRIORITY] = { "CNPPriority", 0, 7, false },
	[RT_DCQCN_MIN_TIME_BETWEEN_CNPS_US] = {
		"MinTimeBetweenCNPsUs", 0, UINT32_MAX, false },
	[RT_DCQCN_RATE_REDUCE_MONITOR_PERIOD_US] = {
		"RateReduceMonitorPeriodUs", 0, UINT32_MAX, false },
	[RT_DCQCN_MIN_RATE_MBPS] = { "MinRateMbps", 0, UINT32_MAX, false },
	[RT_DCQCN_MAX_RATE_MBPS] = { "MaxRateMbps", 0, UINT32_MAX, false },
	[RT_DCQCN_AI_RATE_MBPS] = { "AIRateMbps", 0, UINT32_MAX, false },
	[RT_DCQCN_HAI_RATE_MBPS] = { "HAIRateMbps", 0, UINT32_MAX, false },
	[RT_DCQCN_TIME_RESET_US] = { "TimeResetUs", 0, UINT32_MAX, false },
	[RT_DCQCN_BYTE_RESET_BYTES] = {
		"ByteResetBytes", 0, UINT32_MAX, false },
	[RT_DCQCN_THRESHOLD] = { "Threshold", 1, 31, false },
	[RT_DCQCN_INITIAL_ALPHA] = { "InitialAlpha", 0, 1023, false },
	[RT_DCQCN_G] = { "G", 0, 1023, false },
	[RT_DCQCN_GD] = { "GD", 0, 15, false },
	[RT_DCQCN_MIN_DECREASE_FACTOR_PERCENT] = {
		"MinDecreaseFactorPercent", 1, 100, false },
	[RT_DCQCN_RATE_ON_FIRST_CNP_MBPS] = {
		"RateOnFirstCNPMbps", 0, UINT32_MAX, false },
	[RT_DCQCN_CLAMP_TARGET_RATE] = { "ClampTargetRate", 0, 1, true },
	[RT_DCQCN_CLAMP_TARGET_RATE_AFTER_TIME_INC] = {
		"ClampTargetRateAfterTimeInc", 0, 1, true },
	[RT_DCQCN_DCE_TCP_RTT_US] = { "DceTcpRttUs", 1, 131071, false },
	[RT_DCQCN_ENABLE] = { "Enable", 0, 1, true },
};

/* In enum rt_pkey order, up to RT_PK_DCQCN. */
static const char *const rt_pkey_names[RT_PK_DCQCN] = {
	[RT_PK_MATCH_NAME] = "Name",
	[RT_PK_MATCH_DRIVER] = "Driver",
	[RT_PK_MATCH_RDMA_DEVICE] = "RdmaDevice",
	[RT_PK_MATCH_PCI_ADDRESS] = "PciAddress",
	[RT_PK_TRUST] = "Trust",
	[RT_PK_PFC] = "PFC",
	[RT_PK_DSCP_TO_PRIORITY] = "DSCPToPriority",
	[RT_PK_PRIORITY_TO_TC] = "PriorityToTC",
	[RT_PK_ETS_BANDWIDTH] = "ETSBandwidth",
	[RT_PK_TSA] = "TSA",
	[RT_PK_MAX_RATE_MBPS] = "MaxRateMbps",
	[RT_PK_BUFFER_SIZE_BYTES] = "BufferSizeBytes",
	[RT_PK_PRIORITY_TO_BUFFER] = "PriorityToBuffer",
	[RT_PK_CABLE_LENGTH_METERS] = "CableLengthMeters",
	[RT_PK_PFC_STORM_TIMEOUT_MS] = "PFCStormTimeoutMs",
};

/* In enum rt_pkey order, from RT_PK_AGENT_ON_DRIFT. */
static const char *const rt_pkey_agent_names[RT_PK_NUM - RT_PK_AGENT_ON_DRIFT] = {
	[RT_PK_AGENT_ON_DRIFT - RT_PK_AGENT_ON_DRIFT] = "OnDrift",
	[RT_PK_AGENT_MAX_REAPPLIES - RT_PK_AGENT_ON_DRIFT] = "MaxReapplies",
	[RT_PK_AGENT_REAPPLY_WINDOW_SEC - RT_PK_AGENT_ON_DRIFT] =
		"ReapplyWindowSec",
	[RT_PK_AGENT_POLL_INTERVAL_SEC - RT_PK_AGENT_ON_DRIFT] =
		"PollIntervalSec",
	[RT_PK_AGENT_METRICS_TOP_QPS - RT_PK_AGENT_ON_DRIFT] =
		"MetricsTopQPs",
	[RT_PK_WD_ACTION - RT_PK_AGENT_ON_DRIFT] = "Action",
	[RT_PK_WD_STORM_MS - RT_PK_AGENT_ON_DRIFT] = "StormMs",
	[RT_PK_WD_RESTORE_AFTER_MS - RT_PK_AGENT_ON_DRIFT] = "RestoreAfterMs",
	[RT_PK_WD_TIMEOUT_MS - RT_PK_AGENT_ON_DRIFT] = "TimeoutMs",
	[RT_PK_TUNE_PARAMETER - RT_PK_AGENT_ON_DRIFT] = "Parameter",
	[RT_PK_TUNE_METRIC - RT_PK_AGENT_ON_DRIFT] = "Metric",
	[RT_PK_TUNE_DIRECTION - RT_PK_AGENT_ON_DRIFT] = "Direction",
	[RT_PK_TUNE_ABOVE - RT_PK_AGENT_ON_DRIFT] = "Above",
	[RT_PK_TUNE_BELOW - RT_PK_AGENT_ON_DRIFT] = "Below",
	[RT_PK_TUNE_STEP - RT_PK_AGENT_ON_DRIFT] = "Step",
	[RT_PK_TUNE_MIN - RT_PK_AGENT_ON_DRIFT] = "Min",
	[RT_PK_TUNE_MAX - RT_PK_AGENT_ON_DRIFT] = "Max",
	[RT_PK_TUNE_COOLDOWN_MS - RT_PK_AGENT_ON_DRIFT] = "CooldownMs",
	[RT_PK_TUNE_INTERVAL_MS - RT_PK_AGENT_ON_DRIFT] = "IntervalMs",
	[RT_PK_TUNE_GUARD - RT_PK_AGENT_ON_DRIFT] = "Guard",
	[RT_PK_TUNE_GUARD_TOLERANCE - RT_PK_AGENT_ON_DRIFT] = "GuardTolerance",
	[RT_PK_TUNE_MAX_WRITES_PER_HOUR - RT_PK_AGENT_ON_DRIFT] =
		"MaxWritesPerHour",
};

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

/*
 * The [DCQCN] keys whose 0 is no value but another mode: a rule may not
 * reach it (Min= at least 1).
 */
static const char *const rt_dcqcn_zero_mode[RT_DCQCN_NUM] = {
	[RT_DCQCN_MAX_RATE_MBPS] = "line rate",
	[RT_DCQCN_RATE_ON_FIRST_CNP_MBPS] = "off",
};

/*
 * The pairs of [DCQCN] keys that a profile orders, lo <= hi (0 of hi:
 * no bound, when rt_dcqcn_zero_mode[hi]).  rt_check_profile() checks the
 * profile's own values; a [Tune] rule of one of them must stay within
 * the other's value all the way from Min= to Max=.
 */
static const struct {
	enum rt_dcqcn_param lo, hi;
} rt_dcqcn_order[] = {
	{ RT_DCQCN_MIN_RATE_MBPS, RT_DCQCN_MAX_RATE_MBPS },
};

/* The metrics of [Tune] that add counters up, by enum rt_tune_metric. */
static const char *const rt_tune_metric_names[] = {
	[RT_TM_CNP] = "cnp",
	[RT_TM_ECN] = "ecn",
	[RT_TM_PAUSE] = "pause",
	[RT_TM_RX_PAUSE] = "rx-pause",
	[RT_TM_TX_PAUSE] = "tx-pause",
};

const char *rt_tune_metric_name(unsigned int m)
{
	const struct rt_counter_desc *d;

	if (m >= RT_TM_CNT) {
		d = rt_counter_by_attr(m - RT_TM_CNT);
		return d ? d->label : NULL;
	}
	if (m < ARRAY_SIZE(rt_tune_metric_names))
		return rt_tune_metric_names[m];
	return NULL;
}

unsigned int rt_tune_metric_parse(const char *s)
{
	unsigned int m;
	size_t i;

	for (m = RT_TM_NONE + 1; m < ARRAY_SIZE(rt_tune_metric_names); m++)
		if (rt_tune_metric_names[m] && !strcmp(s, rt_tune_metric_names[m]))
			return m;
	for (i = 0; i < rt_counter_ndescs; i++)
		if (!strcmp(s, rt_counter_descs[i].label))
			return RT_TM_CNT + rt_counter_descs[i].attr;
	return RT_TM_NONE;
}

const char *rt_on_drift_name(enum rt_on_drift d)
{
	return d == RT_DRIFT_REPORT ? "report" : "reapply";
}

const char *rt_wd_action_name(enum rt_wd_action a)
{
	switch (a) {
	case RT_WD_TIMEOUT:
		return "timeout";
	case RT_WD_DISABLE_PFC:
		return "disable-pfc";
	default:
		return "alert";
	}
}

enum rt_psec {
	RT_SEC_NONE,		/* before the first section */
	RT_SEC_MATCH,
	RT_SEC_LOSSLESS,
	RT_SEC_DCQCN,
	RT_SEC_AGENT,
	RT_SEC_WATCHDOG,
	RT_SEC_TUNE,
	RT_SEC_BAD,		/* after an unknown or malformed header */
};

static const char *const rt_sec_names[] = {
	[RT_SEC_MATCH] = "Match",
	[RT_SEC_LOSSLESS] = "Lossless",
	[RT_SEC_DCQCN] = "DCQCN",
	[RT_SEC_AGENT] = "Agent",
	[RT_SEC_WATCHDOG] = "Watchdog",
	[RT_SEC_TUNE] = "Tune",
};

#define RT_SEC_LIST	"[Match], [Lossless], [DCQCN], [Agent], [Watchdog] or [Tune]"


static enum rt_psec rt_pkey_sec(enum rt_pkey k)
{
	if (k < RT_PK_MATCH_NUM)
		return RT_SEC_MATCH;
	if (k < RT_PK_DCQCN)
		return RT_SEC_LOSSLESS;
	if (k < RT_PK_AGENT_ON_DRIFT)
		return RT_SEC_DCQCN;
	if (k < RT_PK_WD_ACTION)
		return RT_SEC_AGENT;
	if (k < RT_PK_TUNE_PARAMETER)
		return RT_SEC_WATCHDOG;
	return RT_SEC_TUNE;
}

const char *rt_pkey_name(enum rt_pkey k)
{
	if ((unsigned int)k < RT_PK_DCQCN)
		return rt_pkey_names[k];
	if ((unsigned int)k < RT_PK_AGENT_ON_DRIFT)
		return rt_dcqcn_keys[k - RT_PK_DCQCN].key;
	if ((unsigned int)k < RT_PK_NUM)
		return rt_pkey_agent_names[k - RT_PK_AGENT_ON_DRIFT];
	return NULL;
}

const char *rt_pkey_section(enum rt_pkey k)
{
	if ((unsigned int)k >= RT_PK_NUM)
		return NULL;
	return rt_sec_names[rt_pkey_sec(k)];
}

int rt_pkey_lookup(const char *section, const char *key)
{
	unsigned int k;

	for (k = 0; k < RT_PK_NUM; k++) {
		if (strcmp(rt_pkey_name(k), key))
			continue;
		if (!section || !strcmp(rt_pkey_section(k), section))
			return k;
	}
	return -1;
}

/* ---- diagnostics ---- */

void rt_diag_add(struct rt_diag *d, const char *fmt, ...)
{
	va_list ap;

	if (d->n < RT_DIAG_MAX) {
		va_start(ap, fmt);
		vsnprintf(d->msg[d->n], RT_DIAG_LEN, fmt, ap);
		va_end(ap);
	}
	d->n++;
}

void rt_diag_print(const struct rt_diag *d, FILE *f)
{
	unsigned int i;

	for (i = 0; i < d->n && i < RT_DIAG_MAX; i++)
		fprintf(f, "%s\n", d->msg[i]);
	if (d->n > RT_DIAG_MAX)
		fprintf(f, "... and %u more errors\n", d->n - RT_DIAG_MAX);
}

/* ---- the parse state ---- */

struct rt_pstate {
	const char *path;
	FILE *f;
	struct rt_profile *p;
	struct rt_diag *d;
	unsigned int nerr;		/* errors of this file */
	unsigned int lineno;		/* of the line last read */
	int read_errno;
	size_t bytes;			/* read so far */
	enum rt_psec sec;
	bool seen_match;	/* or a bad header that meant it */
	unsigned int tune_line;	/* of the first [Tune] header, 0: none */
	/* The key line last read, for rt_key(). */
	char line[RT_PROF_LINE_MAX + 1];
	const char *key;
	const char *val;
	/* Per key: the last value given (for messages) and whether it failed. */
	char *text[RT_PK_NUM];
	bool bad[RT_PK_NUM];
};

/* A value as shown in a message: at most 64 characters. */
struct rt_shown {
	char s[72];
};

static const char *rt_show(struct rt_shown *b, const char *v)
{
	size_t n = strlen(v);

	if (n <= 64)
		return v;
	snprintf(b->s, sizeof(b->s), "%.61s...", v);
	return b->s;
}

static void rt_perr(struct rt_pstate *st, unsigned int line,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void rt_perr(struct rt_pstate *st, unsigned int line,
		    const char *fmt, ...)
{
	char msg[RT_DIAG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rt_diag_add(st->d, "%s:%u: %s", st->path, line, msg);
	st->nerr++;
}

/* "FILE:LINE: [Section] Key=value: what is wrong (what is allowed)" */
static void rt_kerr(struct rt_pstate *st, unsigned int line, enum rt_pkey k,
		    const char *val, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void rt_kerr(struct rt_pstate *st, unsigned int line, enum rt_pkey k,
		    const char *val, const char *fmt, ...)
{
	char msg[RT_DIAG_LEN];
	struct rt_shown b;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rt_perr(st, line, "[%s] %s=%s: %s", rt_pkey_section(k),
		rt_pkey_name(k), rt_show(&b, val), msg);
}

/* ---- values ---- */

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

static bool rt_isblank(char c)
{
	return c == ' ' || c == '\t';
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

static int rt_p_trust(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
	if (!strcmp(v, "dscp")) {
		st->p->trust = RT_TRUST_DSCP;
	} else if (!strcmp(v, "pcp")) {
		st->p->trust = RT_TRUST_PCP;
	} else {
		rt_kerr(st, st->lineno, k, v,
			"not a trust mode (dscp or pcp)");
		return -1;
	}
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

struct rt_word {
	const char *word;
	uint32_t val;
	const char *refuse;	/* not NULL: the word is an error, why */
};

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

	switch (k) {
	case RT_PK_AGENT_ON_DRIFT:
		if (!strcmp(v, "reapply")) {
			p->on_drift = RT_DRIFT_REAPPLY;
		} else if (!strcmp(v, "report")) {
			p->on_drift = RT_DRIFT_REPORT;
		} else {
			rt_kerr(st, st->lineno, k, v,
				"not a drift policy (reapply or report)");
			return -1;
		}
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
		if (!strcmp(v, "alert")) {
			p->wd_action = RT_WD_ALERT;
		} else if (!strcmp(v, "timeout")) {
			p->wd_action = RT_WD_TIMEOUT;
		} else if (!strcmp(v, "disable-pfc")) {
			p->wd_action = RT_WD_DISABLE_PFC;
		} else {
			rt_kerr(st, st->lineno, k, v,
				"not a storm action (alert, timeout or disable-pfc)");
			return -1;
		}
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
		if (!strcmp(v, "increase")) {
			p->tune_dir = RT_TUNE_INCREASE;
		} else if (!strcmp(v, "decrease")) {
			p->tune_dir = RT_TUNE_DECREASE;
		} else {
			rt_kerr(st, st->lineno, k, v,
				"not a direction (increase or decrease)");
			return -1;
		}
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

static int rt_p_value(struct rt_pstate *st, enum rt_pkey k, const char *v)
{
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
static const char *rt_allowed(enum rt_pkey k, char *buf, size_t len)
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

/* ---- lines, sections and keys ---- */

static const char *rt_sec_keys(enum rt_psec s)
{
	switch (s) {
	case RT_SEC_MATCH:
		return "Name, Driver, RdmaDevice, PciAddress";
	case RT_SEC_LOSSLESS:
		return "Trust, PFC, DSCPToPriority, PriorityToTC, "
		       "ETSBandwidth, TSA, MaxRateMbps, BufferSizeBytes, "
		       "PriorityToBuffer, CableLengthMeters, PFCStormTimeoutMs";
	case RT_SEC_AGENT:
		return "OnDrift, MaxReapplies, ReapplyWindowSec, PollIntervalSec, MetricsTopQPs";
	case RT_SEC_WATCHDOG:
		return "Action, StormMs, RestoreAfterMs, TimeoutMs";
	case RT_SEC_TUNE:
		return "Parameter, Metric, Direction, Above, Below, Step, Min, Max, CooldownMs, IntervalMs, Guard, GuardTolerance, MaxWritesPerHour";
	default:
		return "see the [DCQCN] table of Documentation/profiles.rst";
	}
}

/* The Key=value line that rt_read_line() left in st->key and st->val. */
static void rt_key(struct rt_pstate *st)
{
	const char *key = st->key, *v = st->val;
	struct rt_shown b;
	unsigned int k;
	int other = -1;

	st->key = NULL;

	if (!*key) {
		rt_perr(st, st->lineno, "=%s: no key before '=' (Key=value)",
			rt_show(&b, v));
		return;
	}
	for (k = 0; k < RT_PK_NUM; k++) {
		if (strcmp(rt_pkey_name(k), key))
			continue;
		if (st->sec != RT_SEC_NONE && rt_pkey_sec(k) == st->sec)
			break;
		other = (int)k;
	}
	if (st->sec == RT_SEC_BAD)
		return;	/* the section header was reported */
	if (st->sec == RT_SEC_NONE) {
		if (other >= 0)
			rt_perr(st, st->lineno,
				"%s=%s: key outside a section (it belongs in [%s])",
				key, rt_show(&b, v), rt_pkey_section(other));
		else
			rt_perr(st, st->lineno,
				"%s=%s: key outside a section (keys go in " RT_SEC_LIST ")",
				key, rt_show(&b, v));
		return;
	}
	if (k == RT_PK_NUM) {
		if (other >= 0) {
			rt_perr(st, st->lineno,
				"[%s] %s=%s: key in the wrong section (it belongs in [%s])",
				rt_sec_names[st->sec], key, rt_show(&b, v),
				rt_pkey_section(other));
			return;
		}
		for (k = 0; k < RT_PK_NUM; k++)
			if (rt_pkey_sec(k) == st->sec &&
			    !strcasecmp(rt_pkey_name(k), key))
				break;
		if (k < RT_PK_NUM)
			rt_perr(st, st->lineno,
				"[%s] %s=%s: unknown key (did you mean %s? keys are case-sensitive)",
				rt_sec_names[st->sec], key, rt_show(&b, v),
				rt_pkey_name(k));
		else
			rt_perr(st, st->lineno,
				"[%s] %s=%s: unknown key (%s)",
				rt_sec_names[st->sec], key, rt_show(&b, v),
				rt_sec_keys(st->sec));
		return;
	}
	if (!*v) {
		char buf[64];

		rt_kerr(st, st->lineno, k, v, "needs a value (%s)",
			rt_allowed(k, buf, sizeof(buf)));
		st->bad[k] = true;
		return;
	}
	if (rt_p_value(st, k, v)) {
		st->bad[k] = true;
		return;
	}
	/* A key given again: the later one wins, as in systemd. */
	st->bad[k] = false;
	st->p->line[k] = st->lineno;
	free(st->text[k]);
	st->text[k] = strdup(v);
	if (!st->text[k] && !st->read_errno)
		st->read_errno = ENOMEM;
}

/* A "[Section]" line (already trimmed). */
static void rt_section(struct rt_pstate *st, char *s)
{
	size_t n = strlen(s);
	struct rt_shown b;
	unsigned int i;

	st->sec = RT_SEC_BAD;
	/* "[match]" or "[Match] x" is one error, not also "no [Match]". */
	for (i = 0; s[i]; i++)
		if (!strncasecmp(s + i, "match", 5))
			st->seen_match = true;
	if (s[n - 1] != ']' || strchr(s + 1, '[') ||
	    strchr(s, ']') != s + n - 1) {
		rt_perr(st, st->lineno,
			"%s: malformed section header (" RT_SEC_LIST " alone on the line)",
			rt_show(&b, s));
		return;
	}
	s[n - 1] = '\0';
	for (i = RT_SEC_MATCH; i < RT_SEC_BAD; i++) {
		if (!strcmp(s + 1, rt_sec_names[i])) {
			st->sec = i;
			if (i == RT_SEC_MATCH)
				st->seen_match = true;
			if (i == RT_SEC_TUNE && !st->tune_line)
				st->tune_line = st->lineno;
			break;
		}
	}
	if (st->sec == RT_SEC_BAD)
		rt_perr(st, st->lineno,
			"[%s]: unknown section (" RT_SEC_LIST "; section names are case-sensitive)",
			rt_show(&b, s + 1));
	s[n - 1] = ']';
}

/*
 * Read and judge the next physical line: a Key=value line is left in
 * st->key and st->val for rt_key().  Returns false at the end of the
 * file or on a read error (st->read_errno).
 */
static bool rt_read_line(struct rt_pstate *st)
{
	size_t len = 0, i, col = 0;
	bool any = false, toolong = false;
	int c, ctl = -1;
	char *s, *e, *eq;
	struct rt_shown b;

	if (st->read_errno)
		return false;
	for (;;) {
		c = getc(st->f);
		if (c == EOF)
			break;
		/* /dev/zero, a FIFO that never ends: no profile is this long. */
		if (++st->bytes > RT_PROF_SIZE_MAX) {
			st->read_errno = EFBIG;
			return false;
		}
		any = true;
		if (c == '\n')
			break;
		if (len < RT_PROF_LINE_MAX)
			st->line[len++] = (char)c;
		else
			toolong = true;
	}
	if (!any) {
		if (ferror(st->f))
			st->read_errno = errno ? errno : EIO;
		return false;
	}
	st->lineno++;
	st->key = NULL;
	if (toolong) {
		rt_perr(st, st->lineno,
			"line too long (at most %d characters)",
			RT_PROF_LINE_MAX);
		return true;
	}
	if (len && st->line[len - 1] == '\r')
		len--;		/* CRLF */
	for (i = 0; i < len; i++) {
		unsigned char u = (unsigned char)st->line[i];

		if ((u < 0x20 && u != '\t') || u == 0x7f) {
			ctl = u;
			col = i + 1;
			break;
		}
	}
	if (ctl >= 0) {
		rt_perr(st, st->lineno,
			"control character 0x%02x in column %zu (a profile is text)",
			ctl, col);
		return true;
	}
	st->line[len] = '\0';
	s = st->line;
	if (st->lineno == 1 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	while (rt_isblank(*s))
		s++;
	e = s + strlen(s);
	while (e > s && rt_isblank(e[-1]))
		*--e = '\0';

	if (!*s || *s == '#' || *s == ';')
		return true;
	if (*s == '[') {
		rt_section(st, s);
		return true;
	}
	eq = s + strcspn(s, "=:");
	if (!*eq) {
		rt_perr(st, st->lineno,
			"'%s': neither Key=value nor [Section] nor a comment",
			rt_show(&b, s));
		return true;
	}
	if (*eq == ':') {
		rt_perr(st, st->lineno,
			"'%s': no '=' before the first ':' (Key=value)",
			rt_show(&b, s));
		return true;
	}
	if (strchr(s, ';')) {
		rt_perr(st, st->lineno,
			"'%s': ';' inside a line (comments are whole lines starting with '#' or ';')",
			rt_show(&b, s));
		return true;
	}
	/* Key=value: rt_key() reads them from here. */
	*eq = '\0';
	for (e = eq; e > s && rt_isblank(e[-1]); )
		*--e = '\0';
	st->key = s;
	for (st->val = eq + 1; rt_isblank(*st->val); st->val++)
		;
	return true;
}

/* The keys a [Tune] rule cannot do without. */
static const enum rt_pkey rt_tune_required[] = {
	RT_PK_TUNE_PARAMETER, RT_PK_TUNE_METRIC, RT_PK_TUNE_DIRECTION,
	RT_PK_TUNE_ABOVE, RT_PK_TUNE_BELOW, RT_PK_TUNE_STEP, RT_PK_TUNE_MIN,
	RT_PK_TUNE_MAX,
};

/* Any [Tune] key was given or failed. */
static bool rt_tune_any(const struct rt_pstate *st)
{
	unsigned int k;

	for (k = RT_PK_TUNE_PARAMETER; k < RT_PK_NUM; k++)
		if (rt_profile_has(st->p, k) || st->bad[k])
			return true;
	return false;		/* an empty [Tune] is no rule */
}

/*
 * [Tune] of one key of the ordered pair @lo <= @hi: the other key of the
 * pair is in the profile too, and Min=..Max= keeps to it.
 */
static void rt_check_tune_order(struct rt_pstate *st, enum rt_dcqcn_param lo,
				enum rt_dcqcn_param hi)
{
	struct rt_profile *p = st->p;
	enum rt_dcqcn_param t = p->tune_param, o;
	const char *tk, *ok;
	enum rt_pkey opk;
	bool upper;		/* the other key bounds the tuned one above */
	uint32_t ov;

	if (t == lo) {
		o = hi;
		upper = true;
	} else if (t == hi) {
		o = lo;
		upper = false;
	} else {
		return;
	}
	tk = rt_dcqcn_keys[t].key;
	ok = rt_dcqcn_keys[o].key;
	opk = RT_PK_DCQCN + o;
	if (st->bad[opk])
		return;
	if (!rt_profile_has(p, opk)) {
		rt_kerr(st, p->line[RT_PK_TUNE_PARAMETER], RT_PK_TUNE_PARAMETER,
			st->text[RT_PK_TUNE_PARAMETER],
			"needs %s= in [DCQCN] too (%s <= %s: the rule's %s= is checked against it)",
			ok, rt_dcqcn_keys[lo].key, rt_dcqcn_keys[hi].key,
			upper ? "Max" : "Min");
		return;
	}
	ov = p->dcqcn[o];
	if (upper) {
		if (!ov && rt_dcqcn_zero_mode[o])
			return;		/* MaxRateMbps=0: line rate, no bound */
		if (p->tune_max > ov)
			rt_kerr(st, p->line[RT_PK_TUNE_MAX], RT_PK_TUNE_MAX,
				st->text[RT_PK_TUNE_MAX],
				"above [DCQCN] %s=%u on line %u (%s <= %s: the rule would take %s past it)",
				ok, ov, p->line[opk], rt_dcqcn_keys[lo].key,
				rt_dcqcn_keys[hi].key, tk);
	} else if (p->tune_min < ov) {
		rt_kerr(st, p->line[RT_PK_TUNE_MIN], RT_PK_TUNE_MIN,
			st->text[RT_PK_TUNE_MIN],
			"below [DCQCN] %s=%u on line %u (%s <= %s: the rule would take %s under it)",
			ok, ov, p->line[opk], rt_dcqcn_keys[lo].key,
			rt_dcqcn_keys[hi].key, tk);
	}
}

/*
 * [Tune]: complete, a rate or timer, within the parameter's range and
 * the profile's own bounds, with hysteresis.
 */
static void rt_check_tune(struct rt_pstate *st)
{
	struct rt_profile *p = st->p;
	const struct rt_dcqcn_key *dk;
	enum rt_pkey pk, base;
	unsigned int i, line;
	bool bad = false;
	uint32_t b;

	if (!rt_tune_any(st))
		return;
	line = st->tune_line ? st->tune_line : 1;
	for (i = 0; i < ARRAY_SIZE(rt_tune_required); i++) {
		pk = rt_tune_required[i];
		if (st->bad[pk]) {
			bad = true;
		} else if (!rt_profile_has(p, pk)) {
			rt_perr(st, line,
				"[Tune]: no %s= (a rule needs Parameter, Metric, Direction, Above, Below, Step, Min and Max)",
				rt_pkey_name(pk));
			bad = true;
		}
	}
	for (pk = RT_PK_TUNE_PARAMETER; pk < RT_PK_NUM; pk++)
		bad |= st->bad[pk];
	if (rt_profile_has(p, RT_PK_TUNE_GUARD_TOLERANCE) &&
	    !rt_profile_has(p, RT_PK_TUNE_GUARD) && !st->bad[RT_PK_TUNE_GUARD])
		rt_kerr(st, p->line[RT_PK_TUNE_GUARD_TOLERANCE],
			RT_PK_TUNE_GUARD_TOLERANCE,
			st->text[RT_PK_TUNE_GUARD_TOLERANCE],
			"only used with Guard= (Guard= is not given)");
	/* Without every key, the rule as a whole cannot be judged. */
	if (bad)
		goto incomplete;

	dk = &rt_dcqcn_keys[p->tune_param];
	base = RT_PK_DCQCN + p->tune_param;
	if (!rt_profile_has(p, base)) {
		if (!st->bad[base])
			rt_kerr(st, p->line[RT_PK_TUNE_PARAMETER],
				RT_PK_TUNE_PARAMETER,
				st->text[RT_PK_TUNE_PARAMETER],
				"needs %s= in [DCQCN] (the value the rule starts from and returns to)",
				dk->key);
		goto incomplete;
	}
	b = p->dcqcn[p->tune_param];
	if (p->tune_min < dk->min || p->tune_min > dk->max)
		rt_kerr(st, p->line[RT_PK_TUNE_MIN], RT_PK_TUNE_MIN,
			st->text[RT_PK_TUNE_MIN],
			"outside the range of %s (%u..%u)", dk->key, dk->min,
			dk->max);
	if (p->tune_max < dk->min || p->tune_max > dk->max)
		rt_kerr(st, p->line[RT_PK_TUNE_MAX], RT_PK_TUNE_MAX,
			st->text[RT_PK_TUNE_MAX],
			"outside the range of %s (%u..%u)", dk->key, dk->min,
			dk->max);
	if (rt_dcqcn_zero_mode[p->tune_param] && !p->tune_min)
		rt_kerr(st, p->line[RT_PK_TUNE_MIN], RT_PK_TUNE_MIN,
			st->text[RT_PK_TUNE_MIN],
			"%s=0 is no rate but %s: a rule may not switch to it (at least 1)",
			dk->key, rt_dcqcn_zero_mode[p->tune_param]);
	for (i = 0; i < ARRAY_SIZE(rt_dcqcn_order); i++)
		rt_check_tune_order(st, rt_dcqcn_order[i].lo,
				    rt_dcqcn_order[i].hi);
	if (p->tune_min >= p->tune_max) {
		rt_kerr(st, p->line[RT_PK_TUNE_MIN], RT_PK_TUNE_MIN,
			st->text[RT_PK_TUNE_MIN],
			"not below Max=%u on line %u (Min < Max)", p->tune_max,
			p->line[RT_PK_TUNE_MAX]);
	} else {
		if (b < p->tune_min || b > p->tune_max)
			rt_kerr(st, p->line[base], base, st->text[base],
				"outside [Tune] Min=%u..Max=%u (lines %u, %u): the rule starts from this value",
				p->tune_min, p->tune_max,
				p->line[RT_PK_TUNE_MIN],
				p->line[RT_PK_TUNE_MAX]);
		if (p->tune_step > p->tune_max - p->tune_min)
			rt_kerr(st, p->line[RT_PK_TUNE_STEP], RT_PK_TUNE_STEP,
				st->text[RT_PK_TUNE_STEP],
				"larger than Max - Min = %u (lines %u, %u): one step would cross the limits",
				p->tune_max - p->tune_min,
				p->line[RT_PK_TUNE_MIN],
				p->line[RT_PK_TUNE_MAX]);
	}
	if (p->tune_below >= p->tune_above)
		rt_kerr(st, p->line[RT_PK_TUNE_BELOW], RT_PK_TUNE_BELOW,
			st->text[RT_PK_TUNE_BELOW],
			"not below Above=%llu on line %u (hysteresis: act above Above=, go back only below Below=)",
			(unsigned long long)p->tune_above,
			p->line[RT_PK_TUNE_ABOVE]);
	return;
incomplete:
	/* No half rule for the agent: as if [Tune] were not given. */
	p->line[RT_PK_TUNE_PARAMETER] = 0;
}

/* Checks of keys against each other, once the whole file is read. */
static void rt_check_profile(struct rt_pstate *st)
{
	struct rt_profile *p = st->p;
	unsigned int i, sum = 0;
	bool any_ets = false;
	struct rt_shown b;

	if (!st->seen_match)
		rt_perr(st, 1,
			"no [Match] section (every profile needs one; an empty [Match] matches every RoCE NIC)");

	if (rt_profile_has(p, RT_PK_DSCP_TO_PRIORITY) &&
	    !st->bad[RT_PK_DSCP_TO_PRIORITY] && !st->bad[RT_PK_TRUST] && p->trust != RT_TRUST_DSCP) {
		if (rt_profile_has(p, RT_PK_TRUST))
			rt_kerr(st, p->line[RT_PK_DSCP_TO_PRIORITY],
				RT_PK_DSCP_TO_PRIORITY,
				st->text[RT_PK_DSCP_TO_PRIORITY],
				"needs Trust=dscp in the same profile (Trust=%s is on line %u)",
				rt_show(&b, st->text[RT_PK_TRUST]),
				p->line[RT_PK_TRUST]);
		else
			rt_kerr(st, p->line[RT_PK_DSCP_TO_PRIORITY],
				RT_PK_DSCP_TO_PRIORITY,
				st->text[RT_PK_DSCP_TO_PRIORITY],
				"needs Trust=dscp in the same profile (Trust= is not given)");
	}

	if (rt_profile_has(p, RT_PK_ETS_BANDWIDTH) &&
	    !st->bad[RT_PK_ETS_BANDWIDTH] && !st->bad[RT_PK_TSA]) {
		const char *bw = st->text[RT_PK_ETS_BANDWIDTH];
		unsigned int ln = p->line[RT_PK_ETS_BANDWIDTH];

		for (i = 0; i < RT_NTC; i++) {
			if (p->tsa[i] == RT_TSA_ETS) {
				any_ets = true;
				sum += p->ets_bw[i];
			} else if (p->ets_bw[i]) {
				rt_kerr(st, ln, RT_PK_ETS_BANDWIDTH, bw,
					"TC %u has %u%% but TSA= on line %u makes it %s (only ets TCs get bandwidth)",
					i, p->ets_bw[i], p->line[RT_PK_TSA],
					p->tsa[i] == RT_TSA_STRICT ?
					"strict" : "vendor");
			}
		}
		if (any_ets && sum != 100)
			rt_kerr(st, ln, RT_PK_ETS_BANDWIDTH, bw,
				"the bandwidth of the ets TCs sums to %u%% (it must be 100%%; %s)",
				sum, rt_profile_has(p, RT_PK_TSA) ?
				"TCs not in TSA= are ets" :
				"without TSA= every TC is ets");
	}

	if (rt_profile_has(p, RT_PK_WD_TIMEOUT_MS) &&
	    !st->bad[RT_PK_WD_TIMEOUT_MS] && !st->bad[RT_PK_WD_ACTION] &&
	    p->wd_action != RT_WD_TIMEOUT) {
		if (rt_profile_has(p, RT_PK_WD_ACTION))
			rt_kerr(st, p->line[RT_PK_WD_TIMEOUT_MS],
				RT_PK_WD_TIMEOUT_MS,
				st->text[RT_PK_WD_TIMEOUT_MS],
				"only used by Action=timeout (Action=%s is on line %u)",
				rt_show(&b, st->text[RT_PK_WD_ACTION]),
				p->line[RT_PK_WD_ACTION]);
		else
			rt_kerr(st, p->line[RT_PK_WD_TIMEOUT_MS],
				RT_PK_WD_TIMEOUT_MS,
				st->text[RT_PK_WD_TIMEOUT_MS],
				"only used by Action=timeout (Action= is not given: alert)");
	}

	rt_check_tune(st);

	for (i = 0; i < ARRAY_SIZE(rt_dcqcn_order); i++) {
		enum rt_dcqcn_param lo = rt_dcqcn_order[i].lo;
		enum rt_dcqcn_param hi = rt_dcqcn_order[i].hi;
		enum rt_pkey lk = RT_PK_DCQCN + lo, hk = RT_PK_DCQCN + hi;
		char unless[64] = "";

		if (!rt_profile_has(p, lk) || !rt_profile_has(p, hk) ||
		    st->bad[lk] || st->bad[hk] ||
		    (!p->dcqcn[hi] && rt_dcqcn_zero_mode[hi]) ||
		    p->dcqcn[lo] <= p->dcqcn[hi])
			continue;
		if (rt_dcqcn_zero_mode[hi])
			snprintf(unless, sizeof(unless), " unless %s=0",
				 rt_dcqcn_keys[hi].key);
		rt_kerr(st, p->line[lk], lk, st->text[lk],
			"above %s=%u on line %u (%s <= %s%s)",
			rt_dcqcn_keys[hi].key, p->dcqcn[hi], p->line[hk],
			rt_dcqcn_keys[lo].key, rt_dcqcn_keys[hi].key, unless);
	}
}

static void rt_profile_init(struct rt_profile *p, const char *path)
{
	const char *slash;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	slash = strrchr(p->path, '/');
	p->name = slash ? slash + 1 : p->path;
	for (i = 0; i < RT_NDSCP; i++)
		p->dscp_prio[i] = -1;
	for (i = 0; i < RT_NTC; i++)
		p->tsa[i] = RT_TSA_ETS;
	p->on_drift = RT_DRIFT_REAPPLY;
	p->max_reapplies = RT_AGENT_DEF_MAX_REAPPLIES;
	p->reapply_window_s = RT_AGENT_DEF_REAPPLY_WINDOW_S;
	p->poll_interval_s = RT_AGENT_DEF_POLL_INTERVAL_S;
	p->wd_action = RT_WD_ALERT;
	p->wd_restore_after_ms = RT_WD_DEF_RESTORE_AFTER_MS;
	p->wd_timeout_ms = RT_WD_DEF_TIMEOUT_MS;
	p->tune_dir = RT_TUNE_INCREASE;
	p->tune_cooldown_ms = RT_TUNE_DEF_COOLDOWN_MS;
	p->tune_interval_ms = RT_TUNE_DEF_INTERVAL_MS;
	p->tune_max_writes_h = RT_TUNE_DEF_MAX_WRITES_PER_HOUR;
}

int rt_profile_parse_fp(FILE *f, const char *path, struct rt_profile *p,
			struct rt_diag *d)
{
	struct rt_pstate *st;
	unsigned int i;
	int ret, err;

	rt_profile_init(p, path);
	st = calloc(1, sizeof(*st));
	if (!st) {
		rt_diag_add(d, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	st->path = path;
	st->f = f;
	st->p = p;
	st->d = d;
	while (rt_read_line(st))
		if (st->key)
			rt_key(st);
	if (st->read_errno == EFBIG) {
		rt_diag_add(d, "%s: longer than %d bytes: not a profile", path,
			    RT_PROF_SIZE_MAX);
		ret = -EFBIG;
		goto out;
	}
	if (st->read_errno) {
		err = st->read_errno;
		rt_diag_add(d, "%s: %s", path, strerror(err));
		ret = -err;
		goto out;
	}
	rt_check_profile(st);
	ret = st->nerr ? -EINVAL : 0;
out:
	for (i = 0; i < RT_PK_NUM; i++)
		free(st->text[i]);
	free(st);
	return ret;
}

/*
 * A profile tells a root agent what to write to a NIC: as sshd does with
 * its files (StrictModes), refuse one that anyone could have written, or
 * that someone else than root (or the user running the tool) owns.  A
 * character device or a FIFO is no profile either (/dev/zero would be
 * read for ever).
 */
static int rt_profile_file_ok(const char *path, const struct stat *sb,
			      struct rt_diag *d)
{
	uid_t me = geteuid();

	if (!S_ISREG(sb->st_mode)) {
		rt_diag_add(d, "%s: not a regular file: refused", path);
		return -EINVAL;
	}
	if (sb->st_uid != 0 && sb->st_uid != me) {
		rt_diag_add(d, "%s: owned by uid %u, not by root%s: refused (chown root %s)",
			    path, (unsigned int)sb->st_uid,
			    me ? " or the user running this" : "", path);
		return -EPERM;
	}
	if (sb->st_mode & S_IWOTH) {
		rt_diag_add(d, "%s: writable by everyone (mode %04o): refused (chmod o-w %s)",
			    path, (unsigned int)(sb->st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

int rt_profile_parse_file(const char *path, struct rt_profile *p,
			  struct rt_diag *d)
{
	struct stat sb;
	FILE *f;
	int ret;

	rt_profile_init(p, path);
	if (strlen(path) >= RT_PROF_PATH_LEN) {
		rt_diag_add(d, "%.64s...: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		rt_diag_add(d, "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fileno(f), &sb)) {
		ret = -errno;
		fclose(f);
		rt_diag_add(d, "%s: cannot stat: %s", path, strerror(-ret));
		return ret;
	}
	if (S_ISDIR(sb.st_mode)) {
		fclose(f);
		rt_diag_add(d, "%s: cannot read: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	ret = rt_profile_file_ok(path, &sb, d);
	if (ret) {
		fclose(f);
		return ret;
	}
	ret = rt_profile_parse_fp(f, path, p, d);
	fclose(f);
	return ret;
}

/* ---- directories ---- */

const char *rt_profile_dir(void)
{
	const char *dir = getenv("ROCETUNE_PROFILE_DIR");

	return dir && *dir ? dir : "/etc/rocetune";
}

bool rt_profile_dir_explicit(void)
{
	const char *dir = getenv("ROCETUNE_PROFILE_DIR");

	return dir && *dir;
}

static int rt_strcmp_p(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rt_profile_set_free(struct rt_profile_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		free(set->p[i]);
	set->n = 0;
}

/* The *.conf names of @dp that are regular files (symlinks followed). */
static int rt_conf_names(DIR *dp, const char *dir, char ***names, size_t *n,
			 struct rt_diag *d, bool *bad)
{
	size_t cap = 0, len;
	struct dirent *de;
	struct stat sb;
	char **nn;

	for (;;) {
		errno = 0;
		de = readdir(dp);
		if (!de) {
			if (errno) {
				int ret = -errno;

				rt_diag_add(d, "%s: cannot read: %s", dir,
					    strerror(-ret));
				return ret;
			}
			return 0;
		}
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= 5 ||
		    strcmp(de->d_name + len - 5, ".conf"))
			continue;
		if (fstatat(dirfd(dp), de->d_name, &sb, 0)) {
			rt_diag_add(d, "%s/%s: cannot read: %s", dir,
				    de->d_name, strerror(errno));
			*bad = true;
			continue;
		}
		if (!S_ISREG(sb.st_mode))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			nn = realloc(*names, cap * sizeof(*nn));
			if (!nn)
				return -ENOMEM;
			*names = nn;
		}
		(*names)[*n] = strdup(de->d_name);
		if (!(*names)[*n])
			return -ENOMEM;
		(*n)++;
	}
}

int rt_profile_load_dir(const char *dir, struct rt_profile_set *set,
			struct rt_diag *d)
{
	char path[RT_PROF_PATH_LEN];
	char **names = NULL;
	struct rt_profile *p;
	bool bad = false;
	size_t n = 0, i;
	DIR *dp;
	int ret;

	memset(set, 0, sizeof(*set));
	dp = opendir(dir);
	if (!dp) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		rt_diag_add(d, "%s: cannot open the profile directory: %s", dir,
			    strerror(-ret));
		return ret;
	}
	ret = rt_conf_names(dp, dir, &names, &n, d, &bad);
	closedir(dp);
	if (ret) {
		if (ret == -ENOMEM)
			rt_diag_add(d, "%s: %s", dir, strerror(ENOMEM));
		goto out;
	}
	qsort(names, n, sizeof(*names), rt_strcmp_p);
	set->nfiles = n < RT_PROF_MAX_FILES ? n : RT_PROF_MAX_FILES;

	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     names[i]) >= sizeof(path)) {
			rt_diag_add(d, "%s/%s: %s", dir, names[i],
				    strerror(ENAMETOOLONG));
			bad = true;
			continue;
		}
		if (i >= RT_PROF_MAX_FILES) {
			rt_diag_add(d, "%s: ignored: more than %d profiles in %s (at most %d)",
				    path, RT_PROF_MAX_FILES, dir,
				    RT_PROF_MAX_FILES);
			bad = true;
			continue;
		}
		p = malloc(sizeof(*p));
		if (!p) {
			rt_diag_add(d, "%s: %s", path, strerror(ENOMEM));
			ret = -ENOMEM;
			goto out;
		}
		if (rt_profile_parse_file(path, p, d)) {
			free(p);
			bad = true;
			continue;
		}
		set->p[set->n++] = p;
	}
	ret = bad ? -EINVAL : 0;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (ret && ret != -EINVAL)
		rt_profile_set_free(set);
	return ret;
}

/* ---- matching ---- */

static const char *rt_nic_field(const struct rt_nic_id *nic, unsigned int k)
{
	switch (k) {
	case RT_PK_MATCH_NAME:
		return nic->netdev;
	case RT_PK_MATCH_DRIVER:
		return nic->driver;
	case RT_PK_MATCH_RDMA_DEVICE:
		return nic->rdma_dev;
	default:
		return nic->bus_info;
	}
}

bool rt_profile_match(const struct rt_profile *p, const struct rt_nic_id *nic)
{
	unsigned int k, i;
	const char *field;

	for (k = 0; k < RT_PK_MATCH_NUM; k++) {
		if (!p->nmatch[k])
			continue;	/* not given: matches */
		field = rt_nic_field(nic, k);
		if (!field[0])
			return false;	/* nothing to compare with */
		for (i = 0; i < p->nmatch[k]; i++)
			if (!fnmatch(p->match[k][i], field, 0))
				break;
		if (i == p->nmatch[k])
			return false;
	}
	return true;
}

const struct rt_profile *rt_profile_find(const struct rt_profile_set *set,
					 const struct rt_nic_id *nic)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (rt_profile_match(set->p[i], nic))
			return set->p[i];
	return NULL;
}

void rt_profile_key_err(struct rt_diag *d, const struct rt_profile *p,
			enum rt_pkey key, const char *fmt, ...)
{
	char text[RT_DIAG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rt_diag_add(d, "%s:%u: [%s] %s: %s", p->path, p->line[key],
		    rt_pkey_section(key), rt_pkey_name(key), text);
}
