/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the netlink client of the tree.
 *
 * A command socket (rt_nl_open) sends requests to the "rocetune" generic
 * netlink family with extended ACKs enabled; rt_nl_do() and rt_nl_dump()
 * call back once per reply message.  An event socket (rt_nl_event_open)
 * listens to a multicast group.  Every function returns 0 or a negative
 * errno; after a kernel error, nl->ext_msg holds the kernel's extended ACK
 * message ("" when it sent none) and nl->ext_bad_type the type of the
 * top-level attribute of the request that it pointed at, if any.
 */
#ifndef RT_NL_H
#define RT_NL_H

#include <stdbool.h>
#include <stdint.h>

struct nl_sock;
struct nl_msg;
struct nlmsghdr;

#define RT_NL_MSG_LEN	256
#define RT_NL_REQ_COPY	512

struct rt_nl {
	struct nl_sock *sk;
	int family;			/* generic netlink family id */
	int err;			/* errno of the last failed request */
	const char *lib_msg;		/* libnl's text of a local failure */
	char ext_msg[RT_NL_MSG_LEN];	/* kernel's extack message */
	uint32_t ext_miss_type;		/* missing attribute, 0 if none */
	bool ext_has_range;		/* the kernel sent the valid range */
	uint64_t ext_min;		/* ... of the rejected attribute */
	uint64_t ext_max;
	uint32_t ext_bad_type;		/* the request's attribute the kernel
					 * pointed at (NLMSGERR_ATTR_OFFS), 0 */
	unsigned char req[RT_NL_REQ_COPY];	/* the last request, its start */
	size_t req_len;
};

/*
 * rt_nl_cb_t - called once per reply or event message.  Return 0 to go on,
 * a negative errno to fail the request (the rest of a dump is drained).
 */
typedef int (*rt_nl_cb_t)(const struct nlmsghdr *nlh, void *arg);

/*
 * rt_nl_open() - connect a command socket and resolve the family.
 * Returns -ENOENT when the family is not registered (module not loaded).
 */
int rt_nl_open(struct rt_nl *nl);
void rt_nl_close(struct rt_nl *nl);

/* rt_nl_msg() - a new request for @cmd; NULL on allocation failure. */
struct nl_msg *rt_nl_msg(const struct rt_nl *nl, uint8_t cmd);

/*
 * rt_nl_msg_dev() - a request for @cmd naming device @dev (when not NULL
 * or empty) and port @port (when not 0); NULL on allocation failure.
 */
struct nl_msg *rt_nl_msg_dev(const struct rt_nl *nl, uint8_t cmd,
			     const char *dev, uint32_t port);

/* rt_nl_do() / rt_nl_dump() - send @msg (always freed) and read replies. */
int rt_nl_do(struct rt_nl *nl, struct nl_msg *msg, rt_nl_cb_t cb, void *arg);
int rt_nl_dump(struct rt_nl *nl, struct nl_msg *msg, rt_nl_cb_t cb, void *arg);

/*
 * rt_nl_event_open() - an event socket subscribed to multicast @group of
 * the family, with a @rcvbuf bytes receive buffer (0: a default of 1 MiB).
 * Returns -ENOENT when the family is absent, -EPROTO when only the group
 * is.
 */
int rt_nl_event_open(struct rt_nl *nl, const char *group, int rcvbuf);

/*
 * rt_nl_event_recv() - wait for and dispatch the next batch of events.
 * Returns 0, -ENOBUFS when events were lost (socket overrun; the socket
 * stays usable) or another negative errno.
 */
int rt_nl_event_recv(struct rt_nl *nl, rt_nl_cb_t cb, void *arg);

/*
 * rt_nl_attr_range() - the unsigned range the kernel's policy of @cmd (its
 * "do") gives attribute @attr, from the family's policy dump
 * (CTRL_CMD_GETPOLICY): 0 and *@min..*@max, -ENOENT when the policy has no
 * range for it, or another negative errno.
 */
int rt_nl_attr_range(struct rt_nl *nl, uint8_t cmd, uint32_t attr,
		     uint64_t *min, uint64_t *max);

/* rt_nl_errno() - a libnl error code (-NLE_*) as a negative errno. */
int rt_nl_errno(int nlerr);

/*
 * rt_nl_parse_ext_ack() - record the extended ACK of an NLMSG_ERROR or
 * NLMSG_DONE message @nlh (errno in its payload) in @nl.  Exposed for
 * tests.
 */
void rt_nl_parse_ext_ack(struct rt_nl *nl, const struct nlmsghdr *nlh);

#endif /* RT_NL_H */
