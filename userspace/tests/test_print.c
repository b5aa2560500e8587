// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of lib/rt_print.c, lib/rt_prom.c and the object printers of
 * the CLI: JSON escaping, numbers as numbers, text alignment, and the same
 * calls giving both outputs.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rocetune.h"
#include "rt_print.h"
#include "rt_prom.h"

struct out {
	char *s;
	size_t n;
	FILE *f;
	struct rt_print pr;
};

static struct rt_print *out_open(struct out *o, bool json, bool pretty)
{
	o->s = NULL;
	o->f = open_memstream(&o->s, &o->n);
	assert_non_null(o->f);
	rt_print_init(&o->pr, o->f, json, pretty);
	return &o->pr;
}

/* Compare what was printed with @want and release it. */
static void out_check(struct out *o, const char *want)
{
	fclose(o->f);
	assert_string_equal(o->s, want);
	free(o->s);
}

static void json_escapes(void **state)
{
	struct out o;
	struct rt_print *pr = out_open(&o, true, false);

	(void)state;
	rt_print_open_object(pr, NULL);
	rt_print_string(pr, RT_PRINT_ANY, "q", "%s", "a\"b\\c/d");
	rt_print_string(pr, RT_PRINT_ANY, "c", "%s", "\n\t\r\b\f\x01\x1f\x7f");
	rt_print_string(pr, RT_PRINT_ANY, "utf8", "%s", "r\xc3\xa9seau");
	rt_print_string(pr, RT_PRINT_ANY, "k\"ey", "%s", "");
	rt_print_string(pr, RT_PRINT_ANY, "null", "%s", NULL);
	rt_print_close_object(pr);
	out_check(&o, "{\"q\":\"a\\\"b\\\\c/d\","
		      "\"c\":\"\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f\","
		      "\"utf8\":\"r\xc3\xa9seau\",\"k\\\"ey\":\"\",\"null\":\"\"}\n");
}

static void json_numbers(void **state)
{
	struct out o;
	struct rt_print *pr = out_open(&o, true, false);

	(void)state;
	rt_print_open_object(pr, NULL);
	rt_print_uint(pr, RT_PRINT_ANY, "zero", "zero %" PRIu64, 0);
	rt_print_uint(pr, RT_PRINT_ANY, "max", "max %" PRIu64, UINT64_MAX);
	rt_print_bool(pr, RT_PRINT_ANY, "t", "t %s", true);
	rt_print_bool(pr, RT_PRINT_ANY, "f", "f %s", false);
	rt_print_open_array(pr, "list");
	rt_print_uint(pr, RT_PRINT_ANY, NULL, "%" PRIu64, 3);
	rt_print_uint(pr, RT_PRINT_ANY, NULL, "%" PRIu64, 5);
	rt_print_close_array(pr);
	rt_print_open_array(pr, "empty");
	rt_print_close_array(pr);
	rt_print_open_object(pr, "obj");
	rt_print_close_object(pr);
	rt_print_close_object(pr);
	out_check(&o, "{\"zero\":0,\"max\":18446744073709551615,\"t\":true,"
		      "\"f\":false,\"list\":[3,5],\"empty\":[],\"obj\":{}}\n");
}

static void json_pretty(void **state)
{
	struct out o;
	struct rt_print *pr = out_open(&o, true, true);

	(void)state;
	rt_print_open_array(pr, NULL);
	rt_print_open_object(pr, NULL);
	rt_print_uint(pr, RT_PRINT_ANY, "a", NULL, 1);
	rt_print_open_array(pr, "b");
	rt_print_uint(pr, RT_PRINT_ANY, NULL, NULL, 2);
	rt_print_close_array(pr);
	rt_print_open_object(pr, "c");
	rt_print_close_object(pr);
	rt_print_close_object(pr);
	rt_print_close_array(pr);
	out_check(&o, "[\n  {\n    \"a\": 1,\n    \"b\": [\n      2\n    ],\n"
		      "    \"c\": {}\n  }\n]\n");
}

static void json_empty_array(void **state)
{
	struct out o;
	struct rt_print *pr = out_open(&o, true, true);

	(void)state;
	rt_print_open_array(pr, NULL);
	rt_print_close_array(pr);
	out_check(&o, "[]\n");
}

/* Consecutive top-level objects are JSON lines (monitor). */
static void json_lines(void **state)
{
	struct out o;
	struct rt_print *pr = out_open(&o, true, false);
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		rt_print_open_object(pr, NULL);
		rt_print_uint(pr, RT_PRINT_ANY, "i", NULL, i);
		rt_print_close_object(pr);
	}
	out_check(&o, "{\"i\":0}\n{\"i\":1}\n");
}

static void modes(void **state)
{
	struct out o;
	struct rt_print *pr;
	int json;

	(void)state;
	for (json = 0; json < 2; json++) {
		pr = out_open(&o, json, false);
		rt_print_open_object(pr, NULL);
		rt_print_uint(pr, RT_PRINT_JSON, "j", "J%" PRIu64, 1);
		rt_print_uint(pr, RT_PRINT_TEXT, "t", "T%" PRIu64, 2);
		rt_print_text(pr, "|text");
		rt_print_close_object(pr);
		out_check(&o, json ? "{\"j\":1}\n" : "T2|text");
	}
}

static void text_alignment(void **state)
{
	struct out o;
	struct rt_print *pr = out_open(&o, false, false);

	(void)state;
	pr->label_width = 16;
	rt_print_counter(pr, "tx_pkts", "tx-pkts", "  ", 5);
	rt_print_counter(pr, "rx_ecn_ce_pkts", "rx-ecn-ce-pkts", "  ", 123456);
	out_check(&o, "  tx-pkts          5\n"
		      "  rx-ecn-ce-pkts   123456\n");
}

static struct rt_port *sample_port(struct rt_port *p)
{
	static struct rt_hwc hwc[] = { { "sent_pkts", 7 }, { "a\"b", 1 } };

	memset(p, 0, sizeof(*p));
	p->attrs = RT_BIT(ROCETUNE_A_DEV_NAME) | RT_BIT(ROCETUNE_A_DEV_INDEX) |
		   RT_BIT(ROCETUNE_A_PORT_INDEX) | RT_BIT(ROCETUNE_A_PORT_STATE) |
		   RT_BIT(ROCETUNE_A_PORT_NETDEV_NAME) |
		   RT_BIT(ROCETUNE_A_PORT_NETDEV_IFINDEX) |
		   RT_BIT(ROCETUNE_A_COUNTERS) | RT_BIT(ROCETUNE_A_RATES) |
		   RT_BIT(ROCETUNE_A_HW_COUNTERS) | RT_BIT(ROCETUNE_A_PFC);
	strcpy(p->dev, "rxe0");
	p->dev_index = 2;
	p->port = 1;
	p->state = 4;
	strcpy(p->netdev, "va");
	p->netdev_ifindex = 5;
	p->counters.present = RT_BIT(ROCETUNE_A_CNT_TX_PKTS) |
			      RT_BIT(ROCETUNE_A_CNT_RX_ECN_CE_PKTS);
	p->counters.val[ROCETUNE_A_CNT_TX_PKTS] = 100;
	p->counters.val[ROCETUNE_A_CNT_RX_ECN_CE_PKTS] = 3;
	p->rates.present = RT_BIT(ROCETUNE_A_CNT_TX_PKTS);
	p->rates.val[ROCETUNE_A_CNT_TX_PKTS] = 10;
	p->hwc = hwc;
	p->nhwc = 2;
	p->pfc.attrs = RT_BIT(ROCETUNE_A_PFC_CAP) | RT_BIT(ROCETUNE_A_PFC_ENABLED);
	p->pfc.cap = 8;
	p->pfc.enabled = 1 << 3;
	p->pfc.nprio = 1;
	p->pfc.prio[0].attrs = RT_BIT(ROCETUNE_A_PRIO_INDEX) |
			       RT_BIT(ROCETUNE_A_PRIO_RX_PAUSE) |
			       RT_BIT(ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US) |
			       RT_BIT(ROCETUNE_A_PRIO_STORM);
	p->pfc.prio[0].index = 3;
	p->pfc.prio[0].rx_pause = 20;
	p->pfc.prio[0].rx_pause_duration_us = 900;
	p->pfc.prio[0].storm = true;
	return p;
}

/* One path: the same printer gives the agreed JSON and aligned text. */
static void port_one_path(void **state)
{
	struct rt_port p;
	struct out o;

	(void)state;
	rt_port_print(out_open(&o, true, false), sample_port(&p), true);
	out_check(&o, "{\"dev\":\"rxe0\",\"dev_index\":2,\"port\":1,"
		      "\"state\":\"active\",\"netdev\":\"va\",\"netdev_ifindex\":5,"
		      "\"counters\":{\"tx_pkts\":100,\"rx_ecn_ce_pkts\":3},"
		      "\"rates\":{\"tx_pkts\":10},"
		      "\"hw_counters\":{\"sent_pkts\":7,\"a\\\"b\":1},"
		      "\"pfc\":{\"cap\":8,\"enabled\":[3],\"prio\":[{\"prio\":3,"
		      "\"rx_pause\":20,\"rx_pause_duration_us\":900,"
		      "\"storm\":true}]}}\n");
	rt_port_print(out_open(&o, false, false), sample_port(&p), false);
	out_check(&o, "rxe0/1: state active netdev va netdev-ifindex 5\n"
		      "    counters:\n"
		      "        tx-pkts                  100\n"
		      "        rx-ecn-ce-pkts           3\n"
		      "    rates:\n"
		      "        tx-pkts                  10\n"
		      "    pfc: cap 8 enabled 3\n"
		      "        prio 3: rx-pause 20 rx-pause-duration-us 900 storm yes\n");
}

static void port_no_stats_no_hw(void **state)
{
	struct rt_port p;
	struct out o;

	(void)state;
	rt_port_print(out_open(&o, true, false), sample_port(&p), false);
	fclose(o.f);
	assert_null(strstr(o.s, "hw_counters"));
	free(o.s);
}

static void port_hw_long_names(void **state)
{
	struct rt_hwc hwc[] = {
		{ "np_ecn_marked_roce_packets_long", 5 }, { "x", 6 },
	};
	struct rt_port p;
	struct out o;

	(void)state;
	sample_port(&p)->hwc = hwc;
	p.attrs &= ~(RT_BIT(ROCETUNE_A_COUNTERS) | RT_BIT(ROCETUNE_A_RATES) |
		     RT_BIT(ROCETUNE_A_PFC));
	rt_port_print(out_open(&o, false, false), &p, true);
	out_check(&o, "rxe0/1: state active netdev va netdev-ifindex 5\n"
		      "    hw-counters:\n"
		      "        np_ecn_marked_roce_packets_long 5\n"
		      "        x                               6\n");
}

static void port_unknown_state(void **state)
{
	struct rt_port p;
	struct out o;

	(void)state;
	sample_port(&p)->state = 9;
	p.attrs &= ~(RT_BIT(ROCETUNE_A_COUNTERS) | RT_BIT(ROCETUNE_A_RATES) |
		     RT_BIT(ROCETUNE_A_PFC));
	rt_port_print(out_open(&o, false, false), &p, false);
	out_check(&o, "rxe0/1: state 9 netdev va netdev-ifindex 5\n");
}

static void dev_one_path(void **state)
{
	struct rt_dev d = {
		.attrs = RT_BIT(ROCETUNE_A_DEV_INDEX) | RT_BIT(ROCETUNE_A_DEV_NAME) |
			 RT_BIT(ROCETUNE_A_DEV_DRIVER) |
			 RT_BIT(ROCETUNE_A_DEV_NUM_PORTS),
		.index = 3, .num_ports = 1, .name = "rxe0", .driver = "rxe",
	};
	struct rt_print *pr;
	struct out o;

	(void)state;
	pr = out_open(&o, true, false);
	rt_print_open_array(pr, NULL);
	rt_dev_print(pr, &d);
	rt_print_close_array(pr);
	out_check(&o, "[{\"dev_index\":3,\"dev\":\"rxe0\",\"driver\":\"rxe\","
		      "\"num_ports\":1}]\n");
	pr = out_open(&o, false, false);
	rt_print_open_array(pr, NULL);
	rt_dev_print(pr, &d);
	rt_print_close_array(pr);
	out_check(&o, "3: rxe0: driver rxe num-ports 1\n");
}

static void config_one_path(void **state)
{
	struct rt_config c = {
		.attrs = RT_BIT(ROCETUNE_A_INTERVAL_MS) | RT_BIT(ROCETUNE_A_STORM_MS) |
			 RT_BIT(ROCETUNE_A_CNP_RATE_THRESH) |
			 RT_BIT(ROCETUNE_A_ECN_RATE_THRESH),
		.interval_ms = 100, .storm_ms = 200,
	};
	struct out o;

	(void)state;
	rt_config_print(out_open(&o, true, false), &c);
	out_check(&o, "{\"interval_ms\":100,\"storm_ms\":200,"
		      "\"cnp_rate_thresh\":0,\"ecn_rate_thresh\":0}\n");
	rt_config_print(out_open(&o, false, false), &c);
	out_check(&o, "interval-ms 100 storm-ms 200 cnp-rate-thresh 0 "
		      "ecn-rate-thresh 0\n");
}

static void event_one_path(void **state)
{
	struct rt_event ev = {
		.attrs = RT_BIT(ROCETUNE_A_EVENT_TYPE) | RT_BIT(ROCETUNE_A_DEV_NAME) |
			 RT_BIT(ROCETUNE_A_DEV_INDEX) | RT_BIT(ROCETUNE_A_PORT_INDEX) |
			 RT_BIT(ROCETUNE_A_EVENT_PRIO) |
			 RT_BIT(ROCETUNE_A_EVENT_DURATION_MS) |
			 RT_BIT(ROCETUNE_A_EVENT_TIME_NS),
		.type = ROCETUNE_EVENT_STORM_START, .dev = "rxe0", .dev_index = 2,
		.port = 1, .prio = 3, .duration_ms = 200, .time_ns = 5,
	};
	struct out o;

	(void)state;
	rt_event_print(out_open(&o, true, false), &ev);
	out_check(&o, "{\"event\":\"storm_start\",\"dev\":\"rxe0\",\"dev_index\":2,"
		      "\"port\":1,\"prio\":3,\"duration_ms\":200,"
		      "\"time_ns\":5}\n");
	rt_event_print(out_open(&o, false, false), &ev);
	out_check(&o, "storm_start rxe0/1 prio 3 duration-ms 200 time-ns 5\n");
}

static void prometheus(void **state)
{
	struct rt_port p[2];
	struct out o;

	(void)state;
	sample_port(&p[0]);
	sample_port(&p[1]);
	strcpy(p[1].dev, "r\"x\\e\n1");
	p[1].attrs &= ~RT_BIT(ROCETUNE_A_PORT_NETDEV_NAME);
	p[1].counters.present = RT_BIT(ROCETUNE_A_CNT_TX_PKTS);
	p[1].pfc.nprio = 0;
	out_open(&o, false, false);
	rt_prom_write_ports(o.f, p, 2, false);
	out_check(&o,
		"# HELP rocetune_port_tx_pkts_total RoCE packets transmitted\n"
		"# TYPE rocetune_port_tx_pkts_total counter\n"
		"rocetune_port_tx_pkts_total{device=\"rxe0\",port=\"1\",netdev=\"va\"} 100\n"
		"rocetune_port_tx_pkts_total{device=\"r\\\"x\\\\e\\n1\",port=\"1\"} 100\n"
		"# HELP rocetune_port_rx_ecn_ce_pkts_total RoCE packets received with ECN Congestion Experienced\n"
		"# TYPE rocetune_port_rx_ecn_ce_pkts_total counter\n"
		"rocetune_port_rx_ecn_ce_pkts_total{device=\"rxe0\",port=\"1\",netdev=\"va\"} 3\n"
		"# HELP rocetune_pfc_rx_pause_total PFC pause frames received per priority\n"
		"# TYPE rocetune_pfc_rx_pause_total counter\n"
		"rocetune_pfc_rx_pause_total{device=\"rxe0\",port=\"1\",netdev=\"va\",prio=\"3\"} 20\n"
		"# HELP rocetune_pfc_rx_pause_duration_seconds_total Time the port was paused by received PFC frames per priority\n"
		"# TYPE rocetune_pfc_rx_pause_duration_seconds_total counter\n"
		"rocetune_pfc_rx_pause_duration_seconds_total{device=\"rxe0\",port=\"1\",netdev=\"va\",prio=\"3\"} 0.0009\n"
		"# HELP rocetune_pfc_storm 1 while a PFC pause storm lasts on the priority, else 0\n"
		"# TYPE rocetune_pfc_storm gauge\n"
		"rocetune_pfc_storm{device=\"rxe0\",port=\"1\",netdev=\"va\",prio=\"3\"} 1\n");
}

/* Nothing the kernel did not send: no storm, no PFC, no counters. */
static void prometheus_absent(void **state)
{
	struct rt_port p;
	struct out o;

	(void)state;
	sample_port(&p);
	p.pfc.prio[0].attrs &= ~RT_BIT(ROCETUNE_A_PRIO_STORM);
	out_open(&o, false, false);
	rt_prom_write_ports(o.f, &p, 1, false);
	fclose(o.f);
	assert_null(strstr(o.s, "storm"));
	assert_non_null(strstr(o.s, "rocetune_pfc_rx_pause_total"));
	assert_null(strstr(o.s, "rocetune_pfc_tx_pause_total"));
	free(o.s);
	sample_port(&p);
	p.attrs &= ~(RT_BIT(ROCETUNE_A_PFC) | RT_BIT(ROCETUNE_A_COUNTERS));
	out_open(&o, false, false);
	rt_prom_write_ports(o.f, &p, 1, false);
	out_check(&o, "");
}

static void prometheus_seconds(void **state)
{
	static const struct { uint64_t us; const char *s; } cases[] = {
		{ 0, "0" }, { 1, "0.000001" }, { 900, "0.0009" },
		{ 1000000, "1" }, { 1500000, "1.5" }, { 12345678, "12.345678" },
		{ UINT64_MAX, "18446744073709.551615" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rt_prom_us_to_seconds(buf, sizeof(buf), cases[i].us);
		assert_string_equal(buf, cases[i].s);
	}
}

static void prometheus_hw(void **state)
{
	struct rt_port p;
	struct out o;

	(void)state;
	out_open(&o, false, false);
	rt_prom_write_ports(o.f, sample_port(&p), 1, true);
	fclose(o.f);
	assert_non_null(strstr(o.s, "# TYPE rocetune_port_hw_stat_total counter\n"
				    "rocetune_port_hw_stat_total{device=\"rxe0\",port=\"1\","
				    "netdev=\"va\",name=\"sent_pkts\"} 7\n"));
	assert_non_null(strstr(o.s, "name=\"a\\\"b\"} 1\n"));
	assert_null(strstr(o.s, "hw_counter"));
	free(o.s);
}

static void prometheus_qps(void **state)
{
	struct rt_qp q[2];
	struct out o;

	(void)state;
	memset(q, 0, sizeof(q));
	strcpy(q[0].dev, "rxe0");
	q[0].qpn = 17;
	q[0].type = 2;
	q[0].port = 1;
	strcpy(q[0].comm, "ib_write_bw");
	q[0].qattrs = RT_BIT(ROCETUNE_A_QP_TYPE) | RT_BIT(ROCETUNE_A_QP_COMM) |
		      RT_BIT(ROCETUNE_A_QP_PORT) |
		      RT_BIT(ROCETUNE_A_QP_RX_ECN_CE_PKTS);
	q[0].cnt[ROCETUNE_A_QP_RX_ECN_CE_PKTS] = 9;
	strcpy(q[1].dev, "rxe1");
	q[1].qpn = 1;
	q[1].qattrs = RT_BIT(ROCETUNE_A_QP_RX_ECN_CE_PKTS) |
		      RT_BIT(ROCETUNE_A_QP_TX_PKTS);
	q[1].cnt[ROCETUNE_A_QP_TX_PKTS] = 3;
	out_open(&o, false, false);
	rt_prom_write_qps(o.f, q, 2);
	out_check(&o,
		"# HELP rocetune_qp_tx_pkts_total RoCE packets sent by the QP\n"
		"# TYPE rocetune_qp_tx_pkts_total counter\n"
		"rocetune_qp_tx_pkts_total{device=\"rxe1\",qpn=\"1\"} 3\n"
		"# HELP rocetune_qp_rx_ecn_ce_pkts_total Packets received with ECN Congestion Experienced\n"
		"# TYPE rocetune_qp_rx_ecn_ce_pkts_total counter\n"
		"rocetune_qp_rx_ecn_ce_pkts_total{device=\"rxe0\",port=\"1\",qpn=\"17\",type=\"RC\",comm=\"ib_write_bw\"} 9\n"
		"rocetune_qp_rx_ecn_ce_pkts_total{device=\"rxe1\",qpn=\"1\"} 0\n");
}

/* A process name is any bytes: the label stays valid UTF-8. */
static void prometheus_utf8(void **state)
{
	struct out o;

	(void)state;
	out_open(&o, false, false);
	rt_prom_label_value(o.f, "a\xff" "b\xc3\xa9" "c\xed\xa0\x80" "\xe2\x82");
	out_check(&o, "\"a\xef\xbf\xbd" "b\xc3\xa9" "c\xef\xbf\xbd\xef\xbf\xbd"
		      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
}

/*
 * Everything the port and QP writers can produce, through promtool's
 * linter when it is installed (Debian: prometheus): no problem at all.
 */
static void prometheus_promtool(void **state)
{
	struct rt_hwc hwc[] = { { "np_cnp_sent", 7 }, { "cnpSent", 1 } };
	char cmd[] = "promtool check metrics > /dev/null 2>&1";
	struct rt_port p[2];
	struct rt_qp q;
	FILE *f;
	size_t i;

	(void)state;
	if (system("command -v promtool > /dev/null 2>&1"))
		skip();
	sample_port(&p[0]);
	sample_port(&p[1]);
	p[1].port = 2;
	p[1].hwc = hwc;
	for (i = 0; i < 2; i++) {
		p[i].counters.present = 0;
		for (unsigned int a = ROCETUNE_A_CNT_PAD + 1;
		     a <= ROCETUNE_A_CNT_MAX; a++)
			p[i].counters.present |= RT_BIT(a);
		p[i].pfc.prio[0].attrs = ~0ULL;
		p[i].pfc.prio[0].tx_pause_duration_us = 1234567;
	}
	memset(&q, 0, sizeof(q));
	strcpy(q.dev, "rxe0");
	strcpy(q.comm, "qp\xff\xfe" "x\"y");
	q.qpn = 17;
	q.qattrs = RT_BIT(ROCETUNE_A_QP_TYPE) | RT_BIT(ROCETUNE_A_QP_COMM) |
		   RT_BIT(ROCETUNE_A_QP_PORT);
	for (i = 0; i < rt_qp_counter_ndescs; i++)
		q.qattrs |= RT_BIT(rt_qp_counter_descs[i].attr);
	f = popen(cmd, "w");
	assert_non_null(f);
	rt_prom_write_ports(f, p, 2, true);
	rt_prom_write_qps(f, &q, 1);
	assert_int_equal(pclose(f), 0);
}

/* Bytes that are not UTF-8 (a process name can hold any) stay valid JSON. */
static void json_invalid_utf8(void **state)
{
	struct out o;
	struct rt_print *pr = out_open(&o, true, false);

	(void)state;
	rt_print_open_object(pr, NULL);
	rt_print_string(pr, RT_PRINT_ANY, "ff", "%s", "qp\xff\xfe");
	rt_print_string(pr, RT_PRINT_ANY, "overlong", "%s", "\xc0\xaf\xe0\x80\xaf");
	rt_print_string(pr, RT_PRINT_ANY, "surrogate", "%s", "\xed\xa0\x80");
	rt_print_string(pr, RT_PRINT_ANY, "cut", "%s", "\xe2\x82");
	rt_print_string(pr, RT_PRINT_ANY, "big", "%s", "\xf4\x90\x80\x80");
	rt_print_string(pr, RT_PRINT_ANY, "ok", "%s",
			"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
	rt_print_close_object(pr);
	out_check(&o, "{\"ff\":\"qp\\ufffd\\ufffd\","
		      "\"overlong\":\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\","
		      "\"surrogate\":\"\\ufffd\\ufffd\\ufffd\","
		      "\"cut\":\"\\ufffd\\ufffd\","
		      "\"big\":\"\\ufffd\\ufffd\\ufffd\\ufffd\","
		      "\"ok\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"}\n");
}

/* Text: control characters and stray bytes are shown, not sent raw. */
static void text_escapes(void **state)
{
	struct out o;
	struct rt_print *pr = out_open(&o, false, false);

	(void)state;
	rt_print_string(pr, RT_PRINT_ANY, "comm", "comm %s", "a\x1b[2Jb\xff\xc3\xa9\n");
	out_check(&o, "comm a\\x1b[2Jb\\xff\xc3\xa9\\x0a");
}

/* The text keyword is the JSON key in kebab-case, by construction. */
static void kv_keywords(void **state)
{
	struct out o;
	struct rt_print *pr;
	int json;

	(void)state;
	for (json = 0; json < 2; json++) {
		pr = out_open(&o, json, false);
		rt_print_open_object(pr, NULL);
		rt_print_kv_uint(pr, "num_ports", 2);
		rt_print_kv_string(pr, "lower_netdev", "eth0");
		rt_print_kv_bool(pr, "storm", true);
		rt_print_text(pr, "\n");
		rt_print_kv_uint(pr, "x", 1);
		rt_print_close_object(pr);
		out_check(&o, json ? "{\"num_ports\":2,\"lower_netdev\":\"eth0\","
				     "\"storm\":true,\"x\":1}\n" :
				     "num-ports 2 lower-netdev eth0 storm yes\nx 1");
	}
}

/*
 * Every text line of the object printers: each "keyword value" pair is a
 * JSON key of the same object in kebab-case.
 */
static void text_keywords_are_json_keys(void **state)
{
	struct rt_config c = {
		.attrs = RT_BIT(ROCETUNE_A_DEV_NAME) | RT_BIT(ROCETUNE_A_INTERVAL_MS) |
			 RT_BIT(ROCETUNE_A_STORM_MS) |
			 RT_BIT(ROCETUNE_A_CNP_RATE_THRESH) |
			 RT_BIT(ROCETUNE_A_ECN_RATE_THRESH),
		.dev = "rxe0", .interval_ms = 100, .storm_ms = 200,
		.cnp_rate_thresh = 3, .ecn_rate_thresh = 4,
	};
	char *save, *kw, key[64], want[80];
	struct out t, j;
	size_t i;

	(void)state;
	rt_config_print(out_open(&t, false, false), &c);
	rt_config_print(out_open(&j, true, false), &c);
	fclose(t.f);
	fclose(j.f);
	for (kw = strtok_r(t.s, " \n", &save); kw;
	     kw = strtok_r(NULL, " \n", &save)) {
		for (i = 0; kw[i] && i + 1 < sizeof(key); i++)
			key[i] = kw[i] == '-' ? '_' : kw[i];
		key[i] = '\0';
		snprintf(want, sizeof(want), "\"%s\":", key);
		assert_non_null(strstr(j.s, want));
		assert_non_null(strtok_r(NULL, " \n", &save));	/* its value */
	}
	free(t.s);
	free(j.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_escapes),
		cmocka_unit_test(json_numbers),
		cmocka_unit_test(json_pretty),
		cmocka_unit_test(json_empty_array),
		cmocka_unit_test(json_lines),
		cmocka_unit_test(modes),
		cmocka_unit_test(text_alignment),
		cmocka_unit_test(port_one_path),
		cmocka_unit_test(port_no_stats_no_hw),
		cmocka_unit_test(port_hw_long_names),
		cmocka_unit_test(port_unknown_state),
		cmocka_unit_test(dev_one_path),
		cmocka_unit_test(config_one_path),
		cmocka_unit_test(event_one_path),
		cmocka_unit_test(prometheus),
		cmocka_unit_test(prometheus_absent),
		cmocka_unit_test(prometheus_seconds),
		cmocka_unit_test(prometheus_hw),
		cmocka_unit_test(prometheus_qps),
		cmocka_unit_test(prometheus_utf8),
		cmocka_unit_test(prometheus_promtool),
		cmocka_unit_test(json_invalid_utf8),
		cmocka_unit_test(text_escapes),
		cmocka_unit_test(kv_keywords),
		cmocka_unit_test(text_keywords_are_json_keys),
	};

	return cmocka_run_group_tests_name("rt_print", tests, NULL, NULL);
}
