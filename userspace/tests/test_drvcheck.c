// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the driver pre-checks (lib/rt_drvcheck.c, and the driver
 * rules of lib/rt_want.c that run with them): a profile is parsed from
 * text, its wanted state built with rt_want_build() against the state a
 * NIC of each driver reports when fresh, and the refusals are compared
 * with the driver rules as Documentation/rocetune_sim.rst and
 * ../shared/docs/driver-facts.md state them (the numbers worked out
 * here by hand from the drivers' formulas, not taken from the code under
 * test).  Every refusal must be the only error, name the profile's
 * file:line and key, the driver and its source; the values just inside
 * each limit must pass, and so must the same profile on a driver the
 * rule is not for.
 */
#define _GNU_SOURCE		/* fmemopen() */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rt_want.h"

static struct rt_profile prof;
static struct rt_diag diag;
static struct rt_nic nic;
static struct rt_nic_state cur;
static struct rt_state want;
static char sysfs[64];

/* A NIC of @driver as it reports itself when fresh. */
static void nic_fresh(const char *driver)
{
	struct rt_setting *s;
	unsigned int i;
	bool mlx5 = !strcmp(driver, "mlx5_core");
	bool bnxt = !strcmp(driver, "bnxt_en");

	memset(&nic, 0, sizeof(nic));
	strcpy(nic.id.netdev, "t0");
	snprintf(nic.id.driver, sizeof(nic.id.driver), "%s", driver);
	nic.ifindex = 7;
	memset(&cur, 0, sizeof(cur));
	cur.dcb_ok = true;
	/* DCBX: mlx5 host cee ieee, the others host ieee */
	cur.dcbx = mlx5 ? 0x0d : 0x09;
	cur.has_ets = true;
	cur.has_pfc = true;
	cur.ets_cap = 8;
	/* ETS: prio i on TC i, 12/13 %; bnxt_en reads all 0 until set */
	s = rt_state_add(&cur.st, RT_SK_ETS, 0);
	s->n = 24;
	for (i = 0; i < 8 && !bnxt; i++) {
		s->v[i] = i;
		s->v[8 + i] = RT_TSA_ETS;
		s->v[16 + i] = i < 4 ? 12 : 13;
	}
	/* PFC: none, 7 m; bnxt_en's capability is max_lltc, 2 here */
	s = rt_state_add(&cur.st, RT_SK_PFC, 0);
	s->n = 4;
	s->v[1] = bnxt ? 0 : 7;
	s->v[3] = bnxt ? 2 : 8;
	if (mlx5 || !strcmp(driver, "model")) {
		cur.has_maxrate = true;
		s = rt_state_add(&cur.st, RT_SK_MAXRATE, 0);
		s->n = 8;
		/* mlx5's port: 540672 bytes less 16384 internal */
		cur.has_buffer = true;
		cur.buf_total = 524288;
		s = rt_state_add(&cur.st, RT_SK_BUFFER, 0);
		s->n = 16;
		s->v[8] = 262144;
	}
}

/*
 * bnxt_en after its first ETS set: prio 3 on TC 1, 4 on TC 2, the others
 * on TC 0; TCs 0-2 ETS with 50/25/25 %, 3-7 strict.
 */
static void nic_bnxt_set(void)
{
	struct rt_setting *s;

	nic_fresh("bnxt_en");
	s = (struct rt_setting *)rt_state_find(&cur.st, RT_SK_ETS, 0);
	s->v[3] = 1;
	s->v[4] = 2;
	s->v[16] = 50;
	s->v[17] = 25;
	s->v[18] = 25;
	s->v[8 + 0] = RT_TSA_ETS;
	s->v[8 + 1] = RT_TSA_ETS;
	s->v[8 + 2] = RT_TSA_ETS;
}

/*
 * Build what @body wants (after two lines of [Match] for t0: its first
 * key is on line 4); the return of rt_want_build().
 */
static int build(const char *body)
{
	char text[2048];
	FILE *f;
	int ret;

	snprintf(text, sizeof(text), "[Match]\nName=t0\n%s", body);
	memset(&diag, 0, sizeof(diag));
	f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	ret = rt_profile_parse_fp(f, "t.conf", &prof, &diag);
	fclose(f);
	if (ret) {
		print_error("profile does not parse: %s\n", diag.msg[0]);
		fail();
	}
	return rt_want_build(&prof, &nic, &cur, &want, &diag);
}

/* @body passes on the NIC: no error at all. */
static void passes(const char *body)
{
	int ret = build(body);

	if (ret || diag.n) {
		print_error("refused: %s\n", diag.n ? diag.msg[0] : "");
		fail();
	}
}

/*
 * @body is refused with exactly one error, which begins with @where
 * ("t.conf:LINE: [Section] Key: ") and holds each of the NULL-ended
 * texts that follow.
 */
static void refused(const char *body, const char *where, ...)
{
	const char *want_text;
	va_list ap;

	assert_int_equal(build(body), -EINVAL);
	if (diag.n != 1) {
		print_error("%u errors, the first: %s\n", diag.n,
			    diag.n ? diag.msg[0] : "");
		fail();
	}
	if (strncmp(diag.msg[0], where, strlen(where))) {
		print_error("'%s' does not begin with '%s'\n", diag.msg[0],
			    where);
		fail();
	}
	va_start(ap, where);
	while ((want_text = va_arg(ap, const char *))) {
		if (!strstr(diag.msg[0], want_text)) {
			print_error("'%s' lacks '%s'\n", diag.msg[0], want_text);
			va_end(ap);
			fail();
		}
	}
	va_end(ap);
}

/* /sys/class/net/t0/@attr of the fake sysfs. */
static void sysfs_write(const char *attr, unsigned long v)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/net/t0/%s", sysfs, attr);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%lu\n", v);
	assert_int_equal(fclose(f), 0);
}

static int setup_sysfs(void **state)
{
	char path[128];

	(void)state;
	strcpy(sysfs, "/tmp/rt-test-drvcheck-XXXXXX");
	if (!mkdtemp(sysfs))
		return -1;
	snprintf(path, sizeof(path), "mkdir -p %s/class/net/t0", sysfs);
	if (system(path))
		return -1;
	setenv("ROCETUNE_SYSFS", sysfs, 1);
	return 0;
}

static int teardown_sysfs(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", sysfs);
	return system(cmd);
}

static void sysfs_clear(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/class/net/t0/mtu", sysfs);
	unlink(path);
	snprintf(path, sizeof(path), "%s/class/net/t0/speed", sysfs);
	unlink(path);
}

/*
 * bnxt_en (bnxt_dcb.c bnxt_ets_validate(), 6.1): a 0 % ETS TC below the
 * highest TC in use, with the ETS TCs at 100 %, is EINVAL; not on mlx5,
 * not when the TC is above the highest one a priority maps to, and not
 * when the TCs below it have less than 100 %.
 */
static void bnxt_zero_ets_tc(void **state)
{
	static const char starved[] =
		"[Lossless]\nPriorityToTC=3:1 4:2 5:2 6:3\n"
		"TSA=0:ets 1:ets 2:ets 3:strict 4:strict 5:strict 6:strict 7:strict\n"
		"ETSBandwidth=0:60 1:40 2:0\n";

	(void)state;
	nic_bnxt_set();
	refused(starved, "t.conf:6: [Lossless] ETSBandwidth: ",
		"bnxt_en refuses ETS TC 2 with 0% bandwidth", "bnxt_dcb.c",
		NULL);
	passes("[Lossless]\nPriorityToTC=3:1 4:2 5:2 6:3\n"
	       "TSA=0:ets 1:ets 2:ets 3:strict 4:strict 5:strict 6:strict 7:strict\n"
	       "ETSBandwidth=0:60 1:39 2:1\n");
	/* TC 3 is the highest in use: the 0 % TCs 4-7 are not checked */
	passes("[Lossless]\nPriorityToTC=3:1 4:2 5:2 6:3\n"
	       "TSA=0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:ets 7:ets\n"
	       "ETSBandwidth=0:40 1:30 2:20 3:10\n");
	/* TCs 0-1 checked (TC 2 is the highest): 60 %, so TC 0 may be 0 % */
	passes("[Lossless]\nPriorityToTC=3:1 4:2\n"
	       "TSA=0:ets 1:ets 2:strict 3:strict 4:strict 5:ets 6:strict 7:strict\n"
	       "ETSBandwidth=1:60 5:40\n");
	nic_fresh("mlx5_core");
	passes(starved);
}

/*
 * The ETS TCs' bandwidth must sum to 100 (mlx5 EINVAL; bnxt_en takes
 * less, rocetune refuses it everywhere): a profile that gives both TSA=
 * and ETSBandwidth= is refused by the parser; one that gives TSA= alone
 * is checked against the NIC's bandwidths.
 */
static void ets_sum(void **state)
{
	FILE *f;
	static const char ninety[] =
		"[Match]\nName=t0\n[Lossless]\nTSA=2:strict 3:strict 4:strict 5:strict 6:strict 7:strict\n"
		"ETSBandwidth=0:50 1:40\n";

	(void)state;
	memset(&diag, 0, sizeof(diag));
	f = fmemopen((void *)ninety, strlen(ninety), "r");
	assert_non_null(f);
	assert_int_equal(rt_profile_parse_fp(f, "t.conf", &prof, &diag),
			 -EINVAL);
	fclose(f);
	assert_int_equal(diag.n, 1);
	assert_non_null(strstr(diag.msg[0], "t.conf:5: [Lossless] ETSBandwidth=0:50 1:40: the bandwidth of the ets TCs sums to 90%"));
	/* 50/25/25 on TCs 0-2: TC 1 strict leaves 75 % to the ETS TCs */
	nic_bnxt_set();
	refused("[Lossless]\nTSA=1:strict 3:strict 4:strict 5:strict 6:strict 7:strict\n",
		"t.conf:4: [Lossless] TSA: ",
		"the ETS traffic classes of t0 would get 75% of the bandwidth, not 100% (give ETSBandwidth= for the new TSA=)",
		NULL);
	nic_fresh("mlx5_core");
	refused("[Lossless]\nTSA=7:strict\n", "t.conf:4: [Lossless] TSA: ",
		"would get 87% of the bandwidth, not 100%", NULL);
	passes("[Lossless]\nTSA=7:strict\nETSBandwidth=0:13 1:12 2:12 3:12 4:13 5:13 6:25\n");
}

/* bnxt_en: only strict and ETS (ENOTSUPP); mlx5 takes vendor. */
static void bnxt_vendor_tsa(void **state)
{
	static const char vendor[] =
		"[Lossless]\nPriorityToTC=3:1 4:2\n"
		"TSA=0:ets 1:vendor 2:ets 3:strict 4:strict 5:strict 6:strict 7:strict\n"
		"ETSBandwidth=0:50 2:50\n";

	(void)state;
	nic_bnxt_set();
	refused(vendor, "t.conf:5: [Lossless] TSA: ",
		"bnxt_en supports only strict and ETS for TC 1", "ENOTSUPP",
		"bnxt_dcb.c", NULL);
	nic_fresh("mlx5_core");
	passes(vendor);
}

/*
 * bnxt_en's TC count (ets_cap, max_tc): a priority on a TC above it is
 * EINVAL, on the TC equal to it not (the driver's comparison); a TC
 * above it must be strict with 0 %.
 */
static void bnxt_tc_count(void **state)
{
	(void)state;
	nic_bnxt_set();
	cur.ets_cap = 4;
	refused("[Lossless]\nPriorityToTC=3:1 4:2 5:5\n",
		"t.conf:4: [Lossless] PriorityToTC: ",
		"bnxt_en refuses priority 5 on TC 5: t0 has 4 TCs",
		"bnxt_dcb.c", NULL);
	refused("[Lossless]\nPriorityToTC=3:1 4:2\n"
		"TSA=0:ets 1:ets 2:ets 3:strict 4:strict 5:ets 6:strict 7:strict\n"
		"ETSBandwidth=0:50 1:25 2:25\n",
		"t.conf:5: [Lossless] TSA: ",
		"bnxt_en refuses TC 5 unless it is strict with 0% bandwidth: t0 has 4 TCs",
		NULL);
	passes("[Lossless]\nPriorityToTC=3:1 4:2 5:4\n"
	       "TSA=0:ets 1:ets 2:ets 3:strict 4:strict 5:strict 6:strict 7:strict\n"
	       "ETSBandwidth=0:50 1:25 2:25\n");
	nic_fresh("mlx5_core");
	cur.ets_cap = 4;
	passes("[Lossless]\nPriorityToTC=3:1 4:2 5:5\n");
}

/*
 * bnxt_en (bnxt_hwrm_queue_pfc_cfg()): PFC priorities in at most
 * max_lltc TCs, the PFC capability it reports (2): it counts TCs, so
 * three priorities in two TCs pass; others count priorities.
 */
static void bnxt_max_lltc(void **state)
{
	(void)state;
	nic_bnxt_set();
	refused("[Lossless]\nPFC=3 4 5\nPriorityToTC=3:1 4:2 5:3\n"
		"TSA=0:ets 1:ets 2:ets 3:ets 4:strict 5:strict 6:strict 7:strict\n"
		"ETSBandwidth=0:40 1:20 2:20 3:20\n",
		"t.conf:4: [Lossless] PFC: ",
		"bnxt_en allows PFC in at most 2 traffic classes on t0 (max_lltc",
		"would be in 3", "bnxt_dcb.c", NULL);
	/* the ETS as it is: prio 3 on TC 1, 4 on TC 2, 5 on TC 0 */
	refused("[Lossless]\nPFC=3 4 5\n", "t.conf:4: [Lossless] PFC: ",
		"at most 2 traffic classes", NULL);
	passes("[Lossless]\nPFC=3 4 5\nPriorityToTC=3:1 4:2 5:2\n"
	       "TSA=0:ets 1:ets 2:ets 3:strict 4:strict 5:strict 6:strict 7:strict\n"
	       "ETSBandwidth=0:50 1:25 2:25\n");
	passes("[Lossless]\nPFC=3 4\n");
	/* a driver whose PFC capability counts priorities */
	nic_fresh("ice");
	((struct rt_setting *)rt_state_find(&cur.st, RT_SK_PFC, 0))->v[3] = 2;
	refused("[Lossless]\nPFC=3 4 5\nPriorityToTC=3:1 4:2 5:2\n",
		"t.conf:4: [Lossless] PFC: ",
		"t0 can enable PFC on at most 2 priorities", NULL);
}

/*
 * bnxt_en refuses PFC before the first ETS set (EINVAL) and reads an
 * empty ETS until then: a PFC change without an ETS write is refused;
 * with ETS in the profile (written first) it passes; so does a profile
 * that leaves PFC as it is.
 */
static void bnxt_pfc_before_ets(void **state)
{
	(void)state;
	nic_fresh("bnxt_en");
	refused("[Lossless]\nPFC=3\n", "t.conf:4: [Lossless] PFC: ",
		"bnxt_en refuses PFC until ETS has been set once",
		"reads empty (never set)", "bnxt_dcb.c", NULL);
	refused("[Lossless]\nCableLengthMeters=20\n",
		"t.conf:4: [Lossless] CableLengthMeters: ",
		"bnxt_en refuses PFC until ETS has been set once", NULL);
	passes("[Lossless]\nPFC=3\nPriorityToTC=3:1\n"
	       "TSA=2:strict 3:strict 4:strict 5:strict 6:strict 7:strict\n"
	       "ETSBandwidth=0:50 1:50\n");
	passes("[Lossless]\nPFC=none\n");
	nic_bnxt_set();
	passes("[Lossless]\nPFC=3\n");
	/* an empty ETS on another driver is no reason */
	nic_fresh("ice");
	memset(((struct rt_setting *)rt_state_find(&cur.st, RT_SK_ETS, 0))->v,
	       0, 24 * sizeof(uint64_t));
	passes("[Lossless]\nPFC=3\n");
}

/*
 * mlx5 maxrate (en_dcbnl.c mlx5e_dcbnl_ieee_setmaxrate()): kept in
 * 100 Mb/s units up to 25.5 Gb/s, 1 Gb/s units up to 255 Gb/s, EINVAL
 * above; a rate it would round is refused, the others pass.
 */
static void mlx5_maxrate(void **state)
{
	/* a rate, and what mlx5 keeps of it, by hand from its two units */
	static const char * const bad[][2] = {
		{ "50", "100" }, { "1050", "1000" }, { "25550", "25000" },
		{ "25600", "25000" }, { "30500", "30000" },
		{ "254999", "254000" } };
	static const char * const over[] = { "255001", "256000", "300000" };
	static const char * const good[] = { "100", "1000", "25500", "26000",
					     "255000" };
	char body[128], rule[256];
	unsigned int i;

	(void)state;
	nic_fresh("mlx5_core");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(body, sizeof(body), "[Lossless]\nMaxRateMbps=6:%s\n",
			 bad[i][0]);
		snprintf(rule, sizeof(rule), "TC 6: %s Mb/s: mlx5 keeps multiples of 100 Mb/s up to 25500, of 1000 Mb/s up to 255000, and would round it to %s Mb/s",
			 bad[i][0], bad[i][1]);
		refused(body, "t.conf:4: [Lossless] MaxRateMbps: ", rule,
			"en_dcbnl.c mlx5e_dcbnl_ieee_setmaxrate()", NULL);
	}
	for (i = 0; i < sizeof(over) / sizeof(over[0]); i++) {
		snprintf(body, sizeof(body), "[Lossless]\nMaxRateMbps=6:%s\n",
			 over[i]);
		snprintf(rule, sizeof(rule), "TC 6: %s Mb/s: mlx5_core refuses a max rate above 255000 Mb/s (EINVAL",
			 over[i]);
		refused(body, "t.conf:4: [Lossless] MaxRateMbps: ", rule,
			"en_dcbnl.c", NULL);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(body, sizeof(body), "[Lossless]\nMaxRateMbps=6:%s\n",
			 good[i]);
		passes(body);
		assert_int_equal(rt_state_find(&want, RT_SK_MAXRATE, 0)->v[6],
				 strtoull(good[i], NULL, 10) * 1000);
	}
	/* 0 is no limit */
	passes("[Lossless]\nMaxRateMbps=6:0\n");
	/* not mlx5: no rounding rule */
	nic_fresh("model");
	passes("[Lossless]\nMaxRateMbps=6:1050\n");
}

/*
 * bnxt_en and ice have no maxrate and no buffer op in their dcbnl op
 * tables (bnxt_dcb.c and ice_dcb_nl.c dcbnl_ops, Linux 6.1): dcbnl would
 * skip the attributes and report success, so the profile is refused,
 * naming the op table; the model driver's message names none.
 */
static void no_maxrate_buffer_ops(void **state)
{
	static const char * const drv[][2] = {
		{ "bnxt_en", "bnxt_en's dcbnl_ops in bnxt_dcb.c" },
		{ "ice", "ice's dcbnl_ops in ice_dcb_nl.c" } };
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		if (i)
			nic_fresh(drv[i][0]);
		else
			nic_bnxt_set();
		refused("[Lossless]\nMaxRateMbps=6:1000\n",
			"t.conf:4: [Lossless] MaxRateMbps: ",
			"t0 has no per-TC max rate", drv[i][0],
			"ieee_setmaxrate", drv[i][1], "ignore the setting silently",
			NULL);
		refused("[Lossless]\nBufferSizeBytes=0:131072\n",
			"t.conf:4: [Lossless] BufferSizeBytes: ",
			"t0 has no port buffer configuration", "dcbnl_setbuffer",
			drv[i][1], NULL);
		refused("[Lossless]\nPriorityToBuffer=3:1\n",
			"t.conf:4: [Lossless] PriorityToBuffer: ",
			"t0 has no port buffer configuration", drv[i][1], NULL);
	}
	memset(&nic, 0, sizeof(nic));
	nic_fresh("some_nic");
	refused("[Lossless]\nMaxRateMbps=6:1000\n",
		"t.conf:4: [Lossless] MaxRateMbps: ",
		"its driver some_nic has no DCB maxrate operation, ieee_setmaxrate; the kernel",
		NULL);
}

/*
 * mlx5 headroom (en/port_buffer.c update_xoff_threshold(),
 * calculate_xoff()): a lossless buffer needs xoff + 9216 + 128 bytes,
 * xoff = (301 + 216 * cable / 100) * Gb/s + 272 * MTU / 100, at least
 * 40 Gb/s:
 *   7 m, MTU 1500, no speed (40):   316 * 40 + 4080 = 16720, need 26064
 *   7 m, MTU 1500, 100 Gb/s:       316 * 100 + 4080 = 35680, need 45024
 *   100 m, MTU 1500, 100 Gb/s:     517 * 100 + 4080 = 55780, need 65124
 *   7 m, MTU 9000, 100 Gb/s:      316 * 100 + 24480 = 56080, need 65424
 */
static void mlx5_headroom(void **state)
{
	static const char fmt[] =
		"[Lossless]\nPFC=3\nPriorityToBuffer=3:1\nBufferSizeBytes=0:131072 1:%u\n%s";
	static const struct {
		unsigned long speed, mtu;
		const char *extra;
		unsigned int need;
	} c[] = {
		{ 0, 0, "", 26064 },
		{ 100000, 1500, "", 45024 },
		{ 100000, 1500, "CableLengthMeters=100\n", 65124 },
		{ 100000, 9000, "", 65424 },
		{ 10000, 1500, "", 26064 },
	};
	char body[256], rule[96];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		nic_fresh("mlx5_core");
		sysfs_clear();
		if (c[i].speed)
			sysfs_write("speed", c[i].speed);
		if (c[i].mtu)
			sysfs_write("mtu", c[i].mtu);
		snprintf(body, sizeof(body), fmt, c[i].need - 1, c[i].extra);
		snprintf(rule, sizeof(rule),
			 "mlx5_core needs at least %u bytes in lossless buffer 1 of t0, not %u",
			 c[i].need, c[i].need - 1);
		refused(body, "t.conf:6: [Lossless] BufferSizeBytes: ", rule,
			"en/port_buffer.c", NULL);
		snprintf(body, sizeof(body), fmt, c[i].need, c[i].extra);
		passes(body);
	}
	sysfs_clear();
	/* the lossy buffer 0 needs nothing; buffer 1 is lossless by PFC */
	nic_fresh("mlx5_core");
	passes("[Lossless]\nPFC=3\nPriorityToBuffer=3:1\nBufferSizeBytes=0:0 1:26064\n");
	refused("[Lossless]\nPFC=3\nPriorityToBuffer=3:1\nBufferSizeBytes=0:131072 1:0\n",
		"t.conf:6: [Lossless] BufferSizeBytes: ",
		"needs at least 26064 bytes in lossless buffer 1", NULL);
	passes("[Lossless]\nPFC=none\nPriorityToBuffer=3:1\nBufferSizeBytes=0:131072 1:0\n");
	/* not mlx5: no headroom rule */
	nic_fresh("model");
	passes("[Lossless]\nPFC=3\nPriorityToBuffer=3:1\nBufferSizeBytes=0:131072 1:1000\n");
}

/*
 * mlx5's spare space and shared pool (en/port_buffer.c
 * mlx5e_port_manual_buffer_config(), port_update_shared_buffer()): the
 * buffers may not exceed total_size (524288) and must leave 4 cells of
 * 128 bytes to the shared pool: 523776 bytes at most.
 */
static void mlx5_buffer_total(void **state)
{
	(void)state;
	nic_fresh("mlx5_core");
	refused("[Lossless]\nBufferSizeBytes=0:262144 1:262145\n",
		"t.conf:4: [Lossless] BufferSizeBytes: ",
		"would have 524289 bytes, over the 524288 bytes of its port",
		"en/port_buffer.c", NULL);
	refused("[Lossless]\nBufferSizeBytes=0:262144 1:261633\n",
		"t.conf:4: [Lossless] BufferSizeBytes: ",
		"would have 523777 bytes: mlx5_core keeps at least 4 cells (512 bytes) of the 524288 for the shared pool",
		NULL);
	refused("[Lossless]\nBufferSizeBytes=0:262144 1:262144\n",
		"t.conf:4: [Lossless] BufferSizeBytes: ",
		"keeps at least 4 cells", NULL);
	passes("[Lossless]\nBufferSizeBytes=0:262144 1:261632\n");
	nic_fresh("model");
	passes("[Lossless]\nBufferSizeBytes=0:262144 1:262144\n");
}

/* A profile that changes nothing the rules cover is not checked. */
static void unchanged_not_checked(void **state)
{
	struct rt_setting *s;

	(void)state;
	/* a bnxt_en already out of its rules (prio 4 on TC 2 of 1) */
	nic_bnxt_set();
	cur.ets_cap = 1;
	passes("[Lossless]\nPriorityToTC=3:1 4:2\n"
	       "TSA=0:ets 1:ets 2:ets 3:strict 4:strict 5:strict 6:strict 7:strict\n"
	       "ETSBandwidth=0:50 1:25 2:25\n");
	assert_true(rt_setting_equal(rt_state_find(&want, RT_SK_ETS, 0),
				     rt_state_find(&cur.st, RT_SK_ETS, 0)));
	/* and the same with one change: checked, refused */
	refused("[Lossless]\nPriorityToTC=3:1 4:2\n"
		"TSA=0:ets 1:ets 2:ets 3:strict 4:strict 5:strict 6:strict 7:strict\n"
		"ETSBandwidth=0:50 1:20 2:30\n",
		"t.conf:5: [Lossless] TSA: ",
		"bnxt_en refuses TC 2 unless it is strict with 0% bandwidth: t0 has 1 TCs",
		NULL);
	/* an mlx5 whose buffers are under the headroom: no buffer change */
	nic_fresh("mlx5_core");
	s = (struct rt_setting *)rt_state_find(&cur.st, RT_SK_BUFFER, 0);
	s->v[3] = 1;
	s->v[9] = 1000;
	passes("[Lossless]\nPriorityToBuffer=3:1\nBufferSizeBytes=0:262144 1:1000\n");
}

/* ice takes no PFC delay (ice_dcb_nl.c ice_dcbnl_setpfc()): refused. */
static void ice_pfc_delay(void **state)
{
	(void)state;
	nic_fresh("ice");
	refused("[Lossless]\nPFC=3\nCableLengthMeters=20\n",
		"t.conf:5: [Lossless] CableLengthMeters: ",
		"ice takes no PFC delay (cable length): that of t0 stays 7",
		"ice_dcb_nl.c", NULL);
	passes("[Lossless]\nPFC=3\n");
	passes("[Lossless]\nPFC=3\nCableLengthMeters=7\n");
	nic_fresh("mlx5_core");
	passes("[Lossless]\nPFC=3\nCableLengthMeters=20\n");
}

/*
 * bnxt_en's ETS, PFC and APP sets need host IEEE DCBX mode, ice's ETS,
 * PFC and APP adds IEEE (bnxt_dcb.c, ice_dcb_nl.c): refused in another
 * mode, naming it; an unknown mode (0) and mlx5 are not checked.
 */
static void dcbx_mode(void **state)
{
	(void)state;
	nic_bnxt_set();
	cur.dcbx = 0x08;	/* ieee, no host */
	refused("[Lossless]\nPFC=3\n", "t.conf:4: [Lossless] PFC: ",
		"bnxt_en takes ETS, PFC and DSCP APP settings only in host IEEE DCBX mode, and t0 is in mode ieee",
		"bnxt_dcb.c", NULL);
	refused("[Lossless]\nTrust=dscp\nDSCPToPriority=26:3\n",
		"t.conf:5: [Lossless] DSCPToPriority: ",
		"only in host IEEE DCBX mode", NULL);
	passes("[Lossless]\nPFC=none\n");	/* unchanged */
	cur.dcbx = 0;
	passes("[Lossless]\nPFC=3\n");
	nic_fresh("ice");
	cur.dcbx = 0x05;	/* host cee */
	refused("[Lossless]\nPriorityToTC=3:1\n",
		"t.conf:4: [Lossless] PriorityToTC: ",
		"ice takes ETS, PFC and DSCP APP settings only in IEEE DCBX mode, and t0 is in mode host cee",
		"ice_dcb_nl.c", NULL);
	/* ice deletes APP entries in CEE mode too */
	passes("[Lossless]\nTrust=pcp\n");
	cur.dcbx = 0x09;
	passes("[Lossless]\nPriorityToTC=3:1\n");
	nic_fresh("mlx5_core");
	cur.dcbx = 0x05;
	passes("[Lossless]\nPFC=3\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bnxt_zero_ets_tc),
		cmocka_unit_test(ets_sum),
		cmocka_unit_test(bnxt_vendor_tsa),
		cmocka_unit_test(bnxt_tc_count),
		cmocka_unit_test(bnxt_max_lltc),
		cmocka_unit_test(bnxt_pfc_before_ets),
		cmocka_unit_test(mlx5_maxrate),
		cmocka_unit_test(no_maxrate_buffer_ops),
		cmocka_unit_test(mlx5_headroom),
		cmocka_unit_test(mlx5_buffer_total),
		cmocka_unit_test(ice_pfc_delay),
		cmocka_unit_test(dcbx_mode),
		cmocka_unit_test(unchanged_not_checked),
	};

	return cmocka_run_group_tests(tests, setup_sysfs, teardown_sysfs);
}
