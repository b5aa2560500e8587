/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the state of a NIC as a list of settings.
 *
 * Each setting is independently writable: the ETS configuration, PFC,
 * per-TC max rates, buffers, one DSCP->priority APP entry per DSCP,
 * apptrust, the PFC storm prevention timeout, one vendor DCQCN parameter
 * each.  A backend (struct rt_backend_ops) reads a NIC's state and writes
 * one setting at a time.  rt_want.c builds the state a profile wants,
 * rt_apply.c converges a NIC to it.
 */
#ifndef RT_SETTING_H
#define RT_SETTING_H

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
	RT_SK_DSCP,		/* key DSCP; v[0] priority (of the first
				 * entry), v[1] bit p for each entry DSCP -> p
				 * (n 2; more than one bit: duplicated), or
				 * absent */
	RT_SK_APPTRUST,		/* v[0..n-1] selectors, most trusted first */
	RT_SK_PFC_STORM,	/* v[0] ms, 0 off, 0xffff auto */
	RT_SK_CC,		/* key rt_dcqcn_param or RT_CC_KEY_*; v[0]
				 * (rxe Enable: v[RT_RXE_EN_N]) */
};

/* Vendor parameters that are no profile key but must be restored. */
#define RT_CC_KEY_CNP_PRIO_MODE	(RT_DCQCN_NUM + 0)	/* mlx5 np_cnp_prio_mode */
#define RT_CC_KEY_MAX		(RT_DCQCN_NUM + 1)

/*
 * Software RoCE's Enable= setting (rt_rxecc.c) holds three switches of
 * rocetune.ko: v[] indices, n = RT_RXE_EN_N.
 */
enum {
	RT_RXE_EN_ACCT,		/* ROCETUNE_A_QP_ACCT */
	RT_RXE_EN_NP,		/* ROCETUNE_A_QP_NP_ENABLE */
	RT_RXE_EN_RP,		/* ROCETUNE_A_QP_RP_ENABLE */
	RT_RXE_EN_N,
};

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
	unsigned int ets_cap;		/* DCB: the ETS TCs the driver reports */
	unsigned int buf_total;		/* DCB: the buffer total_size, bytes */
	uint8_t dcbx;			/* DCB: the DCBX mode, 0 if unknown */
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
 * The priorities an RT_SK_DSCP setting has entries for, a bit each (0
 * when absent; from v[0] alone when it has no v[1]).
 */
unsigned int rt_dscp_mask(const struct rt_setting *s);

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

#endif /* RT_SETTING_H */
