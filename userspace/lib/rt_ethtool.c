// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the ethtool ioctls of the apply path
 * (SIOCETHTOOL).  The PFC storm prevention tunable has no ethtool netlink
 * message, so both calls use the ioctl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <linux/ethtool.h>
#include <linux/if.h>
#include <linux/sockios.h>

#include "rt_ethtool.h"
#include "rt_util.h"

#define RT_PFC_TOUT	"pfc-prevention-tout"

/* The tunable header and its u16 value, as the kernel reads them. */
union rt_tunable_u16 {
	struct ethtool_tunable hdr;
	uint8_t raw[sizeof(struct ethtool_tunable) + sizeof(uint16_t)];
};

static const char *rt_et_errname(int err)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);

	return name ? name : "unknown errno";
}

/* Any datagram socket carries SIOCETHTOOL; AF_INET may be compiled out. */
static int rt_et_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

/* SIOCETHTOOL with @data on @ifname: 0 or a negative errno. */
static int rt_et_ioctl(const char *ifname, void *data)
{
	struct ifreq ifr;
	int fd, err = 0;

	fd = rt_et_socket();
	if (fd < 0)
		return fd;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = data;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The message of a failed @what ("ETHTOOL_GDRVINFO") on @ifname. */
static int rt_et_error(int err, const char *ifname, const char *what,
		       char *msg, size_t len)
{
	if (!msg || !len)
		return err;
	switch (-err) {
	case ENODEV:
		snprintf(msg, len, "no network interface %s", ifname);
		break;
	case EPERM:
		snprintf(msg, len,
			 "%s: ethtool %s needs CAP_NET_ADMIN: %s (%s)", ifname,
			 what, strerror(-err), rt_et_errname(err));
		break;
	default:
		snprintf(msg, len, "%s: ethtool %s: %s (%s)", ifname, what,
			 strerror(-err), rt_et_errname(err));
		break;
	}
	return err;
}

static void rt_et_copy(char *dst, size_t dlen, const char *src, size_t slen)
{
	if (dst && dlen)
		snprintf(dst, dlen, "%.*s", (int)strnlen(src, slen), src);
}

int rt_ethtool_drvinfo(const char *ifname, char *driver, size_t dlen,
		       char *bus_info, size_t blen, char *msg, size_t len)
{
	struct ethtool_drvinfo info;
	int err;

	err = rt_check_ifname(ifname, msg, len);
	if (err)
		return err;
	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	err = rt_et_ioctl(ifname, &info);
	if (err)
		return rt_et_error(err, ifname, "driver info (ETHTOOL_GDRVINFO)",
				   msg, len);
	rt_et_copy(driver, dlen, info.driver, sizeof(info.driver));
	rt_et_copy(bus_info, blen, info.bus_info, sizeof(info.bus_info));
	return 0;
}

static int rt_et_pfc_storm(const char *ifname, bool set, uint16_t *ms,
			   char *msg, size_t len)
{
	union rt_tunable_u16 t;
	int err;

	err = rt_check_ifname(ifname, msg, len);
	if (err)
		return err;
	memset(&t, 0, sizeof(t));
	t.hdr.cmd = set ? ETHTOOL_STUNABLE : ETHTOOL_GTUNABLE;
	t.hdr.id = ETHTOOL_PFC_PREVENTION_TOUT;
	t.hdr.type_id = ETHTOOL_TUNABLE_U16;
	t.hdr.len = sizeof(uint16_t);
	if (set)
		memcpy(t.raw + sizeof(t.hdr), ms, sizeof(*ms));
	err = rt_et_ioctl(ifname, &t);
	if (!err) {
		if (!set)
			memcpy(ms, t.raw + sizeof(t.hdr), sizeof(*ms));
		return 0;
	}
	if (!msg || !len)
		return err;
	if (err == -EOPNOTSUPP) {
		snprintf(msg, len,
			 "the driver of %s has no PFC storm prevention (" RT_PFC_TOUT ")",
			 ifname);
	} else if (set && err == -EINVAL) {
		char val[16];

		if (*ms == PFC_STORM_PREVENTION_AUTO)
			snprintf(val, sizeof(val), "auto");
		else
			snprintf(val, sizeof(val), "%u ms", *ms);
		snprintf(msg, len,
			 "%s: " RT_PFC_TOUT " %s refused by the driver: %s (%s); mlx5 accepts 80..8000 ms, auto or off",
			 ifname, val, strerror(EINVAL), rt_et_errname(EINVAL));
	} else {
		rt_et_error(err, ifname, set ? RT_PFC_TOUT " set" :
			    RT_PFC_TOUT " get", msg, len);
	}
	return err;
}

int rt_ethtool_get_pfc_storm(const char *ifname, uint16_t *ms, char *msg,
			     size_t len)
{
	return rt_et_pfc_storm(ifname, false, ms, msg, len);
}

int rt_ethtool_set_pfc_storm(const char *ifname, uint16_t ms, char *msg,
			     size_t len)
{
	return rt_et_pfc_storm(ifname, true, &ms, msg, len);
}
