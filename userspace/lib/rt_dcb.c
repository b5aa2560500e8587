// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the kernel's DCB rtnetlink API (IEEE mode)
 * over libmnl.  See rt_dcb.h for the contract.
 *
 * Every request asks for an ACK and is answered by up to two messages of
 * its sequence number: the unicast reply (RTM_GETDCB or RTM_SETDCB with
 * the same dcbmsg cmd) when the kernel's own checks passed, then the
 * NLMSG_ERROR ACK.  A request is over only when its ACK has been read, so
 * no answer is ever left in the socket for the next request to trip on;
 * messages of other sequence numbers or senders (a late answer to a timed
 * out request, an RTNLGRP_DCB notification) are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/utsname.h>

#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "rt_dcb.h"
#include "rt_util.h"

/*
 * Linux 6.2 added apptrust to the uapi dcbnl.h (DCB_APP_SEL_PCP, the
 * DCB_ATTR_DCB_APP_TRUST_TABLE IEEE attribute, and DCB_ATTR_DCB_APP for
 * the PCP selector in APP and trust tables).  Older headers (Debian 12's
 * /usr/include is 6.1) lack them; the values are upstream's.
 */
#ifndef DCB_APP_SEL_PCP
#define DCB_APP_SEL_PCP			255
#define DCB_ATTR_DCB_APP_TRUST_TABLE	11
#define DCB_ATTR_DCB_APP		2
#else
_Static_assert(DCB_ATTR_DCB_APP_TRUST_TABLE == 11, "uapi apptrust table");
_Static_assert(DCB_ATTR_DCB_APP == 2, "uapi DCB_ATTR_DCB_APP");
#endif
_Static_assert(DCB_APP_SEL_PCP == RT_DCB_APP_SEL_PCP, "PCP selector");

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

#define RT_DCB_RCVBUF		32768	/* a full IEEE reply is ~1.5 KiB */
#define RT_DCB_SNDBUF		1024	/* the largest request is ~220 B */
#define RT_DCB_TIMEOUT_S	30	/* a driver may flap a link */
#define RT_DCB_NUM_DSCP		64
#define RT_DCB_MAX_TRUST	sizeof(((struct rt_dcb_state *)0)->apptrust)

struct rt_dcb {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	char rbuf[RT_DCB_RCVBUF];
};

/* What one request's answer was. */
struct rt_dcb_answer {
	int ack;		/* the ACK's error (0 or negative errno) */
	char ext[256];		/* the ACK's extack message, "" if none */
	int reply_err;		/* a reply was malformed or truncated */
	bool have_reply;
	bool have_status;
	uint8_t status;		/* DCB_ATTR_IEEE of a set/del reply */
	uint8_t dcbx;		/* DCB_ATTR_DCBX of a GDCBX reply */
	bool have_dcbx;
	struct rt_dcb_state *st; /* where an IEEE_GET reply is parsed */
};

static const char *rt_dcb_errname(int err)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);

	return name ? name : "unknown errno";
}

int rt_dcb_decode_status(uint8_t v)
{
	/*
	 * The kernel puts the driver's negative errno in a u8: -22 arrives
	 * as 234.  Errnos above 127 (such as the kernel-internal ENOTSUPP,
	 * 524) cannot survive that and come out as a different errno.  A
	 * value of 1..127 means the driver returned a positive number,
	 * which is no errno at all: report it as an I/O error.
	 */
	if (!v)
		return 0;
	if (v & 0x80)
		return (int8_t)v;
	return -EIO;
}

void rt_dcb_format_error(char *msg, size_t len, const char *ifname,
			 const char *what, int err, enum rt_dcb_origin who,
			 const char *extack)
{
	bool ext = extack && *extack;
	int e = err < 0 ? -err : err;

	if (!msg || !len)
		return;
	if (who == RT_DCB_DRIVER) {
		snprintf(msg, len, "%s: DCB %s: refused by the driver: %s (%s)",
			 ifname, what, strerror(e), rt_dcb_errname(e));
		return;
	}
	switch (e) {
	case ENODEV:
		snprintf(msg, len, "no network interface %s%s%s", ifname,
			 ext ? ": " : "", ext ? extack : "");
		break;
	case EOPNOTSUPP:
		snprintf(msg, len,
			 "%s: DCB is not supported by this device's driver (no DCB operations)%s%s",
			 ifname, ext ? ": " : "", ext ? extack : "");
		break;
	case EPERM:
		snprintf(msg, len,
			 "%s: DCB %s: refused by the kernel: DCB set needs CAP_NET_ADMIN (%s)",
			 ifname, what, rt_dcb_errname(e));
		break;
	default:
		snprintf(msg, len, "%s: DCB %s: refused by the kernel: %s (%s)%s%s",
			 ifname, what, strerror(e), rt_dcb_errname(e),
			 ext ? ": " : "", ext ? extack : "");
		break;
	}
}

int rt_dcb_open(struct rt_dcb **dcbp)
{
	struct timeval tv = { .tv_sec = RT_DCB_TIMEOUT_S };
	struct rt_dcb *dcb;
	int one = 1, fd, err;

	*dcbp = NULL;
	dcb = calloc(1, sizeof(*dcb));
	if (!dcb)
		return -ENOMEM;
	dcb->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!dcb->nl) {
		err = -errno;
		free(dcb);
		return err;
	}
	if (mnl_socket_bind(dcb->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		rt_dcb_close(dcb);
		return err;
	}
	dcb->portid = mnl_socket_get_portid(dcb->nl);
	fd = mnl_socket_get_fd(dcb->nl);
	/* Both are best effort: kernels since 4.12 have them. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		err = -errno;
		rt_dcb_close(dcb);
		return err;
	}
	dcb->seq = (unsigned int)time(NULL);
	*dcbp = dcb;
	return 0;
}

void rt_dcb_close(struct rt_dcb *dcb)
{
	if (!dcb)
		return;
	if (dcb->nl)
		mnl_socket_close(dcb->nl);
	free(dcb);
}

int rt_dcb_fd(const struct rt_dcb *dcb)
{
	return dcb && dcb->nl ? mnl_socket_get_fd(dcb->nl) : -1;
}

/* ---- parsing ---- */

static const struct dcbmsg *rt_dcb_msg(const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_len < NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct dcbmsg)))
		return NULL;
	return mnl_nlmsg_get_payload(nlh);
}

/* Copy a raw struct attribute; the kernel always sends the full size. */
static int rt_dcb_get_struct(const struct nlattr *a, void *dst, size_t size)
{
	if (mnl_attr_get_payload_len(a) < size)
		return -EPROTO;
	memcpy(dst, mnl_attr_get_payload(a), size);
	return 0;
}

static int rt_dcb_parse_apps(const struct nlattr *table,
			     struct rt_dcb_state *st)
{
	uint8_t count[RT_DCB_NUM_DSCP] = { 0 };
	const struct nlattr *a;
	struct dcb_app app;
	int i;

	mnl_attr_for_each_nested(a, table) {
		switch (mnl_attr_get_type(a)) {
		case DCB_ATTR_IEEE_APP:
			if (rt_dcb_get_struct(a, &app, sizeof(app)))
				return -EPROTO;
			if (app.selector != IEEE_8021QAZ_APP_SEL_DSCP ||
			    app.protocol >= RT_DCB_NUM_DSCP) {
				st->napp_other++;
				break;
			}
			/* The first entry of a DSCP is the one kept. */
			if (!count[app.protocol])
				st->dscp_prio[app.protocol] = app.priority;
			if (count[app.protocol] < UINT8_MAX)
				count[app.protocol]++;
			if (app.priority < 8)
				st->dscp_mask[app.protocol] |=
					(uint8_t)(1u << app.priority);
			break;
		case DCB_ATTR_DCB_APP:	/* PCP selector (6.2+) */
			st->napp_other++;
			break;
		default:
			break;
		}
	}
	for (i = 0; i < RT_DCB_NUM_DSCP; i++)
		if (count[i] > 1)
			st->dscp_dups++;
	return 0;
}

static int rt_dcb_parse_trust(const struct nlattr *table,
			      struct rt_dcb_state *st)
{
	const struct nlattr *a;

	st->has_apptrust = true;
	mnl_attr_for_each_nested(a, table) {
		uint16_t type = mnl_attr_get_type(a);

		if (type != DCB_ATTR_IEEE_APP && type != DCB_ATTR_DCB_APP)
			continue;
		/* At most 6 distinct selectors exist; more is garbage. */
		if (mnl_attr_get_payload_len(a) < 1 ||
		    st->napptrust >= RT_DCB_MAX_TRUST)
			return -EPROTO;
		st->apptrust[st->napptrust++] = mnl_attr_get_u8(a);
	}
	return 0;
}

static int rt_dcb_parse_ieee_nest(const struct nlattr *ieee,
				  struct rt_dcb_state *st)
{
	const struct nlattr *a;
	int err = 0;

	mnl_attr_for_each_nested(a, ieee) {
		switch (mnl_attr_get_type(a)) {
		case DCB_ATTR_IEEE_ETS:
			err = rt_dcb_get_struct(a, &st->ets, sizeof(st->ets));
			st->has_ets = !err;
			break;
		case DCB_ATTR_IEEE_PFC:
			err = rt_dcb_get_struct(a, &st->pfc, sizeof(st->pfc));
			st->has_pfc = !err;
			break;
		case DCB_ATTR_IEEE_MAXRATE:
			err = rt_dcb_get_struct(a, &st->maxrate,
						sizeof(st->maxrate));
			st->has_maxrate = !err;
			break;
		case DCB_ATTR_DCB_BUFFER:
			err = rt_dcb_get_struct(a, &st->buffer,
						sizeof(st->buffer));
			st->has_buffer = !err;
			break;
		case DCB_ATTR_IEEE_APP_TABLE:
			err = rt_dcb_parse_apps(a, st);
			break;
		case DCB_ATTR_DCB_APP_TRUST_TABLE:
			err = rt_dcb_parse_trust(a, st);
			break;
		default:	/* peer info, QCN, rewrite table */
			break;
		}
		if (err)
			return err;
	}
	return 0;
}

static void rt_dcb_state_init(struct rt_dcb_state *st)
{
	memset(st, 0, sizeof(*st));
	memset(st->dscp_prio, -1, sizeof(st->dscp_prio));
}

int rt_dcb_parse_ieee(const struct nlmsghdr *nlh, struct rt_dcb_state *st)
{
	const struct nlattr *a, *ieee = NULL;
	const struct dcbmsg *d = rt_dcb_msg(nlh);
	uint8_t dcbx = 0;
	int err;

	if (!d || nlh->nlmsg_type != RTM_GETDCB || d->cmd != DCB_CMD_IEEE_GET)
		return -EPROTO;
	mnl_attr_for_each(a, nlh, sizeof(*d)) {
		switch (mnl_attr_get_type(a)) {
		case DCB_ATTR_IEEE:
			ieee = a;
			break;
		case DCB_ATTR_DCBX:
			if (mnl_attr_get_payload_len(a) < 1)
				return -EPROTO;
			dcbx = mnl_attr_get_u8(a);
			break;
		default:
			break;
		}
	}
	if (!ieee)
		return -EPROTO;
	rt_dcb_state_init(st);
	err = rt_dcb_parse_ieee_nest(ieee, st);
	if (err) {
		rt_dcb_state_init(st);
		return err;
	}
	st->dcbx = dcbx;
	return 0;
}

/* The u8 attribute @type of a reply, -EPROTO if absent. */
static int rt_dcb_reply_u8(const struct nlmsghdr *nlh, uint16_t type,
			   uint8_t *v)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct dcbmsg)) {
		if (mnl_attr_get_type(a) == type &&
		    mnl_attr_get_payload_len(a) >= 1) {
			*v = mnl_attr_get_u8(a);
			return 0;
		}
	}
	return -EPROTO;
}

/* ---- the request/answer exchange ---- */

static void rt_dcb_parse_ack(const struct nlmsghdr *nlh,
			     struct rt_dcb_answer *ans)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;	/* mnl_attr_for_each_payload's */
	const void *tlvs;
	size_t off, plen;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e)) {
		ans->ack = -EPROTO;
		return;
	}
	ans->ack = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return;
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	}
	plen = mnl_nlmsg_get_payload_len(nlh);
	if (off >= plen)
		return;
	tlvs = (const char *)e + off;
	plen -= off;
	mnl_attr_for_each_payload(tlvs, plen) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_get_payload_len(attr) > 0)
			snprintf(ans->ext, sizeof(ans->ext), "%.*s",
				 (int)mnl_attr_get_payload_len(attr),
				 (const char *)mnl_attr_get_payload(attr));
	}
	/* The kernel's messages end in a NUL, sometimes in a newline. */
	off = strlen(ans->ext);
	while (off && (ans->ext[off - 1] == '\n' || ans->ext[off - 1] == ' '))
		ans->ext[--off] = '\0';
}

static void rt_dcb_take_reply(const struct nlmsghdr *nlh, uint8_t cmd,
			      struct rt_dcb_answer *ans)
{
	const struct dcbmsg *d = rt_dcb_msg(nlh);
	int err = 0;

	if (!d || d->cmd != cmd) {
		ans->reply_err = -EPROTO;
		return;
	}
	ans->have_reply = true;
	switch (cmd) {
	case DCB_CMD_IEEE_GET:
		err = rt_dcb_parse_ieee(nlh, ans->st);
		break;
	case DCB_CMD_GDCBX:
		err = rt_dcb_reply_u8(nlh, DCB_ATTR_DCBX, &ans->dcbx);
		ans->have_dcbx = !err;
		break;
	default:		/* IEEE_SET, IEEE_DEL */
		err = rt_dcb_reply_u8(nlh, DCB_ATTR_IEEE, &ans->status);
		ans->have_status = !err;
		break;
	}
	if (err && !ans->reply_err)
		ans->reply_err = err;
}

/*
 * rt_dcb_xfer() - send the request @req and read its answer into @ans
 * until its ACK.  Returns 0 when the ACK arrived (its error is in
 * ans->ack), else a negative errno of the socket.
 */
static int rt_dcb_xfer(struct rt_dcb *dcb, struct nlmsghdr *req,
		       struct rt_dcb_answer *ans)
{
	/* Gets are answered with RTM_GETDCB, sets and deletes RTM_SETDCB. */
	uint16_t reply_type = req->nlmsg_type;
	uint8_t cmd = ((struct dcbmsg *)mnl_nlmsg_get_payload(req))->cmd;
	unsigned int seq = ++dcb->seq;
	bool done = false;

	req->nlmsg_seq = seq;
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (mnl_socket_sendto(dcb->nl, req, req->nlmsg_len) < 0)
		return -errno;

	while (!done) {
		const struct nlmsghdr *nlh;
		ssize_t n;
		int len;

		n = mnl_socket_recvfrom(dcb->nl, dcb->rbuf, sizeof(dcb->rbuf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return -ETIMEDOUT;
			if (errno == ENOSPC) {	/* truncated datagram */
				ans->reply_err = -EMSGSIZE;
				continue;
			}
			return -errno;
		}
		len = (int)n;
		for (nlh = (const struct nlmsghdr *)dcb->rbuf;
		     mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq || nlh->nlmsg_pid != dcb->portid)
				continue;	/* stale or a notification */
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				rt_dcb_parse_ack(nlh, ans);
				done = true;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nlh->nlmsg_type == reply_type)
				rt_dcb_take_reply(nlh, cmd, ans);
		}
	}
	return 0;
}

static struct nlmsghdr *rt_dcb_req(char *buf, uint16_t type, uint8_t cmd,
				   const char *ifname)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct dcbmsg *d;

	nlh->nlmsg_type = type;
	d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
	d->dcb_family = AF_UNSPEC;
	d->cmd = cmd;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
	return nlh;
}

/* A socket-level failure of the exchange. */
static int rt_dcb_io_error(int err, const char *ifname, const char *what,
			   char *msg, size_t len)
{
	if (msg && len) {
		if (err == -ETIMEDOUT)
			snprintf(msg, len,
				 "%s: DCB %s: no answer from the kernel in %d s",
				 ifname, what, RT_DCB_TIMEOUT_S);
		else
			snprintf(msg, len, "%s: DCB %s: netlink: %s (%s)",
				 ifname, what, strerror(-err),
				 rt_dcb_errname(err));
	}
	return err;
}

static int rt_dcb_bad_reply(int err, const char *ifname, const char *what,
			    char *msg, size_t len)
{
	if (msg && len)
		snprintf(msg, len, "%s: DCB %s: %s from the kernel", ifname,
			 what, err == -EMSGSIZE ? "oversized reply" :
			 "malformed or missing reply");
	return err;
}

/*
 * rt_dcb_set_req() - send a set or delete built in @nlh and decode the
 * ACK and the reply's status byte.
 */
static int rt_dcb_set_req(struct rt_dcb *dcb, struct nlmsghdr *nlh,
			  const char *ifname, const char *what, char *msg,
			  size_t len)
{
	struct rt_dcb_answer ans = { 0 };
	int err;

	err = rt_dcb_xfer(dcb, nlh, &ans);
	if (err)
		return rt_dcb_io_error(err, ifname, what, msg, len);
	if (ans.ack) {
		rt_dcb_format_error(msg, len, ifname, what, ans.ack,
				    RT_DCB_KERNEL, ans.ext);
		return ans.ack;
	}
	if (!ans.have_status)
		return rt_dcb_bad_reply(ans.reply_err ? ans.reply_err : -EPROTO,
					ifname, what, msg, len);
	err = rt_dcb_decode_status(ans.status);
	if (err)
		rt_dcb_format_error(msg, len, ifname, what, err, RT_DCB_DRIVER,
				    NULL);
	return err;
}

/* One IEEE_SET of the single attribute @type of @size bytes. */
static int rt_dcb_set_one(struct rt_dcb *dcb, const char *ifname,
			  uint16_t type, const void *data, size_t size,
			  const char *what, char *msg, size_t len)
{
	char buf[RT_DCB_SNDBUF];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	int err;

	err = rt_check_ifname(ifname, msg, len);
	if (err)
		return err;
	nlh = rt_dcb_req(buf, RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	if (!mnl_attr_put_check(nlh, sizeof(buf), type, size, data))
		return -EMSGSIZE;
	mnl_attr_nest_end(nlh, nest);
	return rt_dcb_set_req(dcb, nlh, ifname, what, msg, len);
}

int rt_dcb_set_ets(struct rt_dcb *dcb, const char *ifname,
		   const struct ieee_ets *ets, char *msg, size_t len)
{
	return rt_dcb_set_one(dcb, ifname, DCB_ATTR_IEEE_ETS, ets,
			      sizeof(*ets), "ETS set", msg, len);
}

int rt_dcb_set_pfc(struct rt_dcb *dcb, const char *ifname,
		   const struct ieee_pfc *pfc, char *msg, size_t len)
{
	return rt_dcb_set_one(dcb, ifname, DCB_ATTR_IEEE_PFC, pfc,
			      sizeof(*pfc), "PFC set", msg, len);
}

int rt_dcb_set_maxrate(struct rt_dcb *dcb, const char *ifname,
		       const struct ieee_maxrate *maxrate, char *msg,
		       size_t len)
{
	return rt_dcb_set_one(dcb, ifname, DCB_ATTR_IEEE_MAXRATE, maxrate,
			      sizeof(*maxrate), "maxrate set", msg, len);
}

int rt_dcb_set_buffer(struct rt_dcb *dcb, const char *ifname,
		      const struct dcbnl_buffer *buf, char *msg, size_t len)
{
	int i;

	/*
	 * dcbnl checks this itself but reports it in the status byte, where
	 * it would read as the driver's refusal.
	 */
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (buf->prio2buffer[i] < DCBX_MAX_BUFFERS)
			continue;
		if (msg && len)
			snprintf(msg, len,
				 "%s: DCB buffer set: priority %d is mapped to buffer %u; there are %d buffers (0..%d)",
				 ifname, i, buf->prio2buffer[i],
				 DCBX_MAX_BUFFERS, DCBX_MAX_BUFFERS - 1);
		return -EINVAL;
	}
	return rt_dcb_set_one(dcb, ifname, DCB_ATTR_DCB_BUFFER, buf,
			      sizeof(*buf), "buffer set", msg, len);
}

static int rt_dcb_app(struct rt_dcb *dcb, const char *ifname, uint8_t cmd,
		      uint8_t dscp, uint8_t prio, char *msg, size_t len)
{
	struct dcb_app app = {
		.selector = IEEE_8021QAZ_APP_SEL_DSCP,
		.priority = prio,
		.protocol = dscp,
	};
	struct nlattr *ieee, *table;
	char buf[RT_DCB_SNDBUF];
	struct nlmsghdr *nlh;
	char what[48];
	int err;

	snprintf(what, sizeof(what), "APP %s dscp %u prio %u",
		 cmd == DCB_CMD_IEEE_SET ? "add" : "delete", dscp, prio);
	err = rt_check_ifname(ifname, msg, len);
	if (err)
		return err;
	if (dscp >= RT_DCB_NUM_DSCP || prio >= IEEE_8021QAZ_MAX_TCS) {
		if (msg && len)
			snprintf(msg, len,
				 "%s: DCB %s: DSCP must be 0..63 and the priority 0..7",
				 ifname, what);
		return -EINVAL;
	}
	nlh = rt_dcb_req(buf, RTM_SETDCB, cmd, ifname);
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	table = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(app), &app);
	mnl_attr_nest_end(nlh, table);
	mnl_attr_nest_end(nlh, ieee);
	return rt_dcb_set_req(dcb, nlh, ifname, what, msg, len);
}

int rt_dcb_app_add(struct rt_dcb *dcb, const char *ifname, uint8_t dscp,
		   uint8_t prio, char *msg, size_t len)
{
	return rt_dcb_app(dcb, ifname, DCB_CMD_IEEE_SET, dscp, prio, msg, len);
}

int rt_dcb_app_del(struct rt_dcb *dcb, const char *ifname, uint8_t dscp,
		   uint8_t prio, char *msg, size_t len)
{
	return rt_dcb_app(dcb, ifname, DCB_CMD_IEEE_DEL, dscp, prio, msg, len);
}

/*
 * -EOPNOTSUPP for an apptrust set on @ifname, whose IEEE get has no trust
 * table: dcbnl before Linux 6.2 has no apptrust at all, later kernels
 * report the table whenever the driver has the operations.
 */
static int rt_dcb_no_apptrust(const char *ifname, char *msg, size_t len)
{
	unsigned int major = 0, minor = 0;
	struct utsname u;

	if (!msg || !len)
		return -EOPNOTSUPP;
	if (uname(&u) == 0 &&
	    sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	    (major < 6 || (major == 6 && minor < 2)))
		snprintf(msg, len,
			 "%s: DCB apptrust set: this kernel (%s) has no DCB apptrust (Linux 6.2 or later)",
			 ifname, u.release);
	else
		snprintf(msg, len,
			 "%s: DCB apptrust set: the driver of %s has no apptrust operations",
			 ifname, ifname);
	return -EOPNOTSUPP;
}

static int rt_dcb_get_ieee(struct rt_dcb *dcb, const char *ifname,
			   struct rt_dcb_state *st, char *msg, size_t len)
{
	struct rt_dcb_answer ans = { .st = st };
	char buf[RT_DCB_SNDBUF];
	struct nlmsghdr *nlh;
	int err;

	nlh = rt_dcb_req(buf, RTM_GETDCB, DCB_CMD_IEEE_GET, ifname);
	err = rt_dcb_xfer(dcb, nlh, &ans);
	if (err)
		return rt_dcb_io_error(err, ifname, "get", msg, len);
	if (ans.ack) {
		rt_dcb_format_error(msg, len, ifname, "get", ans.ack,
				    RT_DCB_KERNEL, ans.ext);
		return ans.ack;
	}
	if (!ans.have_reply || ans.reply_err)
		return rt_dcb_bad_reply(ans.reply_err ? ans.reply_err : -EPROTO,
					ifname, "get", msg, len);
	return 0;
}

int rt_dcb_set_apptrust(struct rt_dcb *dcb, const char *ifname,
			const uint8_t *sel, unsigned int nsel, char *msg,
			size_t len)
{
	struct rt_dcb_state *st;
	struct nlattr *ieee, *table;
	char buf[RT_DCB_SNDBUF];
	struct nlmsghdr *nlh;
	unsigned int i, j;
	int err;

	err = rt_check_ifname(ifname, msg, len);
	if (err)
		return err;
	/* What dcbnl checks itself, reporting it in the status byte. */
	for (i = 0; i < nsel; i++) {
		bool ok = (sel[i] >= IEEE_8021QAZ_APP_SEL_ETHERTYPE &&
			   sel[i] <= IEEE_8021QAZ_APP_SEL_DSCP) ||
			  sel[i] == DCB_APP_SEL_PCP;

		for (j = 0; j < i && ok; j++)
			ok = sel[j] != sel[i];
		if (ok && i < RT_DCB_MAX_TRUST)
			continue;
		if (msg && len)
			snprintf(msg, len,
				 "%s: DCB apptrust set: selector %u %s", ifname,
				 sel[i], !ok ? "is unknown or repeated" :
				 "is one too many");
		return -EINVAL;
	}

	/*
	 * A kernel without apptrust (before 6.2) ignores the attribute and
	 * reports success, so ask first: a kernel and driver that have
	 * apptrust report the trust table in every IEEE get.
	 */
	st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	err = rt_dcb_get_ieee(dcb, ifname, st, msg, len);
	if (!err && !st->has_apptrust)
		err = rt_dcb_no_apptrust(ifname, msg, len);
	free(st);
	if (err)
		return err;

	nlh = rt_dcb_req(buf, RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	table = mnl_attr_nest_start(nlh, DCB_ATTR_DCB_APP_TRUST_TABLE);
	for (i = 0; i < nsel; i++)
		mnl_attr_put_u8(nlh, sel[i] == DCB_APP_SEL_PCP ?
				DCB_ATTR_DCB_APP : DCB_ATTR_IEEE_APP, sel[i]);
	mnl_attr_nest_end(nlh, table);
	mnl_attr_nest_end(nlh, ieee);
	return rt_dcb_set_req(dcb, nlh, ifname, "apptrust set", msg, len);
}

int rt_dcb_get(struct rt_dcb *dcb, const char *ifname,
	       struct rt_dcb_state *st, char *msg, size_t len)
{
	struct rt_dcb_answer ans = { 0 };
	struct rt_dcb_state *tmp;
	char buf[RT_DCB_SNDBUF];
	struct nlmsghdr *nlh;
	int err;

	err = rt_check_ifname(ifname, msg, len);
	if (err)
		return err;
	tmp = malloc(sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	err = rt_dcb_get_ieee(dcb, ifname, tmp, msg, len);
	if (err)
		goto out;

	/* The DCBX mode; EOPNOTSUPP: the driver has no getdcbx. */
	nlh = rt_dcb_req(buf, RTM_GETDCB, DCB_CMD_GDCBX, ifname);
	err = rt_dcb_xfer(dcb, nlh, &ans);
	if (err) {
		rt_dcb_io_error(err, ifname, "DCBX mode get", msg, len);
		goto out;
	}
	if (ans.ack && ans.ack != -EOPNOTSUPP) {
		err = ans.ack;
		rt_dcb_format_error(msg, len, ifname, "DCBX mode get", err,
				    RT_DCB_KERNEL, ans.ext);
		goto out;
	}
	if (!ans.ack) {
		if (!ans.have_dcbx) {
			err = rt_dcb_bad_reply(ans.reply_err ? ans.reply_err :
					       -EPROTO, ifname, "DCBX mode get",
					       msg, len);
			goto out;
		}
		tmp->dcbx = ans.dcbx;
	}
	*st = *tmp;
out:
	free(tmp);
	return err;
}
