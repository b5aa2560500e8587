// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of lib/rt_model.c, lib/rt_counters.c and the extended ACK
 * parser of lib/rt_nl.c: netlink messages are built here with libnl, as
 * the kernel would send them, and parsed into the model (no kernel).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "rt_counters.h"
#include "rt_model.h"
#include "rt_nl.h"

static struct nl_msg *msg_new(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 0, 1, 0x20, 0, 0, cmd,
				    ROCETUNE_FAMILY_VERSION));
	return msg;
}

/* A nest flagged NLA_F_NESTED, as the kernel's nla_nest_start() does. */
static struct nlattr *nest(struct nl_msg *msg, int type)
{
	struct nlattr *n = nla_nest_start(msg, type | NLA_F_NESTED);

	assert_non_null(n);
	return n;
}

static void put_prio(struct nl_msg *msg, uint8_t prio, uint64_t rx,
		     bool duration, bool storm)
{
	struct nlattr *n = nest(msg, ROCETUNE_A_PFC_PRIO);

	nla_put_u8(msg, ROCETUNE_A_PRIO_INDEX, prio);
	nla_put_u64(msg, ROCETUNE_A_PRIO_TX_PAUSE, 1);
	nla_put_u64(msg, ROCETUNE_A_PRIO_RX_PAUSE, rx);
	nla_put_u64(msg, ROCETUNE_A_PRIO_TX_PAUSE_RATE, 0);
	nla_put_u64(msg, ROCETUNE_A_PRIO_RX_PAUSE_RATE, rx / 2);
	if (duration)
		nla_put_u64(msg, ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US, 1000);
	nla_put_u8(msg, ROCETUNE_A_PRIO_STORM, storm);
	nla_nest_end(msg, n);
}

static void put_hwc(struct nl_msg *msg, const char *name, uint64_t v)
{
	struct nlattr *n = nest(msg, ROCETUNE_A_HWC_ENTRY);

	nla_put_string(msg, ROCETUNE_A_HWC_NAME, name);
	nla_put_u64(msg, ROCETUNE_A_HWC_VALUE, v);
	nla_nest_end(msg, n);
}

/* rxe0/1 with two counters, a rate, two raw counters and PFC on prio 3. */
static struct nl_msg *port_msg(void)
{
	struct nl_msg *msg = msg_new(ROCETUNE_CMD_PORT_GET);
	struct nlattr *n;

	nla_put_u32(msg, ROCETUNE_A_DEV_INDEX, 3);
	nla_put_string(msg, ROCETUNE_A_DEV_NAME, "rxe0");
	nla_put_u32(msg, ROCETUNE_A_PORT_INDEX, 1);
	nla_put_u8(msg, ROCETUNE_A_PORT_STATE, 4);
	nla_put_u32(msg, ROCETUNE_A_PORT_NETDEV_IFINDEX, 5);
	nla_put_string(msg, ROCETUNE_A_PORT_NETDEV_NAME, "va");
	n = nest(msg, ROCETUNE_A_COUNTERS);
	nla_put_flag(msg, ROCETUNE_A_CNT_PAD);
	nla_put_u64(msg, ROCETUNE_A_CNT_TX_PKTS, 100);
	nla_put_u64(msg, ROCETUNE_A_CNT_RX_ECN_CE_PKTS, 0);
	nla_put_u64(msg, 60, 9);		/* a newer kernel's counter */
	nla_nest_end(msg, n);
	n = nest(msg, ROCETUNE_A_RATES);
	nla_put_u64(msg, ROCETUNE_A_CNT_TX_PKTS, 10);
	nla_nest_end(msg, n);
	n = nest(msg, ROCETUNE_A_HW_COUNTERS);
	put_hwc(msg, "sent_pkts", 100);
	put_hwc(msg, "rcvd_pkts", UINT64_MAX);
	nla_nest_end(msg, n);
	n = nest(msg, ROCETUNE_A_PFC);
	nla_put_u8(msg, ROCETUNE_A_PFC_CAP, 8);
	nla_put_u8(msg, ROCETUNE_A_PFC_ENABLED, 1 << 3);
	put_prio(msg, 0, 0, false, false);
	put_prio(msg, 3, 200, true, true);
	nla_nest_end(msg, n);
	nla_put_u32(msg, 200, 1);		/* beyond ROCETUNE_A_MAX */
	return msg;
}

static void port_parses(void **state)
{
	struct nl_msg *msg = port_msg();
	struct rt_port p;

	(void)state;
	assert_int_equal(rt_port_parse(nlmsg_hdr(msg), &p), 0);
	assert_string_equal(p.dev, "rxe0");
	assert_int_equal(p.dev_index, 3);
	assert_int_equal(p.port, 1);
	assert_int_equal(p.state, 4);
	assert_string_equal(p.netdev, "va");
	assert_int_equal(p.netdev_ifindex, 5);
	assert_false(rt_has(p.attrs, ROCETUNE_A_PORT_LOWER_NAME));
	assert_true(rt_has(p.attrs, ROCETUNE_A_COUNTERS));
	assert_true(rt_counter_present(&p.counters, ROCETUNE_A_CNT_TX_PKTS));
	assert_int_equal(p.counters.val[ROCETUNE_A_CNT_TX_PKTS], 100);
	/* Zero is present, absent is absent. */
	assert_true(rt_counter_present(&p.counters, ROCETUNE_A_CNT_RX_ECN_CE_PKTS));
	assert_false(rt_counter_present(&p.counters, ROCETUNE_A_CNT_RX_PKTS));
	assert_false(rt_counter_present(&p.counters, ROCETUNE_A_CNT_PAD));
	assert_int_equal(p.rates.val[ROCETUNE_A_CNT_TX_PKTS], 10);
	assert_int_equal(p.nhwc, 2);
	assert_string_equal(p.hwc[1].name, "rcvd_pkts");
	assert_true(p.hwc[1].value == UINT64_MAX);
	assert_int_equal(p.pfc.cap, 8);
	assert_int_equal(p.pfc.enabled, 8);
	assert_int_equal(p.pfc.nprio, 2);
	assert_int_equal(p.pfc.prio[1].index, 3);
	assert_int_equal(p.pfc.prio[1].rx_pause, 200);
	assert_int_equal(p.pfc.prio[1].rx_pause_rate, 100);
	assert_true(p.pfc.prio[1].storm);
	assert_true(rt_has(p.pfc.prio[1].attrs, ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US));
	assert_false(rt_has(p.pfc.prio[0].attrs, ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US));
	assert_false(rt_has(p.pfc.prio[1].attrs, ROCETUNE_A_PRIO_TX_PAUSE_DURATION_US));
	rt_port_free(&p);
	nlmsg_free(msg);
}

static void port_minimal(void **state)
{
	struct nl_msg *msg = msg_new(ROCETUNE_CMD_PORT_GET);
	struct rt_port p;

	(void)state;
	nla_put_string(msg, ROCETUNE_A_DEV_NAME, "mlx5_0");
	nla_put_u32(msg, ROCETUNE_A_PORT_INDEX, 2);
	assert_int_equal(rt_port_parse(nlmsg_hdr(msg), &p), 0);
	assert_false(rt_has(p.attrs, ROCETUNE_A_COUNTERS));
	assert_false(rt_has(p.attrs, ROCETUNE_A_PFC));
	assert_int_equal(p.counters.present, 0);
	assert_int_equal(p.nhwc, 0);
	rt_port_free(&p);
	nlmsg_free(msg);
}

static int parse_one_bad(void (*build)(struct nl_msg *msg))
{
	struct nl_msg *msg = msg_new(ROCETUNE_CMD_PORT_GET);
	struct rt_port p;
	int err;

	build(msg);
	err = rt_port_parse(nlmsg_hdr(msg), &p);
	rt_port_free(&p);
	nlmsg_free(msg);
	return err;
}

static void bad_short_u32(struct nl_msg *msg)
{
	uint16_t v = 1;

	nla_put(msg, ROCETUNE_A_DEV_INDEX, sizeof(v), &v);
}

static void bad_unterminated(struct nl_msg *msg)
{
	nla_put(msg, ROCETUNE_A_DEV_NAME, 4, "rxe0");
}

static void bad_counter_len(struct nl_msg *msg)
{
	struct nlattr *n = nest(msg, ROCETUNE_A_COUNTERS);

	nla_put_u32(msg, ROCETUNE_A_CNT_TX_PKTS, 1);
	nla_nest_end(msg, n);
}

static void bad_prio_index(struct nl_msg *msg)
{
	struct nlattr *n = nest(msg, ROCETUNE_A_PFC);

	put_prio(msg, 8, 1, false, false);
	nla_nest_end(msg, n);
}

static void bad_too_many_prios(struct nl_msg *msg)
{
	struct nlattr *n = nest(msg, ROCETUNE_A_PFC);
	int i;

	for (i = 0; i < 9; i++)
		put_prio(msg, i % 8, 1, false, false);
	nla_nest_end(msg, n);
}

static void bad_hwc_no_value(struct nl_msg *msg)
{
	struct nlattr *n = nest(msg, ROCETUNE_A_HW_COUNTERS);
	struct nlattr *e;

	put_hwc(msg, "ok", 1);
	e = nest(msg, ROCETUNE_A_HWC_ENTRY);
	nla_put_string(msg, ROCETUNE_A_HWC_NAME, "novalue");
	nla_nest_end(msg, e);
	nla_nest_end(msg, n);
}

static void port_rejects_malformed(void **state)
{
	(void)state;
	assert_int_equal(parse_one_bad(bad_short_u32), -EINVAL);
	assert_int_equal(parse_one_bad(bad_unterminated), -EINVAL);
	assert_int_equal(parse_one_bad(bad_counter_len), -EINVAL);
	assert_int_equal(parse_one_bad(bad_prio_index), -EINVAL);
	assert_int_equal(parse_one_bad(bad_too_many_prios), -EINVAL);
	/* The first entry was allocated; rt_port_free() (ASan) releases it. */
	assert_int_equal(parse_one_bad(bad_hwc_no_value), -EINVAL);
}

static void dev_parses(void **state)
{
	struct nl_msg *msg = msg_new(ROCETUNE_CMD_DEV_GET);
	struct rt_dev d;

	(void)state;
	nla_put_u32(msg, ROCETUNE_A_DEV_INDEX, 7);
	nla_put_string(msg, ROCETUNE_A_DEV_NAME, "rxe1");
	nla_put_string(msg, ROCETUNE_A_DEV_DRIVER, "rxe");
	nla_put_u32(msg, ROCETUNE_A_DEV_NUM_PORTS, 1);
	assert_int_equal(rt_dev_parse(nlmsg_hdr(msg), &d), 0);
	assert_int_equal(d.index, 7);
	assert_string_equal(d.name, "rxe1");
	assert_string_equal(d.driver, "rxe");
	assert_int_equal(d.num_ports, 1);
	nlmsg_free(msg);
}

static void qp_parses(void **state)
{
	struct nl_msg *msg = msg_new(ROCETUNE_CMD_QP_GET);
	struct nlattr *q;
	struct rt_qp qp;

	(void)state;
	nla_put_u32(msg, ROCETUNE_A_DEV_INDEX, 3);
	nla_put_string(msg, ROCETUNE_A_DEV_NAME, "rxe1");
	nla_put_u64(msg, ROCETUNE_A_QP_GEN, 42);
	q = nest(msg, ROCETUNE_A_QP);
	nla_put_u32(msg, ROCETUNE_A_QP_QPN, 17);
	nla_put_u8(msg, ROCETUNE_A_QP_TYPE, 2);
	nla_put_u32(msg, ROCETUNE_A_QP_PORT, 1);
	nla_put_string(msg, ROCETUNE_A_QP_COMM, "ib_write_bw");
	nla_put_u64(msg, ROCETUNE_A_QP_RX_ECN_CE_PKTS, 5);
	nla_put_u64(msg, ROCETUNE_A_QP_TOP_DELTA, 4);
	nla_put_u32(msg, 200, 1);	/* newer kernel: skipped */
	nla_nest_end(msg, q);
	assert_int_equal(rt_qp_parse(nlmsg_hdr(msg), &qp), 0);
	assert_int_equal(qp.dev_index, 3);
	assert_string_equal(qp.dev, "rxe1");
	assert_int_equal(qp.gen, 42);
	assert_int_equal(qp.qpn, 17);
	assert_string_equal(rt_qp_type_name(qp.type), "RC");
	assert_int_equal(qp.port, 1);
	assert_string_equal(qp.comm, "ib_write_bw");
	assert_int_equal(qp.cnt[ROCETUNE_A_QP_RX_ECN_CE_PKTS], 5);
	assert_int_equal(qp.top_delta, 4);
	assert_true(rt_has(qp.qattrs, ROCETUNE_A_QP_RX_ECN_CE_PKTS));
	assert_false(rt_has(qp.qattrs, ROCETUNE_A_QP_RX_PKTS));
	assert_false(rt_has(qp.qattrs, ROCETUNE_A_QP_PID));
	nlmsg_free(msg);
}

static void qp_rejects_malformed(void **state)
{
	struct nl_msg *msg = msg_new(ROCETUNE_CMD_QP_GET);
	struct nlattr *q;
	struct rt_qp qp;

	(void)state;
	/* No QP nest. */
	nla_put_u32(msg, ROCETUNE_A_DEV_INDEX, 3);
	assert_int_equal(rt_qp_parse(nlmsg_hdr(msg), &qp), -EINVAL);
	nlmsg_free(msg);
	/* A counter that is not a u64. */
	msg = msg_new(ROCETUNE_CMD_QP_GET);
	q = nest(msg, ROCETUNE_A_QP);
	nla_put_u32(msg, ROCETUNE_A_QP_QPN, 17);
	nla_put_u32(msg, ROCETUNE_A_QP_RX_PKTS, 5);
	nla_nest_end(msg, q);
	assert_int_equal(rt_qp_parse(nlmsg_hdr(msg), &qp), -EINVAL);
	nlmsg_free(msg);
	/* No QP number. */
	msg = msg_new(ROCETUNE_CMD_QP_GET);
	q = nest(msg, ROCETUNE_A_QP);
	nla_put_u64(msg, ROCETUNE_A_QP_RX_PKTS, 5);
	nla_nest_end(msg, q);
	assert_int_equal(rt_qp_parse(nlmsg_hdr(msg), &qp), -EINVAL);
	nlmsg_free(msg);
	/* Names of counters: key and label, nothing else. */
	assert_int_equal(rt_qp_counter_by_name("rx_ecn_ce_pkts")->attr,
			 ROCETUNE_A_QP_RX_ECN_CE_PKTS);
	assert_int_equal(rt_qp_counter_by_name("tx-retransmit-pkts")->attr,
			 ROCETUNE_A_QP_TX_RETRANSMIT_PKTS);
	assert_null(rt_qp_counter_by_name("tx-retransmit"));
	assert_null(rt_qp_counter_by_name("rx_ecn"));
	assert_null(rt_qp_counter_by_name(NULL));
}

static void dev_name_truncated(void **state)
{
	struct nl_msg *msg = msg_new(ROCETUNE_CMD_DEV_GET);
	char longname[200];
	struct rt_dev d;

	(void)state;
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	nla_put_string(msg, ROCETUNE_A_DEV_NAME, longname);
	assert_int_equal(rt_dev_parse(nlmsg_hdr(msg), &d), 0);
	assert_int_equal(strlen(d.name), RT_NAME_LEN - 1);
	nlmsg_free(msg);
}

static void config_parses(void **state)
{
	struct nl_msg *msg = msg_new(ROCETUNE_CMD_CONFIG_GET);
	struct rt_config c;

	(void)state;
	nla_put_u32(msg, ROCETUNE_A_INTERVAL_MS, 100);
	nla_put_u32(msg, ROCETUNE_A_STORM_MS, 200);
	nla_put_u64(msg, ROCETUNE_A_CNP_RATE_THRESH, 0);
	nla_put_u64(msg, ROCETUNE_A_ECN_RATE_THRESH, 5000);
	assert_int_equal(rt_config_parse(nlmsg_hdr(msg), &c), 0);
	assert_int_equal(c.interval_ms, 100);
	assert_int_equal(c.storm_ms, 200);
	assert_int_equal(c.ecn_rate_thresh, 5000);
	assert_true(rt_has(c.attrs, ROCETUNE_A_CNP_RATE_THRESH));
	assert_false(rt_has(c.attrs, ROCETUNE_A_DEV_NAME));
	nlmsg_free(msg);
}

static void event_parses(void **state)
{
	struct nl_msg *msg = msg_new(ROCETUNE_CMD_EVENT);
	struct rt_event ev;

	(void)state;
	nla_put_u32(msg, ROCETUNE_A_EVENT_TYPE, ROCETUNE_EVENT_STORM_START);
	nla_put_string(msg, ROCETUNE_A_DEV_NAME, "rxe0");
	nla_put_u32(msg, ROCETUNE_A_PORT_INDEX, 1);
	nla_put_u8(msg, ROCETUNE_A_EVENT_PRIO, 3);
	nla_put_u64(msg, ROCETUNE_A_EVENT_DURATION_MS, 250);
	nla_put_u64(msg, ROCETUNE_A_EVENT_TIME_NS, 123456789);
	assert_int_equal(rt_event_parse(nlmsg_hdr(msg), &ev), 0);
	assert_int_equal(ev.type, ROCETUNE_EVENT_STORM_START);
	assert_string_equal(rt_event_name(ev.type), "storm_start");
	assert_int_equal(ev.prio, 3);
	assert_int_equal(ev.duration_ms, 250);
	assert_false(rt_has(ev.attrs, ROCETUNE_A_EVENT_VALUE));
	nlmsg_free(msg);
}

static void names(void **state)
{
	unsigned int i;

	(void)state;
	assert_string_equal(rt_port_state_name(1), "down");
	assert_string_equal(rt_port_state_name(4), "active");
	assert_string_equal(rt_port_state_name(5), "active_defer");
	assert_null(rt_port_state_name(6));
	for (i = 1; i <= ROCETUNE_EVENT_MAX; i++)
		assert_non_null(rt_event_name(i));
	assert_null(rt_event_name(0));
	assert_null(rt_event_name(ROCETUNE_EVENT_MAX + 1));
}

/* The text label of @d is its JSON key in kebab-case, nothing else. */
static void label_is_kebab_key(const struct rt_counter_desc *d)
{
	size_t j;

	assert_int_equal(strlen(d->key), strlen(d->label));
	for (j = 0; d->key[j]; j++) {
		assert_false(d->key[j] >= 'A' && d->key[j] <= 'Z');
		assert_int_equal(d->label[j], d->key[j] == '_' ? '-' : d->key[j]);
	}
}

/* One table: every counter attribute once, key lowercase, label kebab. */
static void counter_table(void **state)
{
	unsigned int attr;
	size_t i;

	(void)state;
	assert_int_equal(rt_counter_ndescs, ROCETUNE_A_CNT_MAX - ROCETUNE_A_CNT_PAD);
	for (attr = ROCETUNE_A_CNT_PAD + 1; attr <= ROCETUNE_A_CNT_MAX; attr++)
		assert_non_null(rt_counter_by_attr(attr));
	assert_null(rt_counter_by_attr(ROCETUNE_A_CNT_PAD));
	for (i = 0; i < rt_counter_ndescs; i++) {
		const struct rt_counter_desc *d = &rt_counter_descs[i];

		assert_ptr_equal(rt_counter_by_key(d->key), d);
		label_is_kebab_key(d);
	}
	for (i = 0; i < rt_qp_counter_ndescs; i++) {
		const struct rt_counter_desc *d = &rt_qp_counter_descs[i];

		assert_ptr_equal(rt_qp_counter_by_name(d->key), d);
		assert_ptr_equal(rt_qp_counter_by_name(d->label), d);
		label_is_kebab_key(d);
	}
	assert_string_equal(rt_counter_by_attr(ROCETUNE_A_CNT_RX_ECN_CE_PKTS)->key,
			    "rx_ecn_ce_pkts");
	assert_null(rt_counter_by_key("rx_ecn"));
}

/* An NLMSG_ERROR as the kernel sends it with NETLINK_EXT_ACK. */
static struct nl_msg *error_msg(int error, bool capped, const char *text)
{
	struct nl_msg *msg;
	struct nlmsgerr e = { .error = error };
	char payload[8] = "abcdefg";

	msg = nlmsg_alloc_simple(NLMSG_ERROR, NLM_F_ACK_TLVS |
				 (capped ? NLM_F_CAPPED : 0));
	assert_non_null(msg);
	e.msg.nlmsg_len = NLMSG_HDRLEN + (capped ? 0 : sizeof(payload));
	assert_int_equal(nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO), 0);
	if (!capped)
		assert_int_equal(nlmsg_append(msg, payload, sizeof(payload),
					      NLMSG_ALIGNTO), 0);
	nla_put_string(msg, NLMSGERR_ATTR_MSG, text);
	nla_put_u32(msg, NLMSGERR_ATTR_MISS_TYPE, ROCETUNE_A_DEV_NAME);
	return msg;
}

static void ext_ack(void **state)
{
	struct rt_nl nl;
	struct nl_msg *msg;
	int capped;

	(void)state;
	for (capped = 0; capped < 2; capped++) {
		memset(&nl, 0, sizeof(nl));
		msg = error_msg(-ENODEV, capped, "no such RDMA device");
		rt_nl_parse_ext_ack(&nl, nlmsg_hdr(msg));
		assert_string_equal(nl.ext_msg, "no such RDMA device");
		assert_int_equal(nl.ext_miss_type, ROCETUNE_A_DEV_NAME);
		nlmsg_free(msg);
	}
}

static void ext_ack_range(void **state)
{
	struct nl_msg *msg = error_msg(-ERANGE, true, "integer out of range");
	struct nlattr *pol;
	struct rt_nl nl;

	(void)state;
	memset(&nl, 0, sizeof(nl));
	pol = nla_nest_start(msg, NLMSGERR_ATTR_POLICY | NLA_F_NESTED);
	nla_put_u32(msg, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U32);
	nla_put_u64(msg, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, 10);
	nla_put_u64(msg, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, 10000);
	nla_nest_end(msg, pol);
	rt_nl_parse_ext_ack(&nl, nlmsg_hdr(msg));
	assert_string_equal(nl.ext_msg, "integer out of range");
	assert_true(nl.ext_has_range);
	assert_int_equal(nl.ext_min, 10);
	assert_int_equal(nl.ext_max, 10000);
	nlmsg_free(msg);
}

static void ext_ack_absent(void **state)
{
	struct nlmsgerr e = { .error = -EINVAL };
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, NLM_F_CAPPED);
	struct rt_nl nl;

	(void)state;
	memset(&nl, 0, sizeof(nl));
	nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO);
	rt_nl_parse_ext_ack(&nl, nlmsg_hdr(msg));
	assert_string_equal(nl.ext_msg, "");
	nlmsg_free(msg);
}

/* NLMSGERR_ATTR_OFFS names an attribute of the request that was sent. */
static void ext_ack_offset(void **state)
{
	struct nl_msg *req = nlmsg_alloc_simple(0x20, NLM_F_REQUEST);
	struct nl_msg *msg = error_msg(-ERANGE, true, "integer out of range");
	struct genlmsghdr g = { .cmd = ROCETUNE_CMD_CONFIG_SET };
	struct rt_nl nl;
	uint32_t off;

	(void)state;
	memset(&nl, 0, sizeof(nl));
	nlmsg_append(req, &g, sizeof(g), NLMSG_ALIGNTO);
	nla_put_string(req, ROCETUNE_A_DEV_NAME, "rxe0");
	off = nlmsg_hdr(req)->nlmsg_len;
	nla_put_u32(req, ROCETUNE_A_INTERVAL_MS, 1);
	memcpy(nl.req, nlmsg_hdr(req), nlmsg_hdr(req)->nlmsg_len);
	nl.req_len = nlmsg_hdr(req)->nlmsg_len;
	nla_put_u32(msg, NLMSGERR_ATTR_OFFS, off);
	rt_nl_parse_ext_ack(&nl, nlmsg_hdr(msg));
	assert_int_equal(nl.ext_bad_type, ROCETUNE_A_INTERVAL_MS);
	nlmsg_free(msg);
	/* An offset outside the request (or into its header) names nothing. */
	msg = error_msg(-ERANGE, true, "x");
	nl.ext_bad_type = 0;
	nla_put_u32(msg, NLMSGERR_ATTR_OFFS, nl.req_len);
	rt_nl_parse_ext_ack(&nl, nlmsg_hdr(msg));
	assert_int_equal(nl.ext_bad_type, 0);
	nlmsg_free(msg);
	msg = error_msg(-ERANGE, true, "x");
	nla_put_u32(msg, NLMSGERR_ATTR_OFFS, 4);
	rt_nl_parse_ext_ack(&nl, nlmsg_hdr(msg));
	assert_int_equal(nl.ext_bad_type, 0);
	nlmsg_free(msg);
	nlmsg_free(req);
}

static void ext_ack_done(void **state)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI |
						NLM_F_ACK_TLVS);
	int err = -EMSGSIZE;
	struct rt_nl nl;

	(void)state;
	memset(&nl, 0, sizeof(nl));
	nlmsg_append(msg, &err, sizeof(err), NLMSG_ALIGNTO);
	nla_put_string(msg, NLMSGERR_ATTR_MSG, "dump failed");
	rt_nl_parse_ext_ack(&nl, nlmsg_hdr(msg));
	assert_string_equal(nl.ext_msg, "dump failed");
	nlmsg_free(msg);
}

static void errno_map(void **state)
{
	(void)state;
	assert_int_equal(rt_nl_errno(0), 0);
	assert_int_equal(rt_nl_errno(-NLE_OBJ_NOTFOUND), -ENOENT);
	assert_int_equal(rt_nl_errno(-NLE_DUMP_INTR), -EINTR);
	assert_int_equal(rt_nl_errno(-NLE_PERM), -EPERM);
	assert_int_equal(rt_nl_errno(-NLE_PROTO_MISMATCH), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(port_parses),
		cmocka_unit_test(port_minimal),
		cmocka_unit_test(port_rejects_malformed),
		cmocka_unit_test(dev_parses),
		cmocka_unit_test(dev_name_truncated),
		cmocka_unit_test(qp_parses),
		cmocka_unit_test(qp_rejects_malformed),
		cmocka_unit_test(config_parses),
		cmocka_unit_test(event_parses),
		cmocka_unit_test(names),
		cmocka_unit_test(counter_table),
		cmocka_unit_test(ext_ack),
		cmocka_unit_test(ext_ack_range),
		cmocka_unit_test(ext_ack_absent),
		cmocka_unit_test(ext_ack_offset),
		cmocka_unit_test(ext_ack_done),
		cmocka_unit_test(errno_map),
	};

	return cmocka_run_group_tests_name("rt_model", tests, NULL, NULL);
}
