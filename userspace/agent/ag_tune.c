// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the decisions of one [Tune] rule (closed-loop DCQCN tuning).
 *
 * Pure: a sample of the port's rates, the rule and its state in, a
 * decision out; the agent writes it through the apply engine and reports
 * back with ag_tune_update().  On each fresh sample, in this order:
 *
 *   the guard watches the last step (until CooldownMs= has passed, and
 *   at least one sample): guard > guard before the step + GuardTolerance=
 *     -> REVERT to the value before the step (whatever the cool-down);
 *     steps that way are then blocked until the metric has crossed the
 *     band to the other side
 *   metric > Above=  -> STEP one Step= in Direction=, clamped to Min=/Max=
 *   metric < Below=, value not the base  -> BACK one Step= toward the
 *     base (the profile's [DCQCN] value), never past it
 *   otherwise (Below= <= metric <= Above=: the hysteresis band)  -> HOLD
 *
 * A STEP or BACK waits for CooldownMs= after the last change (or failed
 * write); a value at its limit holds.  Every change is one Step= at most
 * and the value never leaves Min=..Max=.
 *
 * Two guardrails stop the rule for good (the value in force stays, every
 * later decision is a hold, "stopped") until ag_tune_init() again:
 *
 *   budget: a write that MaxWritesPerHour= has no room for in the last
 *     hour (tries count, failed or not) is not made.  With Guard=, a
 *     STEP or BACK needs room for itself and its REVERT, so that a step
 *     can always be undone within the budget.
 *   oscillation: AG_TUNE_OSC_REVERSALS changes of direction among the
 *     last AG_TUNE_OSC_CHANGES changes, all within the hour: the plant
 *     answers each step by asking for the opposite one, and the rule
 *     only makes it swing.
 *
 * Documentation/agent.rst.
 */
#include <string.h>

#include "agent.h"

static const char *const ag_tune_actions[] = {
	[AG_TUNE_HOLD] = "hold",
	[AG_TUNE_STEP] = "step",
	[AG_TUNE_BACK] = "back",
	[AG_TUNE_REVERT] = "revert",
};

static const char *const ag_tune_reasons[AG_TUNE_R_NUM] = {
	[AG_TUNE_R_IDLE] = "idle",
	[AG_TUNE_R_NO_DATA] = "no-data",
	[AG_TUNE_R_HIGH] = "high",
	[AG_TUNE_R_LOW] = "low",
	[AG_TUNE_R_GUARD] = "guard",
	[AG_TUNE_R_COOLDOWN] = "cooldown",
	[AG_TUNE_R_LIMIT] = "limit",
	[AG_TUNE_R_BLOCKED] = "blocked",
	[AG_TUNE_R_BUDGET] = "budget",
	[AG_TUNE_R_STOPPED] = "stopped",
};

static const char *const ag_tune_stops[AG_TUNE_STOP_NUM] = {
	[AG_TUNE_RUNNING] = "running",
	[AG_TUNE_STOP_OSCILLATION] = "oscillation",
	[AG_TUNE_STOP_BUDGET] = "budget",
};

const char *ag_tune_stop_name(enum ag_tune_stop r)
{
	return (unsigned int)r < AG_TUNE_STOP_NUM ? ag_tune_stops[r] : "?";
}

const char *ag_tune_action_name(enum ag_tune_action a)
{
	return (unsigned int)a <= AG_TUNE_REVERT ? ag_tune_actions[a] : "?";
}

const char *ag_tune_reason_name(enum ag_tune_reason r)
{
	return (unsigned int)r < AG_TUNE_R_NUM ? ag_tune_reasons[r] : "?";
}

const char *ag_tune_dir_name(int dir)
{
	return dir > 0 ? "up" : dir < 0 ? "down" : "none";
}

void ag_tune_rule_from(struct ag_tune_rule *r, const struct rt_profile *p)
{
	memset(r, 0, sizeof(*r));
	r->dir = p->tune_dir == RT_TUNE_DECREASE ? -1 : 1;
	r->above = p->tune_above;
	r->below = p->tune_below;
	r->step = p->tune_step;
	r->min = p->tune_min;
	r->max = p->tune_max;
	r->base = p->dcqcn[p->tune_param];
	r->cooldown_ms = p->tune_cooldown_ms;
	r->guard = p->tune_guard != RT_TM_NONE;
	r->guard_tol = p->tune_guard_tol;
	r->max_writes = p->tune_max_writes_h < AG_TUNE_WRITES_MAX ?
			p->tune_max_writes_h : AG_TUNE_WRITES_MAX;
}

static bool ag_tune_in_window(uint64_t t, uint64_t now)
{
	return now < t + AG_TUNE_WINDOW_MS;
}

unsigned int ag_tune_writes(const struct ag_tune_state *s, uint64_t now_ms)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->nwrites; i++)
		n += ag_tune_in_window(s->write_ms[i], now_ms);
	return n;
}

/* Record a write (or a try) at @now, forgetting those out of the window. */
static void ag_tune_count_write(struct ag_tune_state *s, uint64_t now)
{
	unsigned int drop = 0;

	while (drop < s->nwrites &&
	       !ag_tune_in_window(s->write_ms[drop], now))
		drop++;
	/* Full: the rule never writes more than AG_TUNE_WRITES_MAX an hour. */
	if (s->nwrites - drop == AG_TUNE_WRITES_MAX)
		drop++;
	memmove(s->write_ms, s->write_ms + drop,
		(s->nwrites - drop) * sizeof(s->write_ms[0]));
	s->nwrites -= drop;
	s->write_ms[s->nwrites++] = now;
}

/* A change of the value in force @dir at @now: oscillation? */
static void ag_tune_count_change(struct ag_tune_state *s, uint64_t now,
				 int dir)
{
	unsigned int i;

	if (s->nchanges == AG_TUNE_OSC_CHANGES) {
		memmove(s->changes, s->changes + 1,
			(AG_TUNE_OSC_CHANGES - 1) * sizeof(s->changes[0]));
		s->nchanges--;
	}
	s->changes[s->nchanges].ms = now;
	s->changes[s->nchanges].dir = dir;
	s->nchanges++;
	s->reversals = 0;
	for (i = 1; i < s->nchanges; i++)
		s->reversals += ag_tune_in_window(s->changes[i - 1].ms, now) &&
				s->changes[i].dir != s->changes[i - 1].dir;
	if (s->reversals >= AG_TUNE_OSC_REVERSALS) {
		s->stopped = AG_TUNE_STOP_OSCILLATION;
		s->stopped_ms = now;
	}
}

void ag_tune_init(struct ag_tune_state *s, const struct ag_tune_rule *r)
{
	memset(s, 0, sizeof(*s));
	s->value = r->base;
	s->prev = r->base;
}

/* @v moved one step @dir, within min..max and, @toward, not past @stop. */
static uint32_t ag_tune_move(const struct ag_tune_rule *r, uint32_t v, int dir,
			     bool toward, uint32_t stop)
{
	uint64_t t;

	if (dir > 0) {
		t = (uint64_t)v + r->step;
		if (t > r->max)
			t = r->max;
		if (toward && t > stop)
			t = stop;
	} else {
		t = v > r->step ? v - r->step : 0;
		if (t < r->min)
			t = r->min;
		if (toward && t < stop)
			t = stop;
	}
	return (uint32_t)t;
}

static bool ag_tune_cooling(const struct ag_tune_rule *r,
			    const struct ag_tune_state *s, uint64_t now)
{
	return s->changed && now < s->changed_ms + r->cooldown_ms;
}

void ag_tune_decide(const struct ag_tune_rule *r,
		    const struct ag_tune_state *s, const struct ag_tune_in *in,
		    struct ag_tune_decision *d)
{
	uint32_t to;
	int dir;

	memset(d, 0, sizeof(*d));
	d->action = AG_TUNE_HOLD;
	d->from = s->value;
	d->to = s->value;
	if (s->stopped) {
		d->reason = AG_TUNE_R_STOPPED;
		return;
	}
	if (!in->fresh) {
		d->reason = AG_TUNE_R_NO_DATA;
		return;
	}
	if (r->guard && s->watching &&
	    in->guard > s->guard_before + r->guard_tol) {
		/* Room for it: a guarded step left it (below). */
		if (ag_tune_writes(s, in->now_ms) >= r->max_writes) {
			d->reason = AG_TUNE_R_BUDGET;
			return;
		}
		d->action = AG_TUNE_REVERT;
		d->reason = AG_TUNE_R_GUARD;
		d->to = s->prev;
		d->dir = s->prev > s->value ? 1 : -1;
		return;
	}
	if (in->metric > r->above) {
		d->reason = AG_TUNE_R_HIGH;
		dir = r->dir;
		to = ag_tune_move(r, s->value, dir, false, 0);
	} else if (in->metric < r->below && s->value != r->base) {
		d->reason = AG_TUNE_R_LOW;
		dir = s->value < r->base ? 1 : -1;
		to = ag_tune_move(r, s->value, dir, true, r->base);
	} else {
		d->reason = AG_TUNE_R_IDLE;
		return;
	}
	/* Something to do: may it be done now? */
	if (s->blocked == dir) {
		d->reason = AG_TUNE_R_BLOCKED;
		return;
	}
	if (to == s->value) {
		d->reason = AG_TUNE_R_LIMIT;
		return;
	}
	if (ag_tune_cooling(r, s, in->now_ms)) {
		d->reason = AG_TUNE_R_COOLDOWN;
		return;
	}
	/* This write, and with a guard its revert, within the budget. */
	if (ag_tune_writes(s, in->now_ms) + (r->guard ? 2 : 1) >
	    r->max_writes) {
		d->dir = dir;
		d->reason = AG_TUNE_R_BUDGET;
		return;
	}
	d->action = d->reason == AG_TUNE_R_HIGH ? AG_TUNE_STEP : AG_TUNE_BACK;
	d->dir = dir;
	d->to = to;
}

void ag_tune_update(const struct ag_tune_rule *r, struct ag_tune_state *s,
		    const struct ag_tune_in *in,
		    const struct ag_tune_decision *d, bool applied)
{
	if (s->stopped)
		return;
	if (d->reason == AG_TUNE_R_BUDGET) {
		s->stopped = AG_TUNE_STOP_BUDGET;
		s->stopped_ms = in->now_ms;
		return;
	}
	if (!in->fresh)
		return;
	/* The metric crossed the band: a reverted step may be tried again. */
	if ((s->blocked == r->dir && in->metric < r->below) ||
	    (s->blocked == -r->dir && in->metric > r->above))
		s->blocked = 0;
	if (d->action == AG_TUNE_HOLD) {
		/* The guard has seen a sample after the step: cool-down over? */
		if (s->watching && !ag_tune_cooling(r, s, in->now_ms))
			s->watching = false;
		return;
	}
	/* A failed write waits for the cool-down too: no hammering. */
	s->changed = true;
	s->changed_ms = in->now_ms;
	ag_tune_count_write(s, in->now_ms);
	if (!applied)
		return;
	ag_tune_count_change(s, in->now_ms, d->dir);
	if (d->action == AG_TUNE_REVERT) {
		s->blocked = d->dir > 0 ? -1 : 1;	/* the reverted step's way */
		s->value = d->to;
		s->prev = d->to;
		s->watching = false;
		return;
	}
	s->prev = s->value;
	s->value = d->to;
	s->watching = r->guard;
	s->guard_before = in->guard;
}
