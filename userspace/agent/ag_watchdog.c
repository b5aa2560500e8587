// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the pause-storm watchdog of one NIC, as a state machine.
 *
 *   IDLE --STORM_START(p)--> ACTIVE (act for p)
 *   ACTIVE --STORM_START(q), q not acted--> ACTIVE (act for q as well)
 *   ACTIVE --STORM_END of the last storming priority--> HOLD
 *   HOLD --STORM_START(p)--> ACTIVE (act again only if p is new)
 *   HOLD --RestoreAfterMs passed--> IDLE (restore the profile's state)
 *
 * A STORM_END without a STORM_START changes nothing.  The module sends
 * edges only: ag_wd_sync() puts in the edges the agent missed (an event
 * overrun, a start during a storm) from the storm state the module
 * reports.  The caller does what the returned ag_wd_do says.
 */
#include <string.h>

#include "agent.h"

void ag_wd_init(struct ag_wd *wd, uint32_t restore_after_ms)
{
	memset(wd, 0, sizeof(*wd));
	wd->restore_after_ms = restore_after_ms;
}

enum ag_wd_do ag_wd_storm_start(struct ag_wd *wd, unsigned int prio,
				uint64_t now_ms)
{
	uint8_t bit;

	(void)now_ms;
	if (prio > 7)
		return AG_WD_DO_NOTHING;
	bit = (uint8_t)(1u << prio);
	wd->storming |= bit;
	wd->state = AG_WD_ACTIVE;
	wd->restore_at_ms = 0;
	if (wd->acted & bit)
		return AG_WD_DO_NOTHING;
	wd->acted |= bit;
	return AG_WD_DO_ACT;
}

enum ag_wd_do ag_wd_storm_end(struct ag_wd *wd, unsigned int prio,
			      uint64_t now_ms)
{
	if (prio > 7)
		return AG_WD_DO_NOTHING;
	wd->storming &= (uint8_t)~(1u << prio);
	if (wd->state != AG_WD_ACTIVE || wd->storming)
		return AG_WD_DO_NOTHING;
	wd->state = AG_WD_HOLD;
	wd->restore_at_ms = now_ms + wd->restore_after_ms;
	return ag_wd_tick(wd, now_ms);
}

enum ag_wd_do ag_wd_tick(struct ag_wd *wd, uint64_t now_ms)
{
	if (wd->state != AG_WD_HOLD || now_ms < wd->restore_at_ms)
		return AG_WD_DO_NOTHING;
	wd->state = AG_WD_IDLE;
	wd->acted = 0;
	wd->restore_at_ms = 0;
	return AG_WD_DO_RESTORE;
}

uint64_t ag_wd_deadline(const struct ag_wd *wd)
{
	return wd->state == AG_WD_HOLD ? wd->restore_at_ms : 0;
}

const char *ag_wd_state_name(enum ag_wd_state s)
{
	switch (s) {
	case AG_WD_ACTIVE:
		return "active";
	case AG_WD_HOLD:
		return "hold";
	default:
		return "idle";
	}
}

enum ag_wd_do ag_wd_sync(struct ag_wd *wd, uint8_t storming, uint64_t now_ms,
			 uint8_t *fresh)
{
	enum ag_wd_do todo = AG_WD_DO_NOTHING;
	uint8_t before = wd->acted;
	unsigned int p;

	*fresh = 0;
	for (p = 0; p < 8; p++)
		if ((storming & (1u << p)) && !(wd->storming & (1u << p)))
			ag_wd_storm_start(wd, p, now_ms);
	/* A storm still on whose action was not taken (skipped): again. */
	for (p = 0; p < 8; p++)
		if ((storming & (1u << p)) && !(wd->acted & (1u << p)))
			ag_wd_storm_start(wd, p, now_ms);
	*fresh = wd->acted & (uint8_t)~before;
	for (p = 0; p < 8; p++)
		if (!(storming & (1u << p)) && (wd->storming & (1u << p)))
			todo = ag_wd_storm_end(wd, p, now_ms);
	return *fresh ? AG_WD_DO_ACT : todo;
}
