/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: tuning profiles.
 *
 * A profile is a systemd-style INI file with the
 * sections [Match], [Lossless] and [DCQCN], [Agent], [Watchdog] and
 * [Tune] for the agent rocetuned, and [Verify] for applies that watch
 * the NIC afterwards; Documentation/profiles.rst is the reference of
 * every key.  Files are read from a directory
 * (/etc/rocetune, or $ROCETUNE_PROFILE_DIR) in lexical order of their
 * names, *.conf only; the profile of a NIC is the first one whose [Match]
 * matches it.
 *
 * The parser checks everything that does not depend on the NIC: syntax,
 * key names, value ranges and the consistency of the keys with each other.
 * Every error names file:line, the key, the value and what is allowed.
 * What depends on the NIC (a driver without a DCB operation, a vendor
 * field width) is checked when the profile is applied (rt_want.c).
 *
 * The implementation, one file per concern (rt_pparse.h): the key tables
 * (rt_pkeys.c), the diagnostics (rt_pdiag.c), the values (rt_pval.c), the
 * reader (rt_pread.c), the checks between keys (rt_pcheck.c), the loader
 * and the matcher (rt_pload.c).
 */
#ifndef RT_PROFILE_H
#define RT_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RT_NPRIO		8	/* IEEE 802.1p priorities */
#define RT_NTC			8	/* traffic classes */
#define RT_NBUF			8	/* port buffers */
#define RT_NDSCP		64
#define RT_PROF_MAX_GLOBS	8	/* globs per [Match] key */
#define RT_PROF_GLOB_LEN	64
#define RT_PROF_PATH_LEN	4096
#define RT_PROF_MAX_FILES	64	/* profiles per directory */
#define RT_PROF_LINE_MAX	2048	/* characters per line, without '\n' */
#define RT_PROF_SIZE_MAX	(1 << 20)	/* bytes per profile */

/* IEEE 802.1Qaz transmission selection algorithms (kernel values). */
enum rt_tsa {
	RT_TSA_STRICT = 0,
	RT_TSA_CBS = 1,
	RT_TSA_ETS = 2,
	RT_TSA_VENDOR = 255,
};

enum rt_trust {
	RT_TRUST_PCP = 1,
	RT_TRUST_DSCP = 2,
};

/* PFCStormTimeoutMs= special values (those of ETHTOOL_PFC_PREVENTION_TOUT). */
#define RT_PFC_STORM_OFF	0
#define RT_PFC_STORM_AUTO	0xffff
#define RT_PFC_STORM_MIN_MS	80
#define RT_PFC_STORM_MAX_MS	8000

/*
 * DCQCN parameters, vendor-neutral, in physical units.  rt_dcqcn_keys[]
 * gives each its key name and range; the vendor mapping is in rt_want.c.
 */
enum rt_dcqcn_param {
	RT_DCQCN_CNP_DSCP,
	RT_DCQCN_CNP_PRIORITY,
	RT_DCQCN_MIN_TIME_BETWEEN_CNPS_US,
	RT_DCQCN_RATE_REDUCE_MONITOR_PERIOD_US,
	RT_DCQCN_MIN_RATE_MBPS,
	RT_DCQCN_MAX_RATE_MBPS,
	RT_DCQCN_AI_RATE_MBPS,
	RT_DCQCN_HAI_RATE_MBPS,
	RT_DCQCN_TIME_RESET_US,
	RT_DCQCN_BYTE_RESET_BYTES,
	RT_DCQCN_THRESHOLD,
	RT_DCQCN_INITIAL_ALPHA,
	RT_DCQCN_G,
	RT_DCQCN_GD,
	RT_DCQCN_MIN_DECREASE_FACTOR_PERCENT,
	RT_DCQCN_RATE_ON_FIRST_CNP_MBPS,
	RT_DCQCN_CLAMP_TARGET_RATE,
	RT_DCQCN_CLAMP_TARGET_RATE_AFTER_TIME_INC,
	RT_DCQCN_DCE_TCP_RTT_US,
	RT_DCQCN_ENABLE,
	RT_DCQCN_NUM
};

struct rt_dcqcn_key {
	const char *key;	/* "CNPDSCP", "MinRateMbps", ... */
	uint32_t min;
	uint32_t max;
	bool boolean;		/* yes/no/true/false/on/off/1/0 */
};

extern const struct rt_dcqcn_key rt_dcqcn_keys[RT_DCQCN_NUM];

/* [Agent] OnDrift= */
enum rt_on_drift {
	RT_DRIFT_REAPPLY,
	RT_DRIFT_REPORT,
};

/* [Watchdog] Action= */
enum rt_wd_action {
	RT_WD_ALERT,		/* log and count only */
	RT_WD_TIMEOUT,		/* set pfc-prevention-tout to TimeoutMs= */
	RT_WD_DISABLE_PFC,	/* PFC off on the storming priority */
};

/* Defaults of the [Agent] and [Watchdog] keys. */
#define RT_AGENT_DEF_MAX_REAPPLIES	5
#define RT_AGENT_DEF_REAPPLY_WINDOW_S	300
#define RT_AGENT_DEF_POLL_INTERVAL_S	30
#define RT_WD_DEF_RESTORE_AFTER_MS	5000
#define RT_WD_DEF_TIMEOUT_MS		100
#define RT_WD_STORM_MIN_MS		10	/* the module's range */
#define RT_WD_STORM_MAX_MS		600000

/*
 * [Tune] Metric= and Guard=: a rate (per second) of the port, from the
 * module's ROCETUNE_A_RATES and per-priority PFC rates.  RT_TM_CNT + a
 * ROCETUNE_A_CNT_* attribute is one normalized counter, by its label
 * ("out-of-sequence"); the others add several up.
 */
enum rt_tune_metric {
	RT_TM_NONE,
	RT_TM_CNP,		/* "cnp": tx-cnp-pkts + rx-cnp-pkts */
	RT_TM_ECN,		/* "ecn": rx-ecn-ce-pkts */
	RT_TM_PAUSE,		/* "pause": rx-pause + tx-pause */
	RT_TM_RX_PAUSE,		/* "rx-pause": PFC frames received, all prios */
	RT_TM_TX_PAUSE,		/* "tx-pause": PFC frames sent, all prios */
	RT_TM_CNT = 16,		/* + ROCETUNE_A_CNT_*: one port counter */
};

/* [Tune] Direction=: where a step goes while the metric is above Above= */
enum rt_tune_dir {
	RT_TUNE_INCREASE = 1,
	RT_TUNE_DECREASE = -1,
};

/* Defaults and limits of the [Tune] and [Agent] MetricsTopQPs= keys. */
#define RT_TUNE_DEF_COOLDOWN_MS		10000
#define RT_TUNE_MIN_COOLDOWN_MS		1000	/* at most 3600 changes/h */
#define RT_TUNE_DEF_MAX_WRITES_PER_HOUR	60
#define RT_TUNE_MAX_WRITES_PER_HOUR	600
#define RT_TUNE_DEF_INTERVAL_MS		1000
#define RT_TUNE_MIN_INTERVAL_MS		100
#define RT_TUNE_RATE_MAX		1000000000000ull	/* events/s */
#define RT_AGENT_MAX_TOP_QPS		1000

/* rt_tune_metric_name() - "cnp", "rx-pause", "out-of-sequence"; NULL */
const char *rt_tune_metric_name(unsigned int m);
/* rt_tune_metric_parse() - the metric named @s, or RT_TM_NONE */
unsigned int rt_tune_metric_parse(const char *s);

/* "reapply", "report"; "alert", "timeout", "disable-pfc" */
const char *rt_on_drift_name(enum rt_on_drift d);
const char *rt_wd_action_name(enum rt_wd_action a);

/*
 * Every key of a profile.  struct rt_profile records the line of each
 * key's (last) assignment in line[]; 0 means the key was not given.
 */
enum rt_pkey {
	/* [Match] */
	RT_PK_MATCH_NAME,
	RT_PK_MATCH_DRIVER,
	RT_PK_MATCH_RDMA_DEVICE,
	RT_PK_MATCH_PCI_ADDRESS,
	/* [Lossless] */
	RT_PK_TRUST,
	RT_PK_PFC,
	RT_PK_DSCP_TO_PRIORITY,
	RT_PK_PRIORITY_TO_TC,
	RT_PK_ETS_BANDWIDTH,
	RT_PK_TSA,
	RT_PK_MAX_RATE_MBPS,
	RT_PK_BUFFER_SIZE_BYTES,
	RT_PK_PRIORITY_TO_BUFFER,
	RT_PK_CABLE_LENGTH_METERS,
	RT_PK_PFC_STORM_TIMEOUT_MS,
	/* [DCQCN]: RT_PK_DCQCN + enum rt_dcqcn_param */
	RT_PK_DCQCN,
	/* [Agent] (rocetuned; Documentation/agent.rst) */
	RT_PK_AGENT_ON_DRIFT = RT_PK_DCQCN + RT_DCQCN_NUM,
	RT_PK_AGENT_MAX_REAPPLIES,
	RT_PK_AGENT_REAPPLY_WINDOW_SEC,
	RT_PK_AGENT_POLL_INTERVAL_SEC,
	RT_PK_AGENT_METRICS_TOP_QPS,
	/* [Watchdog] (rocetuned: pause-storm actions) */
	RT_PK_WD_ACTION,
	RT_PK_WD_STORM_MS,
	RT_PK_WD_RESTORE_AFTER_MS,
	RT_PK_WD_TIMEOUT_MS,
	/* [Tune] (rocetuned: closed-loop DCQCN tuning) */
	RT_PK_TUNE_PARAMETER,
	RT_PK_TUNE_METRIC,
	RT_PK_TUNE_DIRECTION,
	RT_PK_TUNE_ABOVE,
	RT_PK_TUNE_BELOW,
	RT_PK_TUNE_STEP,
	RT_PK_TUNE_MIN,
	RT_PK_TUNE_MAX,
	RT_PK_TUNE_COOLDOWN_MS,
	RT_PK_TUNE_INTERVAL_MS,
	RT_PK_TUNE_GUARD,
	RT_PK_TUNE_GUARD_TOLERANCE,
	RT_PK_TUNE_MAX_WRITES_PER_HOUR,
	/* [Verify] (apply --verify-for, rocetuned: guarded rollouts) */
	RT_PK_VERIFY_FOR_SEC,
	RT_PK_VERIFY_BASELINE_SEC,
	RT_PK_VERIFY_INTERVAL_MS,
	RT_PK_VERIFY_MAX_PAUSE_PERCENT,
	RT_PK_VERIFY_PAUSE_MARGIN_PERCENT,
	RT_PK_VERIFY_MAX_CNP_RATE,
	RT_PK_VERIFY_CNP_RATE_MARGIN,
	RT_PK_VERIFY_MAX_RETRANS_RATE,
	RT_PK_VERIFY_RETRANS_RATE_MARGIN,
	RT_PK_NUM
};

#define RT_PK_MATCH_NUM		4

/* rt_pkey_name() - "Trust", "CNPDSCP", ...; rt_pkey_section() - "Lossless" */
const char *rt_pkey_name(enum rt_pkey k);
const char *rt_pkey_section(enum rt_pkey k);
/*
 * rt_pkey_lookup() - the enum rt_pkey of @key in [@section] (section name
 * without brackets; NULL: the first key of that name), or -1.
 */
int rt_pkey_lookup(const char *section, const char *key);

struct rt_profile {
	char path[RT_PROF_PATH_LEN];	/* as given to the parser */
	const char *name;		/* basename of path, points into it */
	unsigned int line[RT_PK_NUM];	/* line of each key, 0: not given */

	/* [Match]: globs per key, indexed by RT_PK_MATCH_* */
	char match[RT_PK_MATCH_NUM][RT_PROF_MAX_GLOBS][RT_PROF_GLOB_LEN];
	unsigned int nmatch[RT_PK_MATCH_NUM];

	/* [Lossless] */
	enum rt_trust trust;
	uint8_t pfc_en;			/* bitmap of priorities, PFC= */
	int8_t dscp_prio[RT_NDSCP];	/* DSCPToPriority=, -1: not listed */
	uint8_t prio_tc[RT_NPRIO];	/* PriorityToTC=, unlisted: 0 */
	uint8_t ets_bw[RT_NTC];		/* ETSBandwidth= percent, unlisted: 0 */
	uint8_t tsa[RT_NTC];		/* TSA=, unlisted: RT_TSA_ETS */
	uint64_t maxrate_mbps[RT_NTC];	/* MaxRateMbps=, 0: unlimited */
	uint32_t buffer_size[RT_NBUF];	/* BufferSizeBytes=, unlisted: 0 */
	uint8_t prio_buffer[RT_NPRIO];	/* PriorityToBuffer=, unlisted: 0 */
	uint16_t cable_length_m;	/* CableLengthMeters= */
	uint16_t pfc_storm_tout;	/* PFCStormTimeoutMs=, RT_PFC_STORM_* */

	/* [DCQCN] */
	uint32_t dcqcn[RT_DCQCN_NUM];

	/* [Agent]: what rocetuned does about drift (defaults when not given) */
	enum rt_on_drift on_drift;	/* OnDrift=, RT_DRIFT_REAPPLY */
	uint32_t max_reapplies;		/* MaxReapplies=, RT_AGENT_DEF_* */
	uint32_t reapply_window_s;	/* ReapplyWindowSec= */
	uint32_t poll_interval_s;	/* PollIntervalSec= */
	uint32_t metrics_top_qps;	/* MetricsTopQPs=, 0: no QP series */

	/* [Watchdog]: rocetuned's pause-storm action */
	enum rt_wd_action wd_action;	/* Action=, RT_WD_ALERT */
	uint32_t wd_storm_ms;		/* StormMs=, 0: the module's own */
	uint32_t wd_restore_after_ms;	/* RestoreAfterMs= */
	uint16_t wd_timeout_ms;		/* TimeoutMs= */

	/*
	 * [Tune]: one closed-loop rule (rt_profile_has(p,
	 * RT_PK_TUNE_PARAMETER) when given; the parser then checked that
	 * every required key is there and consistent).
	 */
	enum rt_dcqcn_param tune_param;	/* Parameter=, also in [DCQCN] */
	unsigned int tune_metric;	/* Metric=, enum rt_tune_metric */
	enum rt_tune_dir tune_dir;	/* Direction= */
	uint64_t tune_above;		/* Above=, events/s */
	uint64_t tune_below;		/* Below=, events/s, < Above= */
	uint32_t tune_step;		/* Step= */
	uint32_t tune_min, tune_max;	/* Min=, Max= */
	uint32_t tune_cooldown_ms;	/* CooldownMs= */
	uint32_t tune_interval_ms;	/* IntervalMs= */
	unsigned int tune_guard;	/* Guard=, RT_TM_NONE: no guard */
	uint64_t tune_guard_tol;	/* GuardTolerance=, events/s */
	uint32_t tune_max_writes_h;	/* MaxWritesPerHour= */

	/*
	 * [Verify]: what an apply is watched for after it landed
	 * (rt_verify.h).  A guard is in force when its key is given
	 * (rt_profile_has()); the limit is the lowest of Max...= and the
	 * baseline plus ...Margin=.
	 */
	uint32_t verify_for_s;		/* ForSec=, RT_VERIFY_DEF_FOR_S */
	uint32_t verify_baseline_s;	/* BaselineSec= */
	uint32_t verify_interval_ms;	/* IntervalMs= */
	uint32_t verify_max_pause_pct;	/* MaxPausePercent= */
	uint32_t verify_pause_margin_pct;	/* PauseMarginPercent= */
	uint64_t verify_max_cnp;	/* MaxCNPRate=, events/s */
	uint64_t verify_cnp_margin;	/* CNPRateMargin= */
	uint64_t verify_max_retrans;	/* MaxRetransRate= */
	uint64_t verify_retrans_margin;	/* RetransRateMargin= */
};

/* Defaults and limits of the [Verify] keys. */
#define RT_VERIFY_DEF_FOR_S		30
#define RT_VERIFY_MAX_FOR_S		86400
#define RT_VERIFY_DEF_BASELINE_S	5
#define RT_VERIFY_MAX_BASELINE_S	3600
#define RT_VERIFY_DEF_INTERVAL_MS	1000
#define RT_VERIFY_MIN_INTERVAL_MS	100
#define RT_VERIFY_MAX_INTERVAL_MS	60000

/* rt_profile_has_verify() - @p has a [Verify] key. */
bool rt_profile_has_verify(const struct rt_profile *p);

/* rt_profile_has() - @key was given in @p. */
static inline bool rt_profile_has(const struct rt_profile *p, enum rt_pkey key)
{
	return p->line[key] != 0;
}

/*
 * Diagnostics: each error is one line of text, already formatted as
 * "FILE:LINE: [Section] Key=value: what is wrong (what is allowed)".
 * At most RT_DIAG_MAX are kept; @n counts all of them.
 */
#define RT_DIAG_MAX		128
#define RT_DIAG_LEN		512

struct rt_diag {
	unsigned int n;
	char msg[RT_DIAG_MAX][RT_DIAG_LEN];
};

void rt_diag_add(struct rt_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* rt_diag_print() - every message, one per line, to @f. */
void rt_diag_print(const struct rt_diag *d, FILE *f);

/*
 * rt_profile_parse_file() - parse and check the profile at @path into
 * @p (zeroed first).  Returns 0, or -EINVAL when @d got errors, or a
 * negative errno when the file cannot be read (also reported in @d).
 */
int rt_profile_parse_file(const char *path, struct rt_profile *p,
			  struct rt_diag *d);
/*
 * rt_profile_parse_fp() - the same from an open stream (a pipe, stdin,
 * fmemopen()); @path is only used in messages and p->path.
 */
int rt_profile_parse_fp(FILE *f, const char *path, struct rt_profile *p,
			struct rt_diag *d);

struct rt_profile_set {
	unsigned int n;			/* the valid profiles, in p[] */
	unsigned int nfiles;		/* the *.conf files read, valid or not */
	struct rt_profile *p[RT_PROF_MAX_FILES];	/* malloc'ed, lexical order */
};

/*
 * rt_profile_dir() - $ROCETUNE_PROFILE_DIR when set and not empty, else
 * "/etc/rocetune".
 */
const char *rt_profile_dir(void);

/*
 * rt_profile_dir_explicit() - was the directory named by the user
 * (ROCETUNE_PROFILE_DIR)?  Then a missing one is an error, where a
 * missing /etc/rocetune only means that no NIC has a profile.
 */
bool rt_profile_dir_explicit(void);

/*
 * rt_profile_load_dir() - parse every *.conf of @dir in lexical order.
 * A missing directory is an empty set.  @set->nfiles counts the files
 * read, valid or not; @set->n the valid ones.  Returns 0, or -EINVAL when any
 * file had errors (all files are still parsed and every error is in @d;
 * @set then holds only the valid ones), or a negative errno.
 */
int rt_profile_load_dir(const char *dir, struct rt_profile_set *set,
			struct rt_diag *d);
void rt_profile_set_free(struct rt_profile_set *set);

/* What [Match] compares: the identity of a RoCE NIC. */
struct rt_nic_id {
	char netdev[64];	/* Name= */
	char driver[64];	/* Driver=, the netdev's driver (ethtool -i) */
	char rdma_dev[64];	/* RdmaDevice= */
	char bus_info[64];	/* PciAddress=, bus-info (ethtool -i) */
};

/*
 * rt_profile_match() - every [Match] key given in @p has a glob (fnmatch)
 * matching @nic.  A profile with an empty [Match] matches every NIC.
 */
bool rt_profile_match(const struct rt_profile *p, const struct rt_nic_id *nic);

/* rt_profile_find() - the first profile of @set matching @nic, or NULL. */
const struct rt_profile *rt_profile_find(const struct rt_profile_set *set,
					 const struct rt_nic_id *nic);

/*
 * rt_profile_key_err() - an error of @p's key @key into @d, prefixed with
 * the profile's file:line, section and key.
 */
void rt_profile_key_err(struct rt_diag *d, const struct rt_profile *p,
			enum rt_pkey key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* RT_PROFILE_H */
