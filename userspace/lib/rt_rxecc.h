/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the DCQCN backend of software RoCE (rxe),
 * which is rocetune.ko's notification and reaction points, set with
 * ROCETUNE_CMD_QP_SET and read with ROCETUNE_CMD_QP_STATS_GET of the RDMA
 * device (Documentation/qp-accounting.rst).
 *
 * The [DCQCN] keys map one to one, in the same units, to the module's
 * per-device attributes of rt_rxe_params[] (Documentation/profiles.rst has
 * the table), each with the range the module's netlink policy accepts, so
 * a value it would refuse is an error before anything is written.
 * Enable= is three switches in one setting (RT_SK_CC, key
 * RT_DCQCN_ENABLE, v[] below): the notification point, the reaction point
 * and the QP accounting both need.  Enabling turns all three on; disabling
 * turns NP and RP off and leaves the accounting as it is; a restore sets
 * all three back as they were.
 */
#ifndef RT_RXECC_H
#define RT_RXECC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_setting.h"

/* One [DCQCN] key of rocetune.ko: its QP_SET attribute and range. */
struct rt_rxe_param {
	unsigned int key;	/* enum rt_dcqcn_param */
	int attr;		/* enum rocetune_attr, u32 (Enable: u8s) */
	const char *name;	/* the attribute's name, for messages */
	uint32_t min, max;	/* what the module's policy accepts */
	const char *unit;	/* "" when none */
};

/* rt_rxe_param() - the module's equivalent of @key, NULL when none. */
const struct rt_rxe_param *rt_rxe_param(unsigned int key);

/*
 * rt_rxe_check() - is @v of @key within what the module accepts?  0, or
 * -EINVAL with @msg naming the value, @dev and the range.
 */
int rt_rxe_check(unsigned int key, uint32_t v, const char *dev, char *msg,
		 size_t len);

struct rt_profile;
struct rt_diag;

/*
 * rt_rxe_check_profile() - rt_rxe_check() of every [DCQCN] key @p gives,
 * for RDMA device @dev, each refusal added to @d as "FILE:LINE: [DCQCN]
 * KEY: why", the message profile diff and apply give.  Returns the number
 * of errors added.
 */
unsigned int rt_rxe_check_profile(const struct rt_profile *p, const char *dev,
				  struct rt_diag *d);

/*
 * rt_rxe_read() - the DCQCN state of RDMA device @dev into @st (one
 * RT_SK_CC setting per key of rt_rxe_params[]).  -ENOENT: rocetune.ko is
 * not loaded; -ENODEV: the module does not know @dev; -EPROTO: the module
 * has no NP or RP; @msg says which.
 */
int rt_rxe_read(const char *dev, struct rt_state *st, char *msg, size_t len);

/*
 * rt_rxe_write() - one QP_SET of @dev setting @want over @cur; a refusal
 * is reported with the module's extended ACK.
 */
int rt_rxe_write(const char *dev, const struct rt_setting *want,
		 const struct rt_setting *cur, char *msg, size_t len);

#endif /* RT_RXECC_H */
