// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: what an rtnetlink notification tells the agent.  RTM_NEWLINK
 * and RTM_DELLINK (RTNLGRP_LINK) name a netdev by index and name;
 * RTNLGRP_DCB messages (RTM_GETDCB/RTM_SETDCB with a struct dcbmsg, sent
 * by dcbnl after every IEEE set or delete with the full IEEE state) name
 * the netdev in DCB_ATTR_IFNAME.
 */
#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "agent.h"

static void ag_copy_name(char *dst, size_t len, const struct nlattr *a)
{
	size_t n = mnl_attr_get_payload_len(a);
	const char *s = mnl_attr_get_payload(a);

	if (n >= len)
		n = len - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	dst[strnlen(dst, n)] = '\0';
}

int ag_rtnl_parse(const struct nlmsghdr *nlh, size_t len,
		  struct ag_rtnl_msg *m)
{
	const struct nlattr *a;

	memset(m, 0, sizeof(*m));
	if (len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) ||
	    nlh->nlmsg_len > len)
		return -EINVAL;
	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK: {
		const struct ifinfomsg *ifi;

		if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
			return -EINVAL;
		ifi = mnl_nlmsg_get_payload(nlh);
		m->kind = nlh->nlmsg_type == RTM_NEWLINK ? AG_RTNL_NEWLINK :
			  AG_RTNL_DELLINK;
		m->ifindex = ifi->ifi_index;
		mnl_attr_for_each(a, nlh, sizeof(*ifi))
			if (mnl_attr_get_type(a) == IFLA_IFNAME &&
			    mnl_attr_get_payload_len(a))
				ag_copy_name(m->ifname, sizeof(m->ifname), a);
		return 0;
	}
	case RTM_GETDCB:
	case RTM_SETDCB: {
		const struct dcbmsg *dcb;

		if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*dcb)))
			return -EINVAL;
		m->kind = AG_RTNL_DCB;
		mnl_attr_for_each(a, nlh, sizeof(*dcb))
			if (mnl_attr_get_type(a) == DCB_ATTR_IFNAME &&
			    mnl_attr_get_payload_len(a))
				ag_copy_name(m->ifname, sizeof(m->ifname), a);
		return 0;
	}
	default:
		m->kind = AG_RTNL_OTHER;
		return 0;
	}
}
