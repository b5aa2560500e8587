// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the transactional apply engine (see
 * rt_apply.h): diff, safe ordering, per-NIC lock, crash journal, read-back
 * and restore.
 */
#define _GNU_SOURCE		/* secure_getenv() */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_util.h"
#include "rt_apply.h"

/* Ordering -------------------------------------------------------------- */

/*
 * DCQCN: switching off first (8), then the moves that keep the minimum
 * rate not above the maximum whatever comes next (a lower minimum, a
 * higher maximum) with the other parameters (9), then a lower maximum or
 * a higher minimum (10), switching on last (11), so that rocetune.ko,
 * which refuses a minimum above the maximum, accepts every step of an
 * apply and of its restore, and the reaction point starts with its new
 * parameters.
 */
static int rt_cc_phase(const struct rt_setting *want,
		       const struct rt_setting *cur)
{
	unsigned int i;

	switch (want->key) {
	case RT_DCQCN_ENABLE:
		for (i = 0; i < want->n; i++)
			if (want->v[i] && (!cur || cur->absent || i >= cur->n ||
					   !cur->v[i]))
				return 11;
		return 8;
	case RT_DCQCN_MIN_RATE_MBPS:
		return cur && !cur->absent && want->v[0] > cur->v[0] ? 10 : 9;
	case RT_DCQCN_MAX_RATE_MBPS:
		return cur && !cur->absent && want->v[0] < cur->v[0] ? 10 : 9;
	}
	return 9;
}

/*
 * Steering out of a class first (0), the class itself (1-5), steering
 * into it (6, 7), DCQCN (8-11).  Buffers and PFC share phase 3, in which
 * rt_pfc_sub() orders them by direction.
 */
int rt_setting_phase(const struct rt_setting *want,
		     const struct rt_setting *cur)
{
	unsigned int i;

	switch (want->kind) {
	case RT_SK_DSCP:
		return want->absent && cur && !cur->absent ? 0 : 6;
	case RT_SK_APPTRUST:
		for (i = 0; i < want->n; i++)
			if (want->v[i] == 5)
				return 7;
		return 0;
	case RT_SK_ETS:
		return 1;
	case RT_SK_MAXRATE:
		return 2;
	case RT_SK_BUFFER:
	case RT_SK_PFC:
		return 3;
	case RT_SK_PFC_STORM:
		return 5;
	case RT_SK_CC:
		return rt_cc_phase(want, cur);
	}
	return 12;
}

const char *rt_result_name(enum rt_result r)
{
	static const char * const names[] = {
		[RT_RES_UNCHANGED] = "unchanged",
		[RT_RES_APPLIED] = "applied",
		[RT_RES_DRY_RUN] = "dry-run",
		[RT_RES_INVALID] = "invalid",
		[RT_RES_ROLLED_BACK] = "rolled-back",
		[RT_RES_ROLLBACK_FAILED] = "rollback-failed",
		[RT_RES_VANISHED] = "vanished",
		[RT_RES_ERROR] = "error",
		[RT_RES_NO_PROFILE] = "no-profile",
	};

	return r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

/* The journal (rt_run.c) ------------------------------------------------ */

static void rt_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Write the snapshot of the settings about to change, durably. */
static int rt_journal_save(const struct rt_nic *nic,
			   const struct rt_profile *p,
			   const struct rt_state *snap, char *msg, size_t len)
{
	struct rt_journal *j = calloc(1, sizeof(*j));
	int err;

	if (!j) {
		rt_fmt(msg, len, "out of memory");
		return -ENOMEM;
	}
	err = rt_journal_path(nic->id.netdev, j->path, sizeof(j->path));
	if (!err) {
		rt_fmt(j->netdev, sizeof(j->netdev), "%s", nic->id.netdev);
		j->ifindex = nic->ifindex;
		j->pid = (int)getpid();
		j->time = (int64_t)time(NULL);
		rt_fmt(j->profile, sizeof(j->profile), "%s", p ? p->path : "");
		rt_fmt(j->driver, sizeof(j->driver), "%s", nic->id.driver);
		rt_fmt(j->bus_info, sizeof(j->bus_info), "%s",
		       nic->id.bus_info);
		rt_fmt(j->rdma_dev, sizeof(j->rdma_dev), "%s",
		       nic->id.rdma_dev);
		j->snap = *snap;
		err = rt_journal_write(j, msg, len);
	} else {
		rt_fmt(msg, len, "%s: name too long for a journal",
		       nic->id.netdev);
	}
	free(j);
	return err;
}

static void rt_journal_remove(const char *netdev)
{
	char path[1024];

	if (!rt_journal_path(netdev, path, sizeof(path)))
		unlink(path);
}

/* Converging a NIC to a target state ------------------------------------ */

struct rt_write {
	const struct rt_setting *want;
	struct rt_setting cur;
	int phase;
	int sub;		/* order within phase 3: rt_pfc_sub() */
	unsigned int order;
};

static int rt_write_cmp(const void *a, const void *b)
{
	const struct rt_write *x = a, *y = b;

	if (x->phase != y->phase)
		return x->phase - y->phase;
	if (x->sub != y->sub)
		return x->sub - y->sub;
	return (int)x->order - (int)y->order;
}

/*
 * PFC and the buffers, in either direction (an apply or its restore): no
 * state in between may have PFC on a priority whose buffer has lost its
 * headroom.  So PFC is turned off (0) before the buffers change (1) and
 * turned on (2) after they have.  A PFC write that turns some priorities
 * off and others on is split when buffers change too: the priorities
 * that stay on, first (rt_converge()).
 */
static int rt_pfc_sub(const struct rt_setting *want,
		      const struct rt_setting *cur)
{
	uint64_t on = want->v[0], was = cur->absent ? 0 : cur->v[0];

	if (want->kind == RT_SK_BUFFER)
		return 1;
	return (was & ~on) && !(on & ~was) ? 0 : 2;
}

static unsigned int rt_delay_ms(void)
{
	const char *s = secure_getenv("ROCETUNE_APPLY_DELAY_MS");

	return s ? (unsigned int)strtoul(s, NULL, 10) : 0;
}

static unsigned int rt_state_needs(const struct rt_state *st)
{
	unsigned int i, need = 0;

	for (i = 0; i < st->n; i++) {
		switch (st->s[i].kind) {
		case RT_SK_PFC_STORM:
			need |= RT_NEED_STORM;
			break;
		case RT_SK_CC:
			need |= RT_NEED_CC;
			break;
		default:
			need |= RT_NEED_DCB;
		}
	}
	return need;
}

/* One DSCP APP entry DSCP @key -> @prio added (@add) or deleted. */
static int rt_write_app(const struct rt_backend_ops *ops, void *ctx,
			const struct rt_nic *nic, unsigned int key,
			unsigned int prio, bool add, unsigned int *writes,
			char *msg, size_t len)
{
	struct rt_setting entry = { .kind = RT_SK_DSCP, .key = key, .n = 2 };
	struct rt_setting none = entry;
	int err;

	entry.v[0] = prio;
	entry.v[1] = 1u << prio;
	none.absent = true;
	err = add ? ops->write(ctx, nic, &entry, &none, msg, len) :
		    ops->write(ctx, nic, &none, &entry, msg, len);
	(*writes)++;
	return err;
}

/*
 * Bring DSCP @want->key from @cur's APP entries to @want's, one request
 * per entry.  The entries that must go are deleted before the wanted one
 * is added, as "dcb app replace" does: ice refuses an add for a mapped
 * DSCP (EINVAL) and bnxt_en adds it beside the old entry, where both
 * would stay.  When any entry must go, the wanted one goes too and is
 * added again, last: bnxt_en's firmware unmaps a DSCP on every delete,
 * whatever entries are left.  mlx5 replaces a mapped DSCP's entry itself,
 * so there a remap is the single add.
 */
static int rt_write_dscp(const struct rt_backend_ops *ops, void *ctx,
			 const struct rt_nic *nic,
			 const struct rt_setting *want,
			 const struct rt_setting *cur, unsigned int *writes,
			 char *msg, size_t len)
{
	unsigned int have = rt_dscp_mask(cur), need = rt_dscp_mask(want);
	unsigned int del = have & ~need ? have : 0, add = need & ~(have & ~del);
	unsigned int first = want->absent ? 8 : (unsigned int)want->v[0];
	unsigned int p;
	int err;

	if (!strcmp(nic->id.driver, "mlx5_core") &&
	    __builtin_popcount(have) == 1 && __builtin_popcount(need) == 1)
		del = 0;
	for (p = 0; p < 8; p++) {
		if (!(del & (1u << p)))
			continue;
		err = rt_write_app(ops, ctx, nic, want->key, p, false, writes,
				   msg, len);
		if (err)
			return err;
	}
	for (p = 0; p < 8; p++) {
		if (p == first || !(add & (1u << p)))
			continue;
		err = rt_write_app(ops, ctx, nic, want->key, p, true, writes,
				   msg, len);
		if (err)
			return err;
	}
	/* The newest entry is the first of dcbnl's table: v[0]'s last. */
	if (first < 8 && (add & (1u << first)))
		return rt_write_app(ops, ctx, nic, want->key, first, true,
				    writes, msg, len);
	return 0;
}

/*
 * Write every setting of @target that differs from @cur, in the safe
 * order (@restore: the class settings backwards).  The apply stops at the
 * first failure; a restore goes on and reports the first failure.
 * @writes counts the writes made.
 */
static int rt_converge(const struct rt_backend_ops *ops, void *ctx,
		       const struct rt_nic *nic, const struct rt_state *target,
		       const struct rt_state *cur, bool restore,
		       unsigned int *writes, char *msg, size_t len)
{
	struct rt_write *w;
	struct rt_setting pfc_off;
	unsigned int i, n = 0, delay = rt_delay_ms();
	int pfc = -1, ret = 0, err;
	bool buffer = false;
	char name[64], emsg[768];

	w = calloc(target->n + 1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (i = 0; i < target->n; i++) {
		const struct rt_setting *t = &target->s[i];
		const struct rt_setting *c = rt_state_find(cur, t->kind,
							   t->key);

		if (c && rt_setting_equal(t, c))
			continue;
		w[n].want = t;
		if (c) {
			w[n].cur = *c;
		} else {
			w[n].cur = *t;
			w[n].cur.absent = true;
		}
		w[n].phase = rt_setting_phase(t, c);
		if (restore && w[n].phase >= 1 && w[n].phase <= 5)
			w[n].phase = 6 - w[n].phase;
		w[n].order = i;
		if (t->kind == RT_SK_PFC || t->kind == RT_SK_BUFFER)
			w[n].sub = rt_pfc_sub(t, &w[n].cur);
		buffer |= t->kind == RT_SK_BUFFER;
		if (t->kind == RT_SK_PFC)
			pfc = (int)n;
		n++;
	}
	if (pfc >= 0 && buffer && w[pfc].sub == 2 && !w[pfc].cur.absent &&
	    (w[pfc].cur.v[0] & ~w[pfc].want->v[0])) {
		/* off and on at once: first off, keeping what stays on */
		pfc_off = w[pfc].cur;
		pfc_off.v[0] &= w[pfc].want->v[0];
		w[n] = w[pfc];
		w[n].want = &pfc_off;
		w[n].sub = 0;
		w[pfc].cur = pfc_off;
		n++;
	}
	qsort(w, n, sizeof(*w), rt_write_cmp);
	for (i = 0; i < n; i++) {
		if (delay && (*writes || i))
			rt_sleep_ms(delay);
		emsg[0] = '\0';
		if (w[i].want->kind == RT_SK_DSCP) {
			err = rt_write_dscp(ops, ctx, nic, w[i].want,
					    &w[i].cur, writes, emsg,
					    sizeof(emsg));
		} else {
			err = ops->write(ctx, nic, w[i].want, &w[i].cur, emsg,
					 sizeof(emsg));
			(*writes)++;
		}
		if (!err)
			continue;
		if (!ret) {
			rt_setting_name(w[i].want, name, sizeof(name));
			rt_fmt(msg, len, "%s: %s", name,
				 emsg[0] ? emsg : strerror(-err));
			ret = err;
		}
		if (!restore || err == -ENODEV || err == -ESTALE)
			break;
	}
	free(w);
	return ret;
}

/*
 * Compare what @target wants with @now; describe the first mismatch in
 * @msg.  Returns the number of mismatches.
 */
static unsigned int rt_mismatches(const struct rt_state *target,
				  const struct rt_state *now, char *msg,
				  size_t len, const char *what)
{
	char name[64], got[256], want[256];
	unsigned int i, n = 0;
	size_t off = 0;

	for (i = 0; i < target->n; i++) {
		const struct rt_setting *t = &target->s[i];
		const struct rt_setting *c = rt_state_find(now, t->kind,
							   t->key);

		if (c && rt_setting_equal(t, c))
			continue;
		if (n++ >= 4)
			continue;
		rt_setting_name(t, name, sizeof(name));
		rt_setting_value(t, want, sizeof(want));
		if (c)
			rt_setting_value(c, got, sizeof(got));
		else
			snprintf(got, sizeof(got), "unreadable");
		off += (size_t)snprintf(msg + off, off < len ? len - off : 0,
					"%s%s is %s, %s %s", off ? "; " : "",
					name, got, what, want);
	}
	return n;
}

/* Read the parts @need of @nic into a fresh @ns; -ENODEV when it is gone. */
static int rt_read(const struct rt_backend_ops *ops, void *ctx,
		   const struct rt_nic *nic, unsigned int need,
		   struct rt_nic_state *ns, char *msg, size_t len)
{
	memset(ns, 0, sizeof(*ns));
	return ops->read(ctx, nic, need, ns, msg, len);
}

/*
 * Bring @nic back to @snap and check it; fills res->result and
 * res->state.  Returns 0 when the NIC is as in @snap, -ENODEV when it is
 * gone (nothing left to restore), -ESTALE when its name no longer leads
 * to it (renamed or replaced: nothing more is written by that name), else
 * -EIO.
 */
static int rt_restore(const struct rt_backend_ops *ops, void *ctx,
		      const struct rt_nic *nic, const struct rt_state *snap,
		      struct rt_nic_state *ns, unsigned int *writes,
		      struct rt_apply_result *res)
{
	char msg[1024] = "";
	unsigned int need = rt_state_needs(snap), bad;
	int err;

	err = rt_read(ops, ctx, nic, need, ns, msg, sizeof(msg));
	if (!err)
		err = rt_converge(ops, ctx, nic, snap, &ns->st, true, writes,
				  msg, sizeof(msg));
	if (err != -ENODEV && err != -ESTALE)
		err = rt_read(ops, ctx, nic, need, ns, msg, sizeof(msg));
	if (err == -ENODEV) {
		res->result = RT_RES_VANISHED;
		rt_fmt(res->state, sizeof(res->state),
		       "%s disappeared: there is nothing left to restore",
		       nic->id.netdev);
		return -ENODEV;
	}
	if (err == -ESTALE) {
		res->result = RT_RES_VANISHED;
		rt_fmt(res->state, sizeof(res->state),
		       "%s: nothing more was written by that name; the journal keeps the old values for the device under its new name (%s)",
		       nic->id.netdev, msg);
		return -ESTALE;
	}
	bad = rt_mismatches(snap, &ns->st, msg, sizeof(msg), "was");
	if (bad) {
		res->result = RT_RES_ROLLBACK_FAILED;
		rt_fmt(res->state, sizeof(res->state),
			 "%s is NOT as it was: %u setting%s differ: %s",
			 nic->id.netdev, bad, bad == 1 ? "" : "s", msg);
		return -EIO;
	}
	res->result = RT_RES_ROLLED_BACK;
	rt_fmt(res->state, sizeof(res->state),
		 "%s is as it was before (read back after %u restoring write%s)",
		 nic->id.netdev, *writes, *writes == 1 ? "" : "s");
	return 0;
}

/*
 * Undo what an interrupted apply left, as its journal says (found by the
 * NIC's name or ifindex, rt_journal_find()).  A journal that cannot be
 * restored stays, with its failure counted in it; one that blocks the NIC
 * (damaged, another NIC's) stays untouched: both until restored or
 * discarded ("rocetune profile journal discard").
 */
static int rt_recover(const struct rt_backend_ops *ops, void *ctx,
		      const struct rt_nic *nic, struct rt_nic_state *ns,
		      struct rt_apply_result *res)
{
	struct rt_journal *j;
	struct rt_apply_result *tmp;
	char msg[256];
	int ret;

	j = calloc(1, sizeof(*j));
	tmp = calloc(1, sizeof(*tmp));
	if (!j || !tmp) {
		free(j);
		free(tmp);
		return -ENOMEM;
	}
	ret = rt_journal_find(nic, j, res->error, sizeof(res->error));
	if (ret <= 0)
		goto out;
	ret = rt_restore(ops, ctx, nic, &j->snap, ns, &res->recovered_writes,
			 tmp);
	if (!ret || ret == -ENODEV)
		unlink(j->path);	/* restored, or nothing to restore */
	if (!ret) {
		res->recovered = true;
		goto out;
	}
	res->result = tmp->result;
	rt_fmt(res->state, sizeof(res->state), "%s", tmp->state);
	if (ret == -ENODEV || ret == -ESTALE) {
		rt_fmt(res->error, sizeof(res->error),
		       "an interrupted apply (pid %d) left the journal %s, and %s",
		       j->pid, j->path, ret == -ENODEV ?
		       "the NIC disappeared while it was restored" :
		       "the NIC was renamed or replaced while it was restored");
		goto out;
	}
	j->failures++;
	rt_fmt(j->last_error, sizeof(j->last_error), "%s", tmp->state);
	msg[0] = '\0';
	if (rt_journal_write(j, msg, sizeof(msg)))
		rt_fmt(msg + strlen(msg), sizeof(msg) - strlen(msg), "%s",
		       " (the failure is not counted in it)");
	rt_fmt(res->error, sizeof(res->error),
	       "an interrupted apply (pid %d) left the journal %s, and restoring it failed (%u time%s)%s; it stays: the next apply tries again, \"rocetune profile journal discard dev %s\" drops it",
	       j->pid, j->path, j->failures, j->failures == 1 ? "" : "s",
	       msg, nic->id.netdev);
	ret = -EIO;
out:
	free(j);
	free(tmp);
	return ret;
}

static bool rt_pfc_en_changes(const struct rt_apply_result *res)
{
	unsigned int i;

	for (i = 0; i < res->nchanges; i++)
		if (res->changes[i].want.kind == RT_SK_PFC &&
		    res->changes[i].want.v[0] != res->changes[i].old.v[0])
			return true;
	return false;
}

/*
 * Settings a write changes as a side effect, which a restore must bring
 * back after the restoring write: writing mlx5's np_cnp_prio also sets
 * np_cnp_prio_mode to 0 ("configured priority").
 */
static void rt_snapshot_side_effects(const struct rt_nic *nic,
				     const struct rt_state *cur,
				     struct rt_state *snap)
{
	const struct rt_setting *mode;

	if (nic->cc != RT_CC_MLX5 ||
	    !rt_state_find(snap, RT_SK_CC, RT_DCQCN_CNP_PRIORITY))
		return;
	mode = rt_state_find(cur, RT_SK_CC, RT_CC_KEY_CNP_PRIO_MODE);
	if (mode && snap->n < RT_SET_MAX)
		snap->s[snap->n++] = *mode;
}

/* What a watch (rt_apply_verify) re-reads: the settings just written. */
struct rt_readback {
	const struct rt_backend_ops *ops;
	void *ctx;
	const struct rt_nic *nic;
	const struct rt_state *want;
	unsigned int need;
	struct rt_nic_state *ns;
};

static int rt_readback(void *arg, char *msg, size_t len)
{
	struct rt_readback *rb = arg;
	int err;

	err = rt_read(rb->ops, rb->ctx, rb->nic, rb->need, rb->ns, msg, len);
	if (!err && rt_mismatches(rb->want, &rb->ns->st, msg, len, "applied"))
		err = -EIO;
	return err;
}

int rt_apply_nic(const struct rt_backend_ops *ops, void *ctx,
		 const struct rt_nic *nic, const struct rt_profile *p,
		 bool dry_run, struct rt_apply_result *res)
{
	struct rt_apply_opts o = {
		.dry_run = dry_run,
		.lock_wait_ms = RT_LOCK_WAIT_MS,
	};

	return rt_apply_nic_opts(ops, ctx, nic, p, &o, res);
}

int rt_apply_nic_opts(const struct rt_backend_ops *ops, void *ctx,
		      const struct rt_nic *nic, const struct rt_profile *p,
		      const struct rt_apply_opts *o,
		      struct rt_apply_result *res)
{
	bool dry_run = o->dry_run;
	struct rt_nic_state *ns = NULL;
	struct rt_state *want = NULL, *snap = NULL;
	unsigned int need = rt_want_needs(p), i;
	char msg[1024] = "";
	int lock[2] = { -1, -1 }, err, ret = -1;

	memset(res, 0, sizeof(*res));
	res->result = RT_RES_ERROR;
	ns = calloc(1, sizeof(*ns));
	want = calloc(1, sizeof(*want));
	snap = calloc(1, sizeof(*snap));
	if (!ns || !want || !snap) {
		rt_fmt(res->error, sizeof(res->error), "out of memory");
		goto out;
	}
	if (!dry_run || o->dry_run_locked) {
		err = rt_nic_lock_wait(nic, lock, o->lock_wait_ms, res->error,
				       sizeof(res->error));
		if (err) {
			res->lock_busy = err == -EBUSY;
			goto out;
		}
	}
	/* A dry run restores no journal: it writes nothing. */
	if (!dry_run && rt_recover(ops, ctx, nic, ns, res))
		goto out;

	err = rt_read(ops, ctx, nic, need, ns, msg, sizeof(msg));
	if (err) {
		res->result = err == -ENODEV || err == -ESTALE ?
			      RT_RES_VANISHED : RT_RES_ERROR;
		rt_fmt(res->error, sizeof(res->error), "%s", msg);
		goto out;
	}
	if (rt_want_build(p, nic, ns, want, &res->diag)) {
		res->result = RT_RES_INVALID;
		rt_fmt(res->error, sizeof(res->error),
			 "the profile cannot be applied to %s; nothing was written",
			 nic->id.netdev);
		goto out;
	}
	for (i = 0; i < want->n; i++) {
		const struct rt_setting *c = rt_state_find(&ns->st,
							   want->s[i].kind,
							   want->s[i].key);
		struct rt_change *ch;

		if (c && rt_setting_equal(&want->s[i], c))
			continue;
		ch = &res->changes[res->nchanges++];
		ch->want = want->s[i];
		if (c) {
			ch->old = *c;
		} else {
			ch->old = want->s[i];
			ch->old.absent = true;
		}
		snap->s[snap->n++] = ch->old;
	}
	rt_snapshot_side_effects(nic, &ns->st, snap);
	if (rt_pfc_en_changes(res) && !strcmp(nic->id.driver, "mlx5_core"))
		rt_fmt(res->warning, sizeof(res->warning),
			 "changing the PFC priorities of %s makes mlx5 take its link down and up",
			 nic->id.netdev);
	if (!res->nchanges) {
		res->result = RT_RES_UNCHANGED;
		ret = 0;
		goto out;
	}
	if (dry_run) {
		res->result = RT_RES_DRY_RUN;
		ret = 0;
		goto out;
	}

	if (o->verify && o->verify->baseline(o->verify->arg, nic, res->error,
					     sizeof(res->error)))
		goto out;	/* nothing written */
	if (rt_journal_save(nic, p, snap, res->error, sizeof(res->error)))
		goto out;
	err = rt_converge(ops, ctx, nic, want, &ns->st, false, &res->writes,
			  msg, sizeof(msg));
	if (!err) {
		err = rt_read(ops, ctx, nic, need, ns, msg, sizeof(msg));
		if (!err && rt_mismatches(want, &ns->st, msg, sizeof(msg),
					  "wanted")) {
			char tmp[1024];

			rt_fmt(tmp, sizeof(tmp),
				 "read back: %s (the driver reported success but did not keep the value)",
				 msg);
			rt_fmt(msg, sizeof(msg), "%s", tmp);
			err = -EIO;
		}
	}
	if (!err && o->verify) {
		struct rt_readback rb = { ops, ctx, nic, want, need, ns };

		/* The journal stays until the watch is over. */
		err = o->verify->watch(o->verify->arg, nic, rt_readback, &rb,
				       msg, sizeof(msg));
	}
	if (!err) {
		rt_journal_remove(nic->id.netdev);
		res->result = RT_RES_APPLIED;
		ret = 0;
		goto out;
	}
	rt_fmt(res->error, sizeof(res->error), "%s", msg);
	if (err == -ESTALE) {
		/* Renamed or replaced: writing by the name may reach another. */
		res->result = RT_RES_VANISHED;
		rt_fmt(res->state, sizeof(res->state),
		       "nothing more was written to %s and nothing restored; the journal keeps its old values: the next apply to the NIC under its new name restores them",
		       nic->id.netdev);
		goto out;
	}
	err = rt_restore(ops, ctx, nic, snap, ns, &res->restore_writes, res);
	if (!err || err == -ENODEV)
		rt_journal_remove(nic->id.netdev);
out:
	rt_nic_unlock(lock);
	free(ns);
	free(want);
	free(snap);
	return ret;
}
