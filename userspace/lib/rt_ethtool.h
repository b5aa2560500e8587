/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the ethtool ioctls the apply path needs
 * (driver info, and the PFC storm prevention tunable, which has no
 * ethtool netlink message).  Return 0 or a negative errno; on failure
 * @msg (of @len bytes, may be NULL) names the interface and the cause.
 */
#ifndef RT_ETHTOOL_H
#define RT_ETHTOOL_H

#include <stddef.h>
#include <stdint.h>

/* ETHTOOL_GDRVINFO: the driver and bus-info "ethtool -i" shows. */
int rt_ethtool_drvinfo(const char *ifname, char *driver, size_t dlen,
		       char *bus_info, size_t blen, char *msg, size_t len);

/*
 * ETHTOOL_PFC_PREVENTION_TOUT in milliseconds (0 off, 0xffff auto).
 * -EOPNOTSUPP (with a message) when the driver does not have it.
 */
int rt_ethtool_get_pfc_storm(const char *ifname, uint16_t *ms, char *msg,
			     size_t len);
int rt_ethtool_set_pfc_storm(const char *ifname, uint16_t ms, char *msg,
			     size_t len);

#endif /* RT_ETHTOOL_H */
