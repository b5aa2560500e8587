// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: what a pause-storm action writes and what its restore puts
 * back, from the state the action read before it wrote anything.
 *
 * The rule: an action only ever changes the storming priorities' part of
 * a state it has read.  Action=disable-pfc reads the NIC's PFC and clears
 * the bits of the priorities it covers; Action=timeout sets the tunable,
 * after reading the value to restore when the profile does not say it.
 * A read that fails means no action: nothing is written, the caller is
 * told why (and counts and logs it), and the priority is not taken as
 * acted, so the next attempt reads again.
 *
 * The reads and the apply go through ag_storm_ops: the daemon's are the
 * DCB and ethtool backends and the engine, the unit tests' inject
 * failures and record the writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static const char *const ag_skip_names[AG_SKIP_NUM] = {
	[AG_SKIP_PFC_READ] = "pfc-read-failed",
	[AG_SKIP_TOUT_READ] = "tout-read-failed",
	[AG_SKIP_NOMEM] = "out-of-memory",
};

const char *ag_skip_name(enum ag_skip r)
{
	return r < AG_SKIP_NUM ? ag_skip_names[r] : "?";
}

/* The line the agent's own settings are attributed to in messages. */
static unsigned int ag_storm_line(const struct rt_profile *p)
{
	return p->line[RT_PK_WD_ACTION] ? p->line[RT_PK_WD_ACTION] : 1;
}

/*
 * Only the action's setting: the engine then reads and reads back only
 * that part of the NIC (not every vendor file), which is the latency of
 * the action.  The other settings are the drift checks' business.
 */
void ag_storm_only(struct rt_profile *p)
{
	enum rt_pkey keep = p->wd_action == RT_WD_TIMEOUT ?
			    RT_PK_PFC_STORM_TIMEOUT_MS : RT_PK_PFC;
	unsigned int k;

	for (k = RT_PK_MATCH_NUM; k < RT_PK_NUM; k++)
		if (k != keep)
			p->line[k] = 0;
}

int ag_storm_eff(const struct ag_storm *s, const struct rt_profile *b,
		 uint8_t acted, struct rt_profile *eff)
{
	if (!acted || b->wd_action == RT_WD_ALERT)
		return 0;
	if (!s->saved || s->action != b->wd_action)
		return -ENODATA;
	if (b->wd_action == RT_WD_TIMEOUT) {
		eff->pfc_storm_tout = b->wd_timeout_ms;
		eff->line[RT_PK_PFC_STORM_TIMEOUT_MS] = ag_storm_line(b);
	} else {
		/* Only the acted bits of what was read: never another. */
		eff->pfc_en = s->pfc_en & (uint8_t)~acted;
		eff->line[RT_PK_PFC] = ag_storm_line(b);
	}
	return 0;
}

void ag_storm_restore_profile(const struct ag_storm *s,
			      const struct rt_profile *b, struct rt_profile *rp)
{
	*rp = *b;
	if (s->saved && s->action == RT_WD_TIMEOUT &&
	    b->wd_action == RT_WD_TIMEOUT &&
	    !rt_profile_has(b, RT_PK_PFC_STORM_TIMEOUT_MS) && s->tout_ok) {
		rp->pfc_storm_tout = s->tout;
		rp->line[RT_PK_PFC_STORM_TIMEOUT_MS] = ag_storm_line(b);
	}
	if (s->saved && s->action == RT_WD_DISABLE_PFC &&
	    b->wd_action == RT_WD_DISABLE_PFC && !rt_profile_has(b, RT_PK_PFC)) {
		rp->pfc_en = s->pfc_en;
		rp->line[RT_PK_PFC] = ag_storm_line(b);
	}
	ag_storm_only(rp);
}

/* Read what the action starts from; 0, or why not. */
static int ag_storm_save(struct ag_storm *s, const struct rt_profile *p,
			 const struct ag_storm_ops *ops, void *arg,
			 enum ag_skip *skip, char *msg, size_t len)
{
	int err;

	s->saved = false;
	s->tout_ok = false;
	s->action = p->wd_action;
	if (p->wd_action == RT_WD_DISABLE_PFC) {
		err = ops->read_pfc(arg, &s->pfc_en, msg, len);
		if (err) {
			*skip = AG_SKIP_PFC_READ;
			return err;
		}
	} else if (!rt_profile_has(p, RT_PK_PFC_STORM_TIMEOUT_MS)) {
		/* No profile value to go back to: the value read is it. */
		err = ops->read_tout(arg, &s->tout, msg, len);
		if (err) {
			*skip = AG_SKIP_TOUT_READ;
			return err;
		}
		s->tout_ok = true;
	}
	s->saved = true;
	return 0;
}

int ag_storm_act(struct ag_storm *s, struct ag_wd *wd, uint8_t fresh,
		 const struct rt_profile *b, const struct ag_storm_ops *ops,
		 void *arg, enum ag_skip *skip, char *msg, size_t len)
{
	struct rt_profile *ap;
	bool was;
	int err;

	if (msg && len)
		msg[0] = '\0';
	if (!s->saved) {
		err = ag_storm_save(s, b, ops, arg, skip, msg, len);
		if (err)
			goto skipped;
	}
	ap = malloc(sizeof(*ap));
	if (!ap) {
		*skip = AG_SKIP_NOMEM;
		snprintf(msg, len, "out of memory");
		goto skipped;
	}
	*ap = *b;
	if (ag_storm_eff(s, b, wd->acted, ap)) {
		free(ap);
		*skip = AG_SKIP_PFC_READ;
		snprintf(msg, len, "no state read to act on");
		goto skipped;
	}
	ag_storm_only(ap);
	was = s->in_force;
	s->in_force = true;
	err = ops->apply(arg, ap, "storm action");
	free(ap);
	if (err == -EBUSY) {
		/*
		 * Another apply holds the NIC: nothing written.  Not acted;
		 * the retry reads again (that apply may change PFC) unless
		 * an action is in force already (its read is the restore's).
		 */
		s->in_force = was;
		if (!was)
			s->saved = false;
		wd->acted &= (uint8_t)~fresh;
		return 2;
	}
	return err ? 1 : 0;

skipped:
	/* Not acted: the next attempt (a retry, a resync) reads again. */
	wd->acted &= (uint8_t)~fresh;
	return -1;
}

int ag_storm_restore(struct ag_storm *s, const struct rt_profile *b,
		     const struct ag_storm_ops *ops, void *arg)
{
	struct rt_profile *rp;
	int err;

	if (!s->in_force || b->wd_action == RT_WD_ALERT) {
		s->in_force = false;
		s->saved = false;
		return 0;
	}
	rp = malloc(sizeof(*rp));
	if (!rp) {
		s->in_force = false;
		return -ENOMEM;
	}
	ag_storm_restore_profile(s, b, rp);
	err = ops->apply(arg, rp, "storm restore");
	free(rp);
	if (err == -EBUSY)
		return 2;	/* nothing written: all kept for the retry */
	s->in_force = false;
	s->saved = false;
	return err ? 1 : 0;
}
