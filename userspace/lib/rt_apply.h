/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: transactional apply of a profile to a NIC.
 *
 * The state of a NIC is a list of settings, each one independently
 * writable: the ETS configuration, PFC, per-TC max rates, buffers, one
 * DSCP->priority APP entry per DSCP, apptrust, the PFC storm prevention
 * timeout, one vendor DCQCN parameter each.  Applying a profile is:
 *
 *   lock the NIC (by name and ifindex) -> finish a journal an interrupted
 *   apply left (check it, restore its snapshot; a damaged journal, or one
 *   of another NIC, blocks the apply until discarded: rt_run.h) -> read the current state -> build the wanted state from the
 *   profile (rt_want.c; NIC-dependent checks, nothing written on error) ->
 *   diff -> write the journal (the old value of every setting to write) ->
 *   write the differing settings one by one in a safe order -> read
 *   everything back -> on any failure or mismatch restore the snapshot,
 *   read back again, and report what failed and what state the NIC is in
 *   -> remove the journal, unlock.
 *
 * The safe order: first what takes traffic out of a class (DSCP entries
 * removed, trust away from DSCP), then ETS, max rates, buffers, PFC and
 * the storm timeout, then what steers traffic into a class (DSCP entries,
 * trust DSCP), then DCQCN; a restore runs the middle group backwards.  So
 * traffic never enters a priority before it is lossless, and leaves it
 * before it stops being lossless.
 *
 * Backends are reached through struct rt_backend_ops, so the engine can be
 * unit-tested with a model NIC.
 */
#ifndef RT_APPLY_H
#define RT_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_nic.h"
#include "rt_profile.h"
#include "rt_run.h"
#include "rt_setting.h"
#include "rt_want.h"

/* rt_setting_phase() - order of the write that sets @want over @cur. */
int rt_setting_phase(const struct rt_setting *want,
		     const struct rt_setting *cur);

enum rt_result {
	RT_RES_UNCHANGED,	/* the NIC already was as the profile says */
	RT_RES_APPLIED,		/* written and read back */
	RT_RES_DRY_RUN,		/* nothing written: what would change */
	RT_RES_INVALID,		/* the profile cannot apply to this NIC */
	RT_RES_ROLLED_BACK,	/* failed; the NIC is as it was */
	RT_RES_ROLLBACK_FAILED,	/* failed; the NIC is not as it was */
	RT_RES_VANISHED,	/* the NIC went away */
	RT_RES_ERROR,		/* nothing written: could not start */
	RT_RES_NO_PROFILE,	/* no profile matches the NIC */
};

const char *rt_result_name(enum rt_result r);

struct rt_change {
	struct rt_setting old;
	struct rt_setting want;
};

struct rt_apply_result {
	enum rt_result result;
	unsigned int writes;		/* writes of the apply itself */
	unsigned int restore_writes;	/* writes restoring a snapshot */
	bool recovered;			/* an interrupted apply was undone */
	unsigned int recovered_writes;
	unsigned int nchanges;		/* differing settings */
	struct rt_change changes[RT_SET_MAX];
	char error[1024];		/* what failed, or "" */
	char state[1024];		/* what state the NIC is in, or "" */
	char warning[512];		/* e.g. the link flaps, or "" */
	struct rt_diag diag;		/* RT_RES_INVALID: why */
	bool lock_busy;			/* RT_RES_ERROR: another process held
					 * the NIC's lock; nothing was read
					 * or written */
};

/*
 * rt_apply_nic() - apply @p to @nic (dry run: only compute the changes).
 * Fills @res; returns 0 when the NIC ends as the profile says (or a dry
 * run succeeded), else -1.
 */
int rt_apply_nic(const struct rt_backend_ops *ops, void *ctx,
		 const struct rt_nic *nic, const struct rt_profile *p,
		 bool dry_run, struct rt_apply_result *res);

/*
 * A watch after the apply (rt_verify.h).  @baseline runs before the first
 * write, @watch after the read-back, both under the NIC's lock and (for
 * @watch) with the journal in place; either returning non-zero with @msg
 * fails the apply: nothing written, or the snapshot restored.  @readback
 * re-reads the written settings: 0, or -EIO with what differs.
 */
struct rt_apply_verify {
	int (*baseline)(void *arg, const struct rt_nic *nic, char *msg,
			size_t len);
	int (*watch)(void *arg, const struct rt_nic *nic,
		     int (*readback)(void *rb, char *msg, size_t len),
		     void *rb, char *msg, size_t len);
	void *arg;
};

/* How rt_apply_nic_opts() runs. */
struct rt_apply_opts {
	const struct rt_apply_verify *verify;	/* NULL: no watch */
	bool dry_run;			/* only compute the changes */
	bool dry_run_locked;		/* a dry run reads under the NIC's
					 * lock (not a half-done apply) */
	unsigned int lock_wait_ms;	/* 0: fail at once (lock_busy) */
};

/*
 * rt_apply_nic_opts() - rt_apply_nic() with @o: rt_apply_nic() is a real
 * apply or an unlocked dry run waiting up to RT_LOCK_WAIT_MS.  Whoever
 * must not wait (the agent's event loop) passes lock_wait_ms 0 and tries
 * again when res->lock_busy.
 */
int rt_apply_nic_opts(const struct rt_backend_ops *ops, void *ctx,
		      const struct rt_nic *nic, const struct rt_profile *p,
		      const struct rt_apply_opts *o,
		      struct rt_apply_result *res);

#endif /* RT_APPLY_H */
