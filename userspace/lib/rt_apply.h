/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: transactional apply of a profile to a NIC.
 *
 * The state of a NIC is a list of settings, each one independently
 * writable: the ETS configuration, PFC, per-TC max rates, buffers, one
 * DSCP->priority APP entry per DSCP, apptrust, the PFC storm prevention
 * timeout, one vendor DCQCN parameter each.  Applying a profile is:
 *
 *   lock the NIC -> finish a journal an interrupted apply left (restore its
 *   snapshot) -> read the current state -> build the wanted state from the
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

#define RT_SET_MAXV	24
#define RT_SET_MAX	112

enum rt_set_kind {
	RT_SK_ETS,		/* v[0..7] prio->TC, v[8..15] TSA, v[16..23] bw % */
	RT_SK_PFC,		/* v[0] pfc_en, v[1] delay (cable m), v[2] mbc, v[3] cap */
	RT_SK_MAXRATE,		/* v[0..7] kbit/s, 0 unlimited */
	RT_SK_BUFFER,		/* v[0..7] prio->buffer, v[8..15] size bytes */
	RT_SK_DSCP,		/* key DSCP; v[0] priority, or absent */
	RT_SK_APPTRUST,		/* v[0..n-1] selectors, most trusted first */
	RT_SK_PFC_STORM,	/* v[0] ms, 0 off, 0xffff auto */
	RT_SK_CC,		/* key rt_dcqcn_param or RT_CC_KEY_*; v[0] */
};

/* Vendor parameters that are no profile key but must be restored. */
#define RT_CC_KEY_CNP_PRIO_MODE	(RT_DCQCN_NUM + 0)	/* mlx5 np_cnp_prio_mode */
#define RT_CC_KEY_MAX		(RT_DCQCN_NUM + 1)

struct rt_setting {
	enum rt_set_kind kind;
	unsigned int key;
	bool absent;		/* RT_SK_DSCP: no APP entry */
	unsigned int n;		/* values in v[] */
	uint64_t v[RT_SET_MAXV];
};

struct rt_state {
	unsigned int n;
	struct rt_setting s[RT_SET_MAX];
};

/* What a NIC offers, read with its state. */
struct rt_nic_state {
	struct rt_state st;
	bool dcb_ok;			/* DCB state read */
	char dcb_err[256];
	bool has_ets, has_pfc, has_maxrate, has_buffer, has_apptrust;
	bool storm_ok;			/* pfc-prevention-tout read */
	char storm_err[256];
	bool cc_ok;			/* vendor cc files read */
	char cc_err[512];
};

/* Parts of the state rt_backend_ops.read() must read. */
enum {
	RT_NEED_DCB = 1 << 0,
	RT_NEED_STORM = 1 << 1,
	RT_NEED_CC = 1 << 2,
};

struct rt_backend_ops {
	/*
	 * read() - read the parts @need of @nic's state into @ns (zeroed by
	 * the caller).  A part that cannot be read is marked not ok with its
	 * reason; read() fails (negative errno, @msg) only when the NIC is
	 * gone.
	 */
	int (*read)(void *ctx, const struct rt_nic *nic, unsigned int need,
		    struct rt_nic_state *ns, char *msg, size_t len);
	/*
	 * write() - set @want on @nic, whose current value is @cur (same
	 * kind and key).  One write: one request or one file write.
	 */
	int (*write)(void *ctx, const struct rt_nic *nic,
		     const struct rt_setting *want,
		     const struct rt_setting *cur, char *msg, size_t len);
};

/*
 * The real backends: DCB netlink, ethtool, vendor cc files (rt_want.c);
 * their context is a struct rt_sys_ctx, zeroed before the first use.
 */
extern const struct rt_backend_ops rt_backend_sys;

struct rt_dcb;

struct rt_sys_ctx {
	struct rt_dcb *dcb;		/* opened on first use */
};

void rt_sys_ctx_close(struct rt_sys_ctx *ctx);

/* Setting helpers. */
bool rt_setting_equal(const struct rt_setting *a, const struct rt_setting *b);
const struct rt_setting *rt_state_find(const struct rt_state *st,
				       enum rt_set_kind kind, unsigned int key);
struct rt_setting *rt_state_add(struct rt_state *st, enum rt_set_kind kind,
				unsigned int key);
/* "pfc", "dscp 26", "dcqcn CNPDSCP", ... */
void rt_setting_name(const struct rt_setting *s, char *buf, size_t len);
/* "prio-pfc 3 delay 7", "prio 3", "none", ... */
void rt_setting_value(const struct rt_setting *s, char *buf, size_t len);
/* rt_setting_phase() - order of the write that sets @want over @cur. */
int rt_setting_phase(const struct rt_setting *want,
		     const struct rt_setting *cur);

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
 * rt_run_dir() - $ROCETUNE_RUN_DIR when set, else /run/rocetune: the
 * per-NIC lock files and journals.
 */
const char *rt_run_dir(void);

/* rt_journal_pending() - an interrupted apply left a journal for @netdev. */
bool rt_journal_pending(const char *netdev);

#endif /* RT_APPLY_H */
