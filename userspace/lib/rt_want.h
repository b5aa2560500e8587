/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: what a profile wants on a NIC (the real
 * backend that reads and writes a NIC's settings is rt_sysio.h's).
 */
#ifndef RT_WANT_H
#define RT_WANT_H

#include <stddef.h>

#include "rt_nic.h"
#include "rt_profile.h"
#include "rt_setting.h"

/* rt_cc_file() - the vendor file of a cc key, NULL if the vendor has none. */
const char *rt_cc_file(enum rt_cc_vendor vendor, unsigned int key);

/*
 * rt_want_build() - the state @p wants on @nic, given its current state
 * @cur: every setting the profile governs, with what the profile leaves
 * unsaid taken from @cur.  NIC-dependent errors go to @d, each naming the
 * profile's file:line and key; returns 0 or -EINVAL.
 */
int rt_want_build(const struct rt_profile *p, const struct rt_nic *nic,
		  const struct rt_nic_state *cur, struct rt_state *want,
		  struct rt_diag *d);
/* rt_want_needs() - the parts of a NIC's state @p governs (RT_NEED_*). */
unsigned int rt_want_needs(const struct rt_profile *p);

/*
 * rt_drvcheck() - what @nic's driver would refuse of @want, or keep
 * differently from it, as errors in @d naming the driver's rule
 * (rt_drvcheck.c); @cur is the NIC's state @want was built from.
 */
void rt_drvcheck(const struct rt_profile *p, const struct rt_nic *nic,
		 const struct rt_nic_state *cur, const struct rt_state *want,
		 struct rt_diag *d);

#endif /* RT_WANT_H */
