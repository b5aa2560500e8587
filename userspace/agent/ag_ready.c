// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: readiness.  The agent is ready when its start-up applies are
 * done, its last profile reload succeeded, and every NIC a profile
 * matches has that profile in force: applied (or found as it says) and
 * read back, no apply waiting for the NIC's lock, no drift left as it
 * is, no stuck journal, no storm action holding PFC off.  What a rollout
 * gates on (GET /ready, STATUS=, rocetune_agent_ready): one line per
 * reason it is not, each naming the NIC.
 */
#include <stdarg.h>
#include <string.h>

#include "agent.h"

/* One reason, on @f unless it is NULL (only counted). */
__attribute__((format(printf, 2, 3)))
static size_t ag_reason(FILE *f, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return 1;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	return 1;
}

static size_t ag_ready_nic(FILE *f, const struct ag_ready_nic *r)
{
	const char *e = r->last_error ? r->last_error : "";
	size_t n = 0;

	if (!r->profile)
		return 0;		/* nothing asked of it */
	if (r->busy)
		n += ag_reason(f, "%s: its apply waits for the NIC's lock (another apply holds it)",
			       r->netdev);
	else if (!r->applied)
		n += ag_reason(f, "%s: profile %s not applied yet", r->netdev,
			       r->profile_name);
	else if (r->last != RT_RES_APPLIED && r->last != RT_RES_UNCHANGED)
		n += ag_reason(f, "%s: profile %s: last apply %s%s%s",
			       r->netdev, r->profile_name,
			       rt_result_name(r->last), e[0] ? ": " : "", e);
	if (r->drift_left)
		n += ag_reason(f, "%s: drifted from profile %s, left so (%s)",
			       r->netdev, r->profile_name,
			       r->drift_why ? r->drift_why : "drift");
	if (r->journal_stuck)
		n += ag_reason(f, "%s: a stuck journal blocks its applies (rocetune profile journal show dev %s)",
			       r->netdev, r->netdev);
	if (r->storm_action)
		n += ag_reason(f, "%s: a pause storm action is in force",
			       r->netdev);
	return n;
}

size_t ag_ready_write(FILE *f, const struct ag_ready_in *in)
{
	size_t i, n = 0;

	if (!in->started)
		n += ag_reason(f, "the start-up applies are not done");
	if (in->reload_error && in->reload_error[0])
		n += ag_reason(f, "the last profile reload failed (the profiles before stay in force): %s",
			       in->reload_error);
	for (i = 0; i < in->n; i++)
		n += ag_ready_nic(f, &in->nics[i]);
	return n;
}
