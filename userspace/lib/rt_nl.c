// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the netlink client of the tree.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <linux/rocetune.h>

#include "rt_nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

#define RT_NL_RCVBUF	(1024 * 1024)

struct rt_nl_req {
	struct rt_nl *nl;
	rt_nl_cb_t cb;
	void *arg;
	int err;
	bool done;
};

int rt_nl_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case 0:
		return 0;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_DUMP_INTR:
		return -EINTR;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_NODEV:
		return -ENODEV;
	case NLE_INVAL:
		return -EINVAL;
	case NLE_AGAIN:
		return -EAGAIN;
	default:
		return -EIO;
	}
}

static int rt_nl_lib_fail(struct rt_nl *nl, int nlerr)
{
	nl->lib_msg = nl_geterror(nlerr);
	nl->err = rt_nl_errno(nlerr);
	return nl->err;
}

static void rt_nl_reset(struct rt_nl *nl)
{
	nl->err = 0;
	nl->lib_msg = NULL;
	nl->ext_msg[0] = '\0';
	nl->ext_miss_type = 0;
	nl->ext_has_range = false;
	nl->ext_bad_type = 0;
}

/* Keep the start of request @msg: an error may point into it. */
static void rt_nl_keep_req(struct rt_nl *nl, struct nl_msg *msg)
{
	const struct nlmsghdr *nlh = nlmsg_hdr(msg);

	nl->req_len = nlh->nlmsg_len < sizeof(nl->req) ? nlh->nlmsg_len :
							  sizeof(nl->req);
	memcpy(nl->req, nlh, nl->req_len);
}

/* The type of the top-level attribute at offset @off of the request. */
static void rt_nl_parse_offs(struct rt_nl *nl, uint32_t off)
{
	const struct nlmsghdr *req = (const struct nlmsghdr *)nl->req;
	struct nlattr a;

	if (nl->req_len < NLMSG_HDRLEN || off < NLMSG_HDRLEN + GENL_HDRLEN ||
	    (size_t)off + sizeof(a) > nl->req_len || off >= req->nlmsg_len)
		return;
	memcpy(&a, nl->req + off, sizeof(a));
	nl->ext_bad_type = a.nla_type & NLA_TYPE_MASK;
}

/* Where the TLVs of an error/done message start, 0 when it has none. */
static size_t rt_nl_ext_ack_offset(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t off;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	if (nlh->nlmsg_type == NLMSG_DONE)
		return NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(int));
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return 0;
	off = NLMSG_HDRLEN + sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return 0;
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	}
	return off;
}

/* The unsigned range of the rejected attribute's policy, when sent. */
static void rt_nl_parse_policy(struct rt_nl *nl, struct nlattr *pol)
{
	struct nlattr *tb[NL_POLICY_TYPE_ATTR_MAX + 1];
	struct nlattr *min, *max;

	if (nla_parse_nested(tb, NL_POLICY_TYPE_ATTR_MAX, pol, NULL) < 0)
		return;
	min = tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U];
	max = tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U];
	if (!min || !max || nla_len(min) != sizeof(uint64_t) ||
	    nla_len(max) != sizeof(uint64_t))
		return;
	nl->ext_min = nla_get_u64(min);
	nl->ext_max = nla_get_u64(max);
	nl->ext_has_range = true;
}

void rt_nl_parse_ext_ack(struct rt_nl *nl, const struct nlmsghdr *nlh)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = rt_nl_ext_ack_offset(nlh);
	struct nlattr *a;

	if (!off || off >= nlh->nlmsg_len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		      nlh->nlmsg_len - off, NULL) < 0)
		return;
	a = tb[NLMSGERR_ATTR_MSG];
	if (a && nla_len(a) > 0)
		snprintf(nl->ext_msg, sizeof(nl->ext_msg), "%.*s", nla_len(a),
			 (const char *)nla_data(a));
	a = tb[NLMSGERR_ATTR_MISS_TYPE];
	if (a && nla_len(a) >= (int)sizeof(uint32_t))
		nl->ext_miss_type = nla_get_u32(a);
	if (tb[NLMSGERR_ATTR_POLICY])
		rt_nl_parse_policy(nl, tb[NLMSGERR_ATTR_POLICY]);
	a = tb[NLMSGERR_ATTR_OFFS];
	if (a && nla_len(a) >= (int)sizeof(uint32_t))
		rt_nl_parse_offs(nl, nla_get_u32(a));
}

static int rt_nl_valid_cb(struct nl_msg *msg, void *arg)
{
	struct rt_nl_req *req = arg;
	int err;

	if (!req->cb || req->err)
		return NL_SKIP;
	err = req->cb(nlmsg_hdr(msg), req->arg);
	if (err < 0)
		req->err = err;
	return NL_SKIP;
}

static int rt_nl_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct rt_nl_req *req = arg;

	(void)nla;
	rt_nl_parse_ext_ack(req->nl, nlh);
	req->err = e->error ? e->error : -EIO;
	req->done = true;
	return NL_STOP;
}

static int rt_nl_finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct rt_nl_req *req = arg;
	int derr = 0;

	/* A dump that failed midway says so in NLMSG_DONE's payload. */
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
		memcpy(&derr, nlmsg_data(nlh), sizeof(derr));
	if (derr < 0) {
		rt_nl_parse_ext_ack(req->nl, nlh);
		if (!req->err)
			req->err = derr;
	}
	req->done = true;
	return NL_STOP;
}

static int rt_nl_ack_cb(struct nl_msg *msg, void *arg)
{
	struct rt_nl_req *req = arg;

	/* An ACK may carry a warning; keep it for the caller. */
	rt_nl_parse_ext_ack(req->nl, nlmsg_hdr(msg));
	req->done = true;
	return NL_STOP;
}

static struct nl_cb *rt_nl_cb_alloc(struct rt_nl_req *req)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);

	if (!cb)
		return NULL;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, rt_nl_valid_cb, req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, rt_nl_finish_cb, req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, rt_nl_ack_cb, req);
	nl_cb_err(cb, NL_CB_CUSTOM, rt_nl_err_cb, req);
	return cb;
}

static int rt_nl_recv_until_done(struct rt_nl *nl, struct rt_nl_req *req,
				 struct nl_cb *cb)
{
	int ret;

	while (!req->done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !req->err)
			return rt_nl_lib_fail(nl, ret);
		if (ret < 0)
			break;
	}
	return 0;
}

static int rt_nl_request(struct rt_nl *nl, struct nl_msg *msg, rt_nl_cb_t fn,
			 void *arg)
{
	struct rt_nl_req req = { .nl = nl, .cb = fn, .arg = arg };
	struct nl_cb *cb;
	int ret;

	rt_nl_reset(nl);
	cb = rt_nl_cb_alloc(&req);
	if (!cb) {
		nlmsg_free(msg);
		return nl->err = -ENOMEM;
	}
	ret = nl_send_auto(nl->sk, msg);
	rt_nl_keep_req(nl, msg);
	nlmsg_free(msg);
	if (ret < 0)
		ret = rt_nl_lib_fail(nl, ret);
	else
		ret = rt_nl_recv_until_done(nl, &req, cb);
	nl_cb_put(cb);
	if (!ret && req.err) {
		nl->err = req.err;
		ret = req.err;
	}
	return ret;
}

struct nl_msg *rt_nl_msg(const struct rt_nl *nl, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, 0, cmd,
			 ROCETUNE_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *rt_nl_msg_dev(const struct rt_nl *nl, uint8_t cmd,
			     const char *dev, uint32_t port)
{
	struct nl_msg *msg = rt_nl_msg(nl, cmd);

	if (!msg)
		return NULL;
	if (dev && *dev && nla_put_string(msg, ROCETUNE_A_DEV_NAME, dev))
		goto err_free;
	if (port && nla_put_u32(msg, ROCETUNE_A_PORT_INDEX, port))
		goto err_free;
	return msg;

err_free:
	nlmsg_free(msg);
	return NULL;
}

int rt_nl_do(struct rt_nl *nl, struct nl_msg *msg, rt_nl_cb_t cb, void *arg)
{
	return rt_nl_request(nl, msg, cb, arg);
}

int rt_nl_dump(struct rt_nl *nl, struct nl_msg *msg, rt_nl_cb_t cb, void *arg)
{
	nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_DUMP;
	return rt_nl_request(nl, msg, cb, arg);
}

/* rt_nl_attr_range(): the policy index of the op, then the attribute's. */
struct rt_nl_range_ctx {
	uint32_t attr;
	uint32_t do_idx;
	bool found;
	uint64_t min, max;
};

static int rt_nl_range_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *op[CTRL_ATTR_POLICY_DUMP_MAX + 1];
	struct nlattr *pol[NL_POLICY_TYPE_ATTR_MAX + 1];
	struct rt_nl_range_ctx *ctx = arg;
	struct nlattr *idx, *a, *min, *max;
	int r1, r2;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX, NULL))
		return 0;
	if (tb[CTRL_ATTR_OP_POLICY]) {
		nla_for_each_nested(a, tb[CTRL_ATTR_OP_POLICY], r1)
			if (!nla_parse_nested(op, CTRL_ATTR_POLICY_DUMP_MAX, a,
					      NULL) && op[CTRL_ATTR_POLICY_DO])
				ctx->do_idx = nla_get_u32(op[CTRL_ATTR_POLICY_DO]);
	}
	if (!tb[CTRL_ATTR_POLICY])
		return 0;
	nla_for_each_nested(idx, tb[CTRL_ATTR_POLICY], r1) {
		if ((uint32_t)nla_type(idx) != ctx->do_idx)
			continue;
		nla_for_each_nested(a, idx, r2) {
			if ((uint32_t)nla_type(a) != ctx->attr ||
			    nla_parse_nested(pol, NL_POLICY_TYPE_ATTR_MAX, a,
					     NULL))
				continue;
			min = pol[NL_POLICY_TYPE_ATTR_MIN_VALUE_U];
			max = pol[NL_POLICY_TYPE_ATTR_MAX_VALUE_U];
			if (!min || !max || nla_len(min) != sizeof(uint64_t) ||
			    nla_len(max) != sizeof(uint64_t))
				continue;
			ctx->min = nla_get_u64(min);
			ctx->max = nla_get_u64(max);
			ctx->found = true;
		}
	}
	return 0;
}

int rt_nl_attr_range(struct rt_nl *nl, uint8_t cmd, uint32_t attr,
		     uint64_t *min, uint64_t *max)
{
	struct rt_nl_range_ctx ctx = { .attr = attr };
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, 0,
			 CTRL_CMD_GETPOLICY, 1) ||
	    nla_put_u16(msg, CTRL_ATTR_FAMILY_ID, nl->family) ||
	    nla_put_u32(msg, CTRL_ATTR_OP, cmd)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = rt_nl_dump(nl, msg, rt_nl_range_cb, &ctx);
	if (err)
		return err;
	if (!ctx.found)
		return -ENOENT;
	*min = ctx.min;
	*max = ctx.max;
	return 0;
}

static int rt_nl_setsockopt(struct rt_nl *nl, int opt)
{
	int one = 1;

	if (setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, opt, &one,
		       sizeof(one)) < 0)
		return -errno;
	return 0;
}

static int rt_nl_connect(struct rt_nl *nl)
{
	int ret;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return nl->err = -ENOMEM;
	ret = genl_connect(nl->sk);
	if (ret < 0)
		goto err_close;
	/* Kernels before 4.12 lack extended ACKs; errors still work. */
	rt_nl_setsockopt(nl, NETLINK_EXT_ACK);
	rt_nl_setsockopt(nl, NETLINK_CAP_ACK);
	ret = genl_ctrl_resolve(nl->sk, ROCETUNE_FAMILY_NAME);
	if (ret < 0)
		goto err_close;
	nl->family = ret;
	return 0;

err_close:
	rt_nl_lib_fail(nl, ret);
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return nl->err;
}

int rt_nl_open(struct rt_nl *nl)
{
	return rt_nl_connect(nl);
}

void rt_nl_close(struct rt_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

int rt_nl_event_open(struct rt_nl *nl, const char *group, int rcvbuf)
{
	int ret;

	ret = rt_nl_connect(nl);
	if (ret)
		return ret;
	ret = genl_ctrl_resolve_grp(nl->sk, ROCETUNE_FAMILY_NAME, group);
	if (ret < 0) {
		rt_nl_close(nl);
		nl->lib_msg = "multicast group not found";
		return nl->err = -EPROTO;
	}
	ret = nl_socket_add_membership(nl->sk, ret);
	if (ret < 0)
		goto err_close;
	nl_socket_disable_seq_check(nl->sk);
	ret = nl_socket_set_buffer_size(nl->sk, rcvbuf > 0 ? rcvbuf : RT_NL_RCVBUF, 0);
	if (ret < 0)
		goto err_close;
	rt_nl_setsockopt(nl, NETLINK_BROADCAST_ERROR);
	return 0;

err_close:
	rt_nl_lib_fail(nl, ret);
	rt_nl_close(nl);
	return nl->err;
}

/* Events are not replies: no sequence numbers to check. */
static int rt_nl_no_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

static int rt_nl_event_cb(struct nl_msg *msg, void *arg)
{
	struct rt_nl_req *req = arg;
	int err = req->cb(nlmsg_hdr(msg), req->arg);

	if (err < 0) {
		req->err = err;
		return NL_STOP;
	}
	return NL_OK;
}

int rt_nl_event_recv(struct rt_nl *nl, rt_nl_cb_t fn, void *arg)
{
	struct rt_nl_req req = { .nl = nl, .cb = fn, .arg = arg };
	struct nl_cb *cb;
	int ret;

	rt_nl_reset(nl);
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, rt_nl_event_cb, &req);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, rt_nl_no_seq_check, NULL);
	ret = nl_recvmsgs(nl->sk, cb);
	nl_cb_put(cb);
	if (req.err)
		return nl->err = req.err;
	/* libnl reports a receive-buffer overrun (ENOBUFS) as NLE_NOMEM. */
	if (ret == -NLE_NOMEM)
		return nl->err = -ENOBUFS;
	if (ret < 0)
		return rt_nl_lib_fail(nl, ret);
	return 0;
}
