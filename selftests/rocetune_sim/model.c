// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune_sim model: the state of a device that each of its faces (RDMA
 * hw counters, ethtool, dcbnl, the test knobs in debugfs) reads and
 * changes: the counters' names and widths, their growth at a rate, and
 * the accounting and fault injection of set operations.  It calls no
 * other file of the module.
 */

#include <linux/ethtool.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "rsim.h"

/* Counter names: PFC ones are the same for every personality. */
static char rsim_pfc_names[RSIM_C_HW][ETH_GSTRING_LEN];

void rsim_counters_init(void)
{
	unsigned int p;

	for (p = 0; p < RSIM_NUM_PRIO; p++) {
		snprintf(rsim_pfc_names[RSIM_C_RX_PAUSE + p], ETH_GSTRING_LEN,
			 "rx_prio%u_pause", p);
		snprintf(rsim_pfc_names[RSIM_C_TX_PAUSE + p], ETH_GSTRING_LEN,
			 "tx_prio%u_pause", p);
		snprintf(rsim_pfc_names[RSIM_C_RX_PAUSE_DUR + p],
			 ETH_GSTRING_LEN, "rx_prio%u_pause_duration", p);
		snprintf(rsim_pfc_names[RSIM_C_TX_PAUSE_DUR + p],
			 ETH_GSTRING_LEN, "tx_prio%u_pause_duration", p);
	}
	strscpy(rsim_pfc_names[RSIM_C_STORM_WARN],
		"tx_pause_storm_warning_events", ETH_GSTRING_LEN);
	strscpy(rsim_pfc_names[RSIM_C_STORM_ERR],
		"tx_pause_storm_error_events", ETH_GSTRING_LEN);
}

const char *rsim_cnt_name(const struct rsim_dev *rsim, unsigned int idx)
{
	if (idx < RSIM_C_HW)
		return rsim_pfc_names[idx];
	return rsim->info->hw[idx - RSIM_C_HW].name;
}

int rsim_cnt_lookup(const struct rsim_dev *rsim, const char *name)
{
	unsigned int i;

	for (i = 0; i < rsim->num_cnt; i++)
		if (!strcmp(name, rsim_cnt_name(rsim, i)))
			return i;
	return -ENOENT;
}

/* Counters that are 32 bit in the real device wrap at 2^32. */
u64 rsim_cnt_mask(const struct rsim_dev *rsim, unsigned int idx)
{
	if (idx >= RSIM_C_HW && rsim->info->hw[idx - RSIM_C_HW].is_32bit)
		return U32_MAX;
	return U64_MAX;
}

/* Counter growth ----------------------------------------------------- */

/**
 * rsim_grow_advance() - bring growing counters up to date
 * @rsim: the device, with @rsim->stats_lock held
 * @now: the time to advance to, in jiffies
 *
 * Every reader of counters calls this first, so that a counter growing at
 * a rate is exact whenever it is read, not only at the work's ticks.
 *
 * Return: true if a growth is still active.
 */
bool rsim_grow_advance(struct rsim_dev *rsim, unsigned long now)
{
	bool left = false;
	unsigned int i;
	u32 rem;
	u64 add;

	lockdep_assert_held(&rsim->stats_lock);
	for (i = 0; i < RSIM_MAX_GROW; i++) {
		struct rsim_grow *g = &rsim->grow[i];
		unsigned long upto = now;

		if (!g->active)
			continue;
		if (g->end && time_after_eq(now, g->end))
			upto = g->end;
		add = div_u64_rem(g->rate * jiffies_to_msecs(upto - g->last) +
				  g->rem, 1000, &rem);
		g->rem = rem;
		g->last = upto;
		rsim->cnt[g->idx] = (rsim->cnt[g->idx] + add) &
				    rsim_cnt_mask(rsim, g->idx);
		if (g->end && upto == g->end)
			g->active = false;
		else
			left = true;
	}
	return left;
}

/* Set operations ----------------------------------------------------- */

/**
 * rsim_set_begin() - account for a set operation that reached the device
 * @rsim: the device
 * @err: where to store the result when the operation is not to be done
 *
 * Every set operation calls this first, before it validates anything: a
 * dcbnl set op, set_tunable and a write to a congestion control file.  It
 * counts the operation in set_count and consumes the injection knobs:
 * fail_next_set, then the countdowns of fail_set and ignore_set, which
 * every operation advances.  Failing wins over ignoring when both fall on
 * the same operation.
 *
 * Return: true if the operation is to be done; false if it is to return
 * @err at once: a negative errno (an injected failure) or 0 (ignored: it
 * reports success and changes nothing).
 */
bool rsim_set_begin(struct rsim_dev *rsim, int *err)
{
	int fail = atomic_xchg(&rsim->fail_next_set, 0);
	bool ignore = false;

	atomic64_inc(&rsim->set_count);
	spin_lock(&rsim->set_lock);
	if (rsim->fail_set_err) {
		if (rsim->fail_set_skip) {
			rsim->fail_set_skip--;
		} else {
			if (!fail)
				fail = rsim->fail_set_err;
			rsim->fail_set_err = 0;
		}
	}
	if (rsim->ignore_set_skip > 0) {
		rsim->ignore_set_skip--;
	} else if (!rsim->ignore_set_skip) {
		ignore = true;
		rsim->ignore_set_skip = -1;
	}
	spin_unlock(&rsim->set_lock);

	*err = -fail;
	return !fail && !ignore;
}
