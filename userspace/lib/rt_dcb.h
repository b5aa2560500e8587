/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the kernel's DCB rtnetlink API (IEEE mode),
 * over libmnl (libnl-3 has no DCB support).
 *
 * Every setter sends exactly one setting in one RTM_SETDCB request, so a
 * failure is attributable to it.  The kernel reports its own checks (no
 * DCB ops, bad attribute, unknown interface) in the netlink ACK, but a
 * driver's refusal only in the reply's DCB_ATTR_IEEE u8 (the negative
 * errno truncated to 8 bits); both are decoded here into a negative errno
 * and a message naming the interface, the setting and the cause.
 *
 * Every function returns 0 or a negative errno; on failure @msg (of @len
 * bytes, may be NULL) holds a message such as
 *	"rsim3: DCB PFC set: refused by the driver: Invalid argument (EINVAL)"
 *
 * dcbnl silently ignores a setting whose driver op is missing (maxrate or
 * buffer on bnxt, say) and reports success: check the has_* flags of
 * rt_dcb_get() first, and read back.
 *
 * A request is over only once its ACK has been read; answers of other
 * sequence numbers and multicast notifications that reach the socket
 * meanwhile are discarded, so listen for RTNLGRP_DCB on another socket.
 */
#ifndef RT_DCB_H
#define RT_DCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/dcbnl.h>

struct rt_dcb;
struct nlmsghdr;

/* What RTM_GETDCB DCB_CMD_IEEE_GET returned for one interface. */
struct rt_dcb_state {
	bool has_ets;			/* the driver has each get op */
	bool has_pfc;
	bool has_maxrate;
	bool has_buffer;
	bool has_apptrust;		/* kernel and driver have apptrust */
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate maxrate;	/* kbit/s */
	struct dcbnl_buffer buffer;
	int8_t dscp_prio[64];		/* DSCP APP entries, -1: none */
	uint8_t dscp_mask[64];		/* bit p: an entry DSCP -> p (p < 8) */
	unsigned int dscp_dups;		/* DSCPs with more than one entry */
	unsigned int napp_other;	/* APP entries of other selectors */
	uint8_t apptrust[8];		/* selectors, most trusted first */
	unsigned int napptrust;
	uint8_t dcbx;			/* DCB_CMD_GDCBX, 0 if unknown */
};

/* Selector of apptrust for PCP (DCB_APP_SEL_PCP of 6.2+ headers). */
#define RT_DCB_APP_SEL_PCP	255

int rt_dcb_open(struct rt_dcb **dcb);
void rt_dcb_close(struct rt_dcb *dcb);

int rt_dcb_get(struct rt_dcb *dcb, const char *ifname,
	       struct rt_dcb_state *st, char *msg, size_t len);

int rt_dcb_set_ets(struct rt_dcb *dcb, const char *ifname,
		   const struct ieee_ets *ets, char *msg, size_t len);
int rt_dcb_set_pfc(struct rt_dcb *dcb, const char *ifname,
		   const struct ieee_pfc *pfc, char *msg, size_t len);
int rt_dcb_set_maxrate(struct rt_dcb *dcb, const char *ifname,
		       const struct ieee_maxrate *maxrate, char *msg,
		       size_t len);
int rt_dcb_set_buffer(struct rt_dcb *dcb, const char *ifname,
		      const struct dcbnl_buffer *buf, char *msg, size_t len);
/* One DSCP APP entry (selector IEEE_8021QAZ_APP_SEL_DSCP) added or deleted. */
int rt_dcb_app_add(struct rt_dcb *dcb, const char *ifname, uint8_t dscp,
		   uint8_t prio, char *msg, size_t len);
int rt_dcb_app_del(struct rt_dcb *dcb, const char *ifname, uint8_t dscp,
		   uint8_t prio, char *msg, size_t len);
/*
 * -EOPNOTSUPP with a message when the kernel has no apptrust (< 6.2) or
 * the driver has none; found by an IEEE get first, since a 6.1 kernel
 * would silently ignore the trust table and report success.
 */
int rt_dcb_set_apptrust(struct rt_dcb *dcb, const char *ifname,
			const uint8_t *sel, unsigned int nsel, char *msg,
			size_t len);

/*
 * rt_dcb_decode_status() - the errno a DCB_ATTR_IEEE status byte @v
 * carries (0 for success).  Exposed for the unit tests.
 */
int rt_dcb_decode_status(uint8_t v);

/*
 * rt_dcb_parse_ieee() - parse an RTM_GETDCB DCB_CMD_IEEE_GET reply into
 * @st (all of it reset first; dscp_prio[] -1 where no entry; of several
 * entries for one DSCP the first is kept in dscp_prio[] and counted in
 * dscp_dups, and dscp_mask[] has a bit for the priority of each).
 * dcbx is the reply's DCB_ATTR_DCBX (rt_dcb_get() then asks GDCBX).
 * Returns 0 or -EPROTO (not such a reply, or a short attribute).
 * Exposed for the unit tests.
 */
int rt_dcb_parse_ieee(const struct nlmsghdr *nlh, struct rt_dcb_state *st);

/* Who refused a request. */
enum rt_dcb_origin {
	RT_DCB_KERNEL,		/* dcbnl itself, in the netlink ACK */
	RT_DCB_DRIVER,		/* the driver, in the reply's status byte */
};

/*
 * rt_dcb_format_error() - the message of a refused request @what ("PFC
 * set") on @ifname: errno @err (sign ignored), @extack the kernel's
 * extended ACK message or NULL.  Exposed for the unit tests.
 */
void rt_dcb_format_error(char *msg, size_t len, const char *ifname,
			 const char *what, int err, enum rt_dcb_origin who,
			 const char *extack);

/*
 * rt_dcb_fd() - the socket, for a caller that wants RTNLGRP_DCB
 * notifications on a socket of its own (the agent); -1 if closed.
 */
int rt_dcb_fd(const struct rt_dcb *dcb);

#endif /* RT_DCB_H */
