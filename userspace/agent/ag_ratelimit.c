// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the bound on drift re-applies of one NIC.
 *
 * A sliding window: the times of the re-applies of the last @window_ms
 * are kept (at most @max of them); a re-apply is allowed while fewer than
 * @max lie in the window.  The first one refused turns the limiter
 * suppressed for good: another tool keeps changing the NIC back, and
 * writing it again and again would only make the two fight (and flap the
 * link, where a PFC change does that).  The agent then reports drift
 * without writing until the profiles are reloaded or the NIC comes back.
 */
#include <string.h>

#include "agent.h"

void ag_rl_init(struct ag_ratelimit *rl, uint32_t max, uint32_t window_s)
{
	memset(rl, 0, sizeof(*rl));
	rl->max = max < AG_RL_SLOTS ? max : AG_RL_SLOTS;
	rl->window_ms = (uint64_t)window_s * 1000;
}

/* Forget re-applies older than the window ending at @now_ms. */
static void ag_rl_expire(struct ag_ratelimit *rl, uint64_t now_ms)
{
	unsigned int drop = 0;

	while (drop < rl->n && now_ms - rl->t[drop] >= rl->window_ms)
		drop++;
	if (!drop)
		return;
	memmove(rl->t, rl->t + drop, (rl->n - drop) * sizeof(rl->t[0]));
	rl->n -= drop;
}

unsigned int ag_rl_count(struct ag_ratelimit *rl, uint64_t now_ms)
{
	ag_rl_expire(rl, now_ms);
	return rl->n;
}

bool ag_rl_allow(struct ag_ratelimit *rl, uint64_t now_ms)
{
	if (rl->suppressed)
		return false;
	ag_rl_expire(rl, now_ms);
	if (rl->n >= rl->max) {
		rl->suppressed = true;
		rl->suppressed_at_ms = now_ms;
		return false;
	}
	rl->t[rl->n++] = now_ms;
	return true;
}
