// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: tuning profiles, the keys.
 *
 * The tables of every key of a profile: its name, its section, the
 * [DCQCN] keys' ranges, the [Tune] metrics and the names of the keyword
 * values that other files print.  No parsing here: rt_pval.c reads the
 * values, rt_pread.c the lines.
 */
#include <string.h>

#include "rt_counters.h"
#include "rt_pparse.h"

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
	[RT_PK_VERIFY_FOR_SEC - RT_PK_AGENT_ON_DRIFT] = "ForSec",
	[RT_PK_VERIFY_BASELINE_SEC - RT_PK_AGENT_ON_DRIFT] = "BaselineSec",
	[RT_PK_VERIFY_INTERVAL_MS - RT_PK_AGENT_ON_DRIFT] = "IntervalMs",
	[RT_PK_VERIFY_MAX_PAUSE_PERCENT - RT_PK_AGENT_ON_DRIFT] =
		"MaxPausePercent",
	[RT_PK_VERIFY_PAUSE_MARGIN_PERCENT - RT_PK_AGENT_ON_DRIFT] =
		"PauseMarginPercent",
	[RT_PK_VERIFY_MAX_CNP_RATE - RT_PK_AGENT_ON_DRIFT] = "MaxCNPRate",
	[RT_PK_VERIFY_CNP_RATE_MARGIN - RT_PK_AGENT_ON_DRIFT] =
		"CNPRateMargin",
	[RT_PK_VERIFY_MAX_RETRANS_RATE - RT_PK_AGENT_ON_DRIFT] =
		"MaxRetransRate",
	[RT_PK_VERIFY_RETRANS_RATE_MARGIN - RT_PK_AGENT_ON_DRIFT] =
		"RetransRateMargin",
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

const char *const rt_sec_names[RT_SEC_BAD] = {
	[RT_SEC_MATCH] = "Match",
	[RT_SEC_LOSSLESS] = "Lossless",
	[RT_SEC_DCQCN] = "DCQCN",
	[RT_SEC_AGENT] = "Agent",
	[RT_SEC_WATCHDOG] = "Watchdog",
	[RT_SEC_TUNE] = "Tune",
	[RT_SEC_VERIFY] = "Verify",
};

enum rt_psec rt_pkey_sec(enum rt_pkey k)
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
	if (k < RT_PK_VERIFY_FOR_SEC)
		return RT_SEC_TUNE;
	return RT_SEC_VERIFY;
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

const char *rt_sec_keys(enum rt_psec s)
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
	case RT_SEC_VERIFY:
		return "ForSec, BaselineSec, IntervalMs, MaxPausePercent, PauseMarginPercent, MaxCNPRate, CNPRateMargin, MaxRetransRate, RetransRateMargin";
	default:
		return "see the [DCQCN] table of Documentation/profiles.rst";
	}
}
