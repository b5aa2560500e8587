// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the apply path's low-level backends (cmocka):
 * lib/rt_dcb.c (status byte, parsing of canned RTM_GETDCB replies built
 * here with libmnl, messages, the ACK path against the host's kernel),
 * lib/rt_ccfile.c (temp files) and lib/rt_ethtool.c (messages).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "rt_ccfile.h"
#include "rt_dcb.h"
#include "rt_ethtool.h"

/* Upstream's values (Linux 6.2+ uapi), absent from 6.1 headers. */
#define T_ATTR_APP_TRUST_TABLE	11
#define T_ATTR_DCB_APP		2

/* ---- rt_dcb: status byte ---- */

static void dcb_status_decoding(void **state)
{
	(void)state;
	assert_int_equal(rt_dcb_decode_status(0), 0);
	assert_int_equal(rt_dcb_decode_status((uint8_t)-EINVAL), -EINVAL);
	assert_int_equal(rt_dcb_decode_status(234), -EINVAL);
	assert_int_equal(rt_dcb_decode_status((uint8_t)-EOPNOTSUPP), -EOPNOTSUPP);
	assert_int_equal(rt_dcb_decode_status((uint8_t)-ENOENT), -ENOENT);
	assert_int_equal(rt_dcb_decode_status((uint8_t)-ENOMEM), -ENOMEM);
	assert_int_equal(rt_dcb_decode_status(0xff), -EPERM);
	assert_int_equal(rt_dcb_decode_status(0x80), -128);
	/* A positive driver return is no errno. */
	assert_int_equal(rt_dcb_decode_status(1), -EIO);
	assert_int_equal(rt_dcb_decode_status(127), -EIO);
}

/* ---- rt_dcb: canned replies ---- */

static struct nlmsghdr *reply_start(char *buf, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct dcbmsg *d;

	nlh->nlmsg_type = type;
	d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
	d->dcb_family = AF_UNSPEC;
	d->cmd = cmd;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "rsim7");
	return nlh;
}

static void put_app(struct nlmsghdr *nlh, uint16_t type, uint8_t sel,
		    uint8_t prio, uint16_t proto)
{
	struct dcb_app app = { .selector = sel, .priority = prio,
			       .protocol = proto };

	mnl_attr_put(nlh, type, sizeof(app), &app);
}

/* What an mlx5-like driver on 6.12 answers, with every part present. */
static struct nlmsghdr *full_reply(char *buf)
{
	struct ieee_maxrate maxrate = { .tc_maxrate = { 0, 0, 0, 25000000 } };
	struct dcbnl_buffer buffer = { .prio2buffer = { 0, 0, 0, 1 },
				       .buffer_size = { 100000, 50000 },
				       .total_size = 262144 };
	struct ieee_pfc pfc = { .pfc_cap = 8, .pfc_en = 0x08, .delay = 7,
				.requests = { [3] = 42 },
				.indications = { [3] = 7 } };
	struct ieee_ets ets = { .ets_cap = 8, .prio_tc = { 0, 1, 2, 3 },
				.tc_tsa = { 2, 2, 2, 2, 2, 2, 2, 2 },
				.tc_tx_bw = { 12, 12, 12, 12, 13, 13, 13, 13 } };
	struct nlattr *ieee, *apps, *trust, *peer;
	struct nlmsghdr *nlh;

	nlh = reply_start(buf, RTM_GETDCB, DCB_CMD_IEEE_GET);
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_MAXRATE, sizeof(maxrate), &maxrate);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	mnl_attr_put(nlh, DCB_ATTR_DCB_BUFFER, sizeof(buffer), &buffer);
	apps = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	put_app(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP, 3, 26);
	put_app(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP, 6, 48);
	put_app(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP, 5, 26);
	put_app(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP, 0, 0);
	put_app(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP, 1, 63);
	put_app(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DGRAM, 3, 4791);
	put_app(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_ETHERTYPE, 3,
		0x8915);
	put_app(nlh, T_ATTR_DCB_APP, RT_DCB_APP_SEL_PCP, 2, 1);
	mnl_attr_nest_end(nlh, apps);
	trust = mnl_attr_nest_start(nlh, T_ATTR_APP_TRUST_TABLE);
	mnl_attr_put_u8(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP);
	mnl_attr_put_u8(nlh, T_ATTR_DCB_APP, RT_DCB_APP_SEL_PCP);
	mnl_attr_nest_end(nlh, trust);
	/* Peer information is not ours to parse. */
	peer = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_PEER_APP);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, ieee);
	mnl_attr_put_u8(nlh, DCB_ATTR_DCBX,
			DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	return nlh;
}

static void dcb_parse_full(void **state)
{
	char buf[4096];
	struct nlmsghdr *nlh = full_reply(buf);
	struct rt_dcb_state st;
	int i;

	(void)state;
	memset(&st, 0x5a, sizeof(st));
	assert_int_equal(rt_dcb_parse_ieee(nlh, &st), 0);
	assert_true(st.has_ets && st.has_pfc && st.has_maxrate &&
		    st.has_buffer && st.has_apptrust);
	assert_int_equal(st.ets.ets_cap, 8);
	assert_int_equal(st.ets.prio_tc[3], 3);
	assert_int_equal(st.ets.tc_tx_bw[7], 13);
	assert_int_equal(st.pfc.pfc_en, 0x08);
	assert_int_equal(st.pfc.delay, 7);
	assert_int_equal(st.pfc.requests[3], 42);
	assert_int_equal(st.pfc.indications[3], 7);
	assert_int_equal(st.maxrate.tc_maxrate[3], 25000000);
	assert_int_equal(st.buffer.prio2buffer[3], 1);
	assert_int_equal(st.buffer.buffer_size[1], 50000);
	assert_int_equal(st.buffer.total_size, 262144);
	/* DSCP 26 twice: the first is kept, one DSCP has duplicates. */
	assert_int_equal(st.dscp_prio[26], 3);
	assert_int_equal(st.dscp_prio[48], 6);
	assert_int_equal(st.dscp_prio[0], 0);
	assert_int_equal(st.dscp_prio[63], 1);
	for (i = 0; i < 64; i++)
		if (i != 0 && i != 26 && i != 48 && i != 63)
			assert_int_equal(st.dscp_prio[i], -1);
	assert_int_equal(st.dscp_dups, 1);
	/* ... and the priorities of both are in its mask */
	assert_int_equal(st.dscp_mask[26], (1 << 3) | (1 << 5));
	assert_int_equal(st.dscp_mask[48], 1 << 6);
	assert_int_equal(st.dscp_mask[10], 0);
	assert_int_equal(st.napp_other, 3);
	assert_int_equal(st.napptrust, 2);
	assert_int_equal(st.apptrust[0], IEEE_8021QAZ_APP_SEL_DSCP);
	assert_int_equal(st.apptrust[1], RT_DCB_APP_SEL_PCP);
	assert_int_equal(st.dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
}

/* A bnxt-like driver on 6.1: ETS and PFC only, no DCBX in the reply. */
static void dcb_parse_minimal(void **state)
{
	struct ieee_pfc pfc = { .pfc_cap = 8 };
	struct ieee_ets ets = { .ets_cap = 8 };
	struct nlattr *ieee, *apps;
	struct rt_dcb_state st;
	struct nlmsghdr *nlh;
	char buf[4096];
	int i;

	(void)state;
	nlh = reply_start(buf, RTM_GETDCB, DCB_CMD_IEEE_GET);
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	apps = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	mnl_attr_nest_end(nlh, apps);
	mnl_attr_nest_end(nlh, ieee);

	memset(&st, 0x5a, sizeof(st));
	assert_int_equal(rt_dcb_parse_ieee(nlh, &st), 0);
	assert_true(st.has_ets && st.has_pfc);
	assert_false(st.has_maxrate || st.has_buffer || st.has_apptrust);
	for (i = 0; i < 64; i++) {
		assert_int_equal(st.dscp_prio[i], -1);
		assert_int_equal(st.dscp_mask[i], 0);
	}
	assert_int_equal(st.dscp_dups, 0);
	assert_int_equal(st.napp_other, 0);
	assert_int_equal(st.napptrust, 0);
	assert_int_equal(st.dcbx, 0);
	assert_int_equal(st.maxrate.tc_maxrate[0], 0);
}

static void dcb_parse_rejects(void **state)
{
	struct ieee_pfc pfc = { 0 };
	struct nlattr *ieee, *trust;
	struct rt_dcb_state st;
	struct nlmsghdr *nlh;
	char buf[4096];
	int i;

	(void)state;
	/* Not an IEEE_GET reply. */
	nlh = full_reply(buf);
	((struct dcbmsg *)mnl_nlmsg_get_payload(nlh))->cmd = DCB_CMD_IEEE_SET;
	assert_int_equal(rt_dcb_parse_ieee(nlh, &st), -EPROTO);
	nlh = full_reply(buf);
	nlh->nlmsg_type = RTM_SETDCB;
	assert_int_equal(rt_dcb_parse_ieee(nlh, &st), -EPROTO);

	/* No IEEE nest. */
	nlh = reply_start(buf, RTM_GETDCB, DCB_CMD_IEEE_GET);
	assert_int_equal(rt_dcb_parse_ieee(nlh, &st), -EPROTO);

	/* A short PFC struct. */
	nlh = reply_start(buf, RTM_GETDCB, DCB_CMD_IEEE_GET);
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc) - 8, &pfc);
	mnl_attr_nest_end(nlh, ieee);
	assert_int_equal(rt_dcb_parse_ieee(nlh, &st), -EPROTO);

	/* A short APP entry. */
	nlh = reply_start(buf, RTM_GETDCB, DCB_CMD_IEEE_GET);
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	trust = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	mnl_attr_put_u16(nlh, DCB_ATTR_IEEE_APP, 26);
	mnl_attr_nest_end(nlh, trust);
	mnl_attr_nest_end(nlh, ieee);
	assert_int_equal(rt_dcb_parse_ieee(nlh, &st), -EPROTO);

	/* More trust selectors than exist. */
	nlh = reply_start(buf, RTM_GETDCB, DCB_CMD_IEEE_GET);
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	trust = mnl_attr_nest_start(nlh, T_ATTR_APP_TRUST_TABLE);
	for (i = 0; i < 9; i++)
		mnl_attr_put_u8(nlh, DCB_ATTR_IEEE_APP, 5);
	mnl_attr_nest_end(nlh, trust);
	mnl_attr_nest_end(nlh, ieee);
	assert_int_equal(rt_dcb_parse_ieee(nlh, &st), -EPROTO);

	/* A message too short for its dcbmsg. */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETDCB;
	assert_int_equal(rt_dcb_parse_ieee(nlh, &st), -EPROTO);
}

/* ---- rt_dcb: messages ---- */

static void dcb_messages(void **state)
{
	char msg[256];

	(void)state;
	rt_dcb_format_error(msg, sizeof(msg), "rsim3", "PFC set", -EINVAL,
			    RT_DCB_DRIVER, NULL);
	assert_string_equal(msg,
		"rsim3: DCB PFC set: refused by the driver: Invalid argument (EINVAL)");
	rt_dcb_format_error(msg, sizeof(msg), "rsim3", "APP delete dscp 26 prio 3",
			    -ENOENT, RT_DCB_DRIVER, NULL);
	assert_string_equal(msg,
		"rsim3: DCB APP delete dscp 26 prio 3: refused by the driver: No such file or directory (ENOENT)");
	rt_dcb_format_error(msg, sizeof(msg), "va", "get", -EOPNOTSUPP,
			    RT_DCB_KERNEL, NULL);
	assert_string_equal(msg,
		"va: DCB is not supported by this device's driver (no DCB operations)");
	rt_dcb_format_error(msg, sizeof(msg), "rsim99", "ETS set", -ENODEV,
			    RT_DCB_KERNEL, "");
	assert_string_equal(msg, "no network interface rsim99");
	rt_dcb_format_error(msg, sizeof(msg), "rsim3", "ETS set", -EPERM,
			    RT_DCB_KERNEL, NULL);
	assert_string_equal(msg,
		"rsim3: DCB ETS set: refused by the kernel: DCB set needs CAP_NET_ADMIN (EPERM)");
	rt_dcb_format_error(msg, sizeof(msg), "rsim3", "ETS set", -ERANGE,
			    RT_DCB_KERNEL, "Attribute failed policy validation");
	assert_string_equal(msg,
		"rsim3: DCB ETS set: refused by the kernel: Numerical result out of range (ERANGE): Attribute failed policy validation");
	/* Truncation is safe, a zero length writes nothing. */
	rt_dcb_format_error(msg, 8, "rsim3", "PFC set", EINVAL, RT_DCB_DRIVER,
			    NULL);
	assert_string_equal(msg, "rsim3: ");
	rt_dcb_format_error(NULL, 0, "rsim3", "PFC set", EINVAL, RT_DCB_DRIVER,
			    NULL);
}

/* ---- rt_dcb: the host kernel's ACK path ---- */

/* Nothing may be left in the socket once a request is over. */
static void assert_socket_empty(struct rt_dcb *dcb)
{
	char b[64];

	assert_true(recv(rt_dcb_fd(dcb), b, sizeof(b), MSG_DONTWAIT) < 0);
	assert_int_equal(errno, EAGAIN);
}

static void dcb_kernel_acks(void **state)
{
	struct rt_dcb_state *st = calloc(1, sizeof(*st));
	struct ieee_pfc pfc = { 0 };
	struct rt_dcb *dcb;
	char msg[256];
	int i, err;

	(void)state;
	assert_non_null(st);
	err = rt_dcb_open(&dcb);
	if (err) {
		free(st);
		skip();
	}
	assert_true(rt_dcb_fd(dcb) >= 0);
	for (i = 0; i < 3; i++) {
		msg[0] = '\0';
		assert_int_equal(rt_dcb_get(dcb, "rtnoexist99", st, msg,
					    sizeof(msg)), -ENODEV);
		assert_string_equal(msg, "no network interface rtnoexist99");
		assert_socket_empty(dcb);
	}
	if (if_nametoindex("lo")) {
		assert_int_equal(rt_dcb_get(dcb, "lo", st, msg, sizeof(msg)),
				 -EOPNOTSUPP);
		assert_string_equal(msg,
			"lo: DCB is not supported by this device's driver (no DCB operations)");
		assert_socket_empty(dcb);
		err = rt_dcb_set_pfc(dcb, "lo", &pfc, msg, sizeof(msg));
		assert_true(err == -EOPNOTSUPP || err == -EPERM);
		assert_socket_empty(dcb);
	}
	/* Names that cannot exist never reach the kernel. */
	assert_int_equal(rt_dcb_get(dcb, "", st, msg, sizeof(msg)), -ENODEV);
	assert_int_equal(rt_dcb_get(dcb, "a23456789012345678", st, msg,
				    sizeof(msg)), -ENODEV);
	rt_dcb_close(dcb);
	rt_dcb_close(NULL);
	free(st);
}

static void dcb_local_checks(void **state)
{
	struct dcbnl_buffer b = { .prio2buffer = { 0, 0, 8 } };
	uint8_t dup[] = { IEEE_8021QAZ_APP_SEL_DSCP, IEEE_8021QAZ_APP_SEL_DSCP };
	uint8_t bad[] = { 0 };
	struct rt_dcb *dcb;
	char msg[256];

	(void)state;
	if (rt_dcb_open(&dcb))
		skip();
	assert_int_equal(rt_dcb_set_buffer(dcb, "rsim7", &b, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg,
		"rsim7: DCB buffer set: priority 2 is mapped to buffer 8; there are 8 buffers (0..7)");
	assert_int_equal(rt_dcb_app_add(dcb, "rsim7", 64, 3, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "rsim7: DCB APP add dscp 64 prio 3:"));
	assert_int_equal(rt_dcb_app_del(dcb, "rsim7", 26, 8, msg, sizeof(msg)),
			 -EINVAL);
	assert_int_equal(rt_dcb_set_apptrust(dcb, "rsim7", dup, 2, msg,
					     sizeof(msg)), -EINVAL);
	assert_string_equal(msg,
		"rsim7: DCB apptrust set: selector 5 is unknown or repeated");
	assert_int_equal(rt_dcb_set_apptrust(dcb, "rsim7", bad, 1, msg,
					     sizeof(msg)), -EINVAL);
	rt_dcb_close(dcb);
}

/* ---- rt_ccfile ---- */

static void cc_parse(void **state)
{
	static const char *const bad[] = {
		"", "\n", "-1", "+1", " 1", "1 ", "0x10", "010", "00",
		"1\n\n", "\n1", "1a", "1.5",
	};
	uint32_t v = 77;
	size_t i;

	(void)state;
	assert_int_equal(rt_ccfile_parse("0", 1, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rt_ccfile_parse("0\n", 2, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rt_ccfile_parse("1019\n", 5, &v), 0);
	assert_int_equal(v, 1019);
	assert_int_equal(rt_ccfile_parse("4294967295\n", 11, &v), 0);
	assert_true(v == UINT32_MAX);
	/* Only @n bytes count. */
	assert_int_equal(rt_ccfile_parse("12345", 2, &v), 0);
	assert_int_equal(v, 12);
	v = 77;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rt_ccfile_parse(bad[i], strlen(bad[i]), &v),
				 -EINVAL);
	assert_int_equal(rt_ccfile_parse("4294967296", 10, &v), -ERANGE);
	assert_int_equal(rt_ccfile_parse("99999999999999999999999", 23, &v),
			 -ERANGE);
	assert_int_equal(v, 77);
}

struct cc_dir {
	char dir[64];
	char path[128];
};

static int cc_setup(void **state)
{
	struct cc_dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	snprintf(d->dir, sizeof(d->dir), "/tmp/rt_cc_XXXXXX");
	if (!mkdtemp(d->dir)) {
		free(d);
		return -1;
	}
	snprintf(d->path, sizeof(d->path), "%s/rp_dce_tcp_g", d->dir);
	*state = d;
	return 0;
}

static int cc_teardown(void **state)
{
	struct cc_dir *d = *state;

	unlink(d->path);
	rmdir(d->dir);
	free(d);
	return 0;
}

static void put_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
}

static void file_is(const char *path, const char *want)
{
	char got[64];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	assert_true(n >= 0);
	got[n] = '\0';
	assert_string_equal(got, want);
}

static void cc_write_read(void **state)
{
	struct cc_dir *d = *state;
	char msg[512];
	uint32_t v;

	put_file(d->path, "1019\n");
	assert_int_equal(rt_ccfile_read(d->path, &v, msg, sizeof(msg)), 0);
	assert_int_equal(v, 1019);

	/* 8 goes out as "8", never as the octal-looking "010". */
	assert_int_equal(rt_ccfile_write(d->path, 8, msg, sizeof(msg)), 0);
	file_is(d->path, "8\n");
	assert_int_equal(rt_ccfile_write(d->path, 0, msg, sizeof(msg)), 0);
	file_is(d->path, "0\n");
	assert_int_equal(rt_ccfile_write(d->path, 4294967295u, msg,
					 sizeof(msg)), 0);
	file_is(d->path, "4294967295\n");
	assert_int_equal(rt_ccfile_read(d->path, &v, msg, sizeof(msg)), 0);
	assert_true(v == 4294967295u);
	/* A shorter value replaces a longer one entirely. */
	assert_int_equal(rt_ccfile_write(d->path, 48, NULL, 0), 0);
	file_is(d->path, "48\n");
	assert_int_equal(rt_ccfile_read(d->path, &v, NULL, 0), 0);
	assert_int_equal(v, 48);
}

static void cc_read_rejects(void **state)
{
	struct cc_dir *d = *state;
	char msg[512], want[256];
	uint32_t v = 5;

	put_file(d->path, "0x10\n");
	assert_int_equal(rt_ccfile_read(d->path, &v, msg, sizeof(msg)), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a decimal number: \"0x10.\"",
		 d->path);
	assert_string_equal(msg, want);

	put_file(d->path, "");
	assert_int_equal(rt_ccfile_read(d->path, &v, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, d->path));

	put_file(d->path, "5000000000\n");
	assert_int_equal(rt_ccfile_read(d->path, &v, msg, sizeof(msg)), -ERANGE);
	snprintf(want, sizeof(want),
		 "%s: value does not fit in 32 bits: \"5000000000.\"", d->path);
	assert_string_equal(msg, want);

	put_file(d->path, "123456789012345678901234567890123456789\n");
	assert_int_equal(rt_ccfile_read(d->path, &v, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "not a decimal number: \"1234567890123456...\""));
	assert_int_equal(v, 5);
}

static void cc_missing(void **state)
{
	struct cc_dir *d = *state;
	char msg[512], path[160];
	struct stat sb;
	uint32_t v;

	snprintf(path, sizeof(path), "%s/np_cnp_dscp", d->dir);
	assert_int_equal(rt_ccfile_read(path, &v, msg, sizeof(msg)), -ENOENT);
	assert_true(strncmp(msg, path, strlen(path)) == 0);
	assert_non_null(strstr(msg, "no such file"));
	assert_int_equal(rt_ccfile_write(path, 26, msg, sizeof(msg)), -ENOENT);
	assert_true(strncmp(msg, path, strlen(path)) == 0);
	/* Never created. */
	assert_true(stat(path, &sb) < 0);
}

static void cc_messages(void **state)
{
	char msg[1024];

	(void)state;
	rt_ccfile_format_error(msg, sizeof(msg), "/d/cc_params/rp_gd",
			       "open for writing", -EPERM,
			       "none [integrity] confidentiality\n");
	assert_true(strncmp(msg,
		"/d/cc_params/rp_gd: open for writing: Operation not permitted (EPERM): the kernel is locked down ([integrity], as under Secure Boot); ",
		128) == 0);
	assert_non_null(strstr(msg, "[integrity]"));
	assert_non_null(strstr(msg, "write permission bits"));
	assert_non_null(strstr(msg, "cannot be changed at run time"));

	rt_ccfile_format_error(msg, sizeof(msg), "/d/x", "open", EPERM,
			       "none integrity [confidentiality]");
	assert_non_null(strstr(msg, "[confidentiality]"));

	rt_ccfile_format_error(msg, sizeof(msg), "/d/x", "open", EPERM,
			       "[none] integrity confidentiality");
	assert_string_equal(msg,
		"/d/x: open: Operation not permitted (EPERM); the kernel is not locked down ([none])");

	rt_ccfile_format_error(msg, sizeof(msg), "/d/x", "open", EPERM, NULL);
	assert_non_null(strstr(msg, "probably kernel lockdown"));
	assert_non_null(strstr(msg, "cannot be changed at run time"));

	rt_ccfile_format_error(msg, sizeof(msg), "/d/x", "read", -EIO, NULL);
	assert_string_equal(msg, "/d/x: read: Input/output error (EIO)");
	rt_ccfile_format_error(msg, sizeof(msg), "/d/x", "open", -EACCES, NULL);
	assert_string_equal(msg,
		"/d/x: open: Permission denied (EACCES): debugfs needs root");
}

static void cc_debugfs_root(void **state)
{
	(void)state;
	unsetenv("ROCETUNE_DEBUGFS");
	assert_string_equal(rt_debugfs_root(), "/sys/kernel/debug");
	setenv("ROCETUNE_DEBUGFS", "", 1);
	assert_string_equal(rt_debugfs_root(), "/sys/kernel/debug");
	setenv("ROCETUNE_DEBUGFS", "/tmp/fake-debugfs", 1);
	assert_string_equal(rt_debugfs_root(), "/tmp/fake-debugfs");
	unsetenv("ROCETUNE_DEBUGFS");
}

/* ---- rt_ethtool ---- */

static void ethtool_messages(void **state)
{
	char msg[256], drv[32], bus[32];
	uint16_t ms = 0;

	(void)state;
	assert_int_equal(rt_ethtool_get_pfc_storm("rtnoexist99", &ms, msg,
						  sizeof(msg)), -ENODEV);
	assert_string_equal(msg, "no network interface rtnoexist99");
	assert_int_equal(rt_ethtool_set_pfc_storm("a23456789012345678", 100,
						  msg, sizeof(msg)), -ENODEV);
	assert_int_equal(rt_ethtool_drvinfo("", drv, sizeof(drv), bus,
					    sizeof(bus), msg, sizeof(msg)),
			 -ENODEV);
	if (!if_nametoindex("lo"))
		return;
	/* The loopback driver has no tunables. */
	assert_int_equal(rt_ethtool_get_pfc_storm("lo", &ms, msg, sizeof(msg)),
			 -EOPNOTSUPP);
	assert_string_equal(msg,
		"the driver of lo has no PFC storm prevention (pfc-prevention-tout)");
	if (rt_ethtool_drvinfo("lo", drv, sizeof(drv), bus, sizeof(bus), msg,
			       sizeof(msg)) == 0)
		assert_true(strlen(drv) < sizeof(drv));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dcb_status_decoding),
		cmocka_unit_test(dcb_parse_full),
		cmocka_unit_test(dcb_parse_minimal),
		cmocka_unit_test(dcb_parse_rejects),
		cmocka_unit_test(dcb_messages),
		cmocka_unit_test(dcb_kernel_acks),
		cmocka_unit_test(dcb_local_checks),
		cmocka_unit_test(cc_parse),
		cmocka_unit_test_setup_teardown(cc_write_read, cc_setup,
						cc_teardown),
		cmocka_unit_test_setup_teardown(cc_read_rejects, cc_setup,
						cc_teardown),
		cmocka_unit_test_setup_teardown(cc_missing, cc_setup,
						cc_teardown),
		cmocka_unit_test(cc_messages),
		cmocka_unit_test(cc_debugfs_root),
		cmocka_unit_test(ethtool_messages),
	};

	return cmocka_run_group_tests_name("rt_dcb", tests, NULL, NULL);
}
