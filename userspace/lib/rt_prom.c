// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: ports and QPs in the Prometheus text format.
 */
#include <inttypes.h>
#include <string.h>

#include "rt_print.h"
#include "rt_prom.h"

/* The replacement character U+FFFD, for a byte outside valid UTF-8. */
#define RT_PROM_REPLACEMENT	"\xef\xbf\xbd"

void rt_prom_label_value(FILE *f, const char *s)
{
	size_t n;

	fputc('"', f);
	while (s && *s) {
		n = rt_utf8_len(s);
		if (!n) {
			fputs(RT_PROM_REPLACEMENT, f);
			s++;
			continue;
		}
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fwrite(s, 1, n, f);
		s += n;
	}
	fputc('"', f);
}

void rt_prom_us_to_seconds(char *buf, size_t len, uint64_t us)
{
	char frac[8];
	int i;

	snprintf(frac, sizeof(frac), "%06" PRIu64, us % 1000000);
	for (i = 5; i >= 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	snprintf(buf, len, "%" PRIu64 "%s%s", us / 1000000, frac[0] ? "." : "",
		 frac);
}

/* {device="rxe0",port="1",netdev="va" -- the caller closes the brace. */
static void rt_prom_labels(FILE *f, const struct rt_port *p)
{
	fputs("{device=", f);
	rt_prom_label_value(f, p->dev);
	fprintf(f, ",port=\"%" PRIu32 "\"", p->port);
	if (rt_has(p->attrs, ROCETUNE_A_PORT_NETDEV_NAME)) {
		fputs(",netdev=", f);
		rt_prom_label_value(f, p->netdev);
	}
}

static void rt_prom_header(FILE *f, bool *done, const char *name,
			   const char *help, const char *type)
{
	if (*done)
		return;
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	*done = true;
}

static void rt_prom_counter(FILE *f, const struct rt_counter_desc *d,
			    const struct rt_port *ports, size_t n)
{
	char name[96];
	bool header = false;
	size_t i;

	snprintf(name, sizeof(name), "rocetune_port_%s_total", d->key);
	for (i = 0; i < n; i++) {
		if (!rt_has(ports[i].attrs, ROCETUNE_A_COUNTERS) ||
		    !rt_counter_present(&ports[i].counters, d->attr))
			continue;
		rt_prom_header(f, &header, name, d->help, "counter");
		fputs(name, f);
		rt_prom_labels(f, &ports[i]);
		fprintf(f, "} %" PRIu64 "\n", ports[i].counters.val[d->attr]);
	}
}

enum rt_prom_unit {
	RT_PROM_COUNT,			/* the value as it is */
	RT_PROM_US_AS_SECONDS,		/* microseconds, written in seconds */
	RT_PROM_BOOL,			/* 0 or 1 */
};

struct rt_prom_prio_metric {
	const char *name;
	const char *help;
	const char *type;
	unsigned int attr;		/* ROCETUNE_A_PRIO_* */
	enum rt_prom_unit unit;
};

static const struct rt_prom_prio_metric rt_prom_prio_metrics[] = {
	{ "rocetune_pfc_tx_pause_total",
	  "PFC pause frames sent per priority", "counter",
	  ROCETUNE_A_PRIO_TX_PAUSE, RT_PROM_COUNT },
	{ "rocetune_pfc_rx_pause_total",
	  "PFC pause frames received per priority", "counter",
	  ROCETUNE_A_PRIO_RX_PAUSE, RT_PROM_COUNT },
	{ "rocetune_pfc_rx_pause_duration_seconds_total",
	  "Time the port was paused by received PFC frames per priority",
	  "counter", ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US,
	  RT_PROM_US_AS_SECONDS },
	{ "rocetune_pfc_tx_pause_duration_seconds_total",
	  "Time the port asked its peer to pause per priority", "counter",
	  ROCETUNE_A_PRIO_TX_PAUSE_DURATION_US, RT_PROM_US_AS_SECONDS },
	{ "rocetune_pfc_storm",
	  "1 while a PFC pause storm lasts on the priority, else 0", "gauge",
	  ROCETUNE_A_PRIO_STORM, RT_PROM_BOOL },
};

static uint64_t rt_prom_prio_value(const struct rt_prio *q, unsigned int attr)
{
	switch (attr) {
	case ROCETUNE_A_PRIO_TX_PAUSE:
		return q->tx_pause;
	case ROCETUNE_A_PRIO_RX_PAUSE:
		return q->rx_pause;
	case ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US:
		return q->rx_pause_duration_us;
	case ROCETUNE_A_PRIO_TX_PAUSE_DURATION_US:
		return q->tx_pause_duration_us;
	case ROCETUNE_A_PRIO_STORM:
		return q->storm;
	default:
		return 0;
	}
}

static void rt_prom_prio(FILE *f, const struct rt_prom_prio_metric *m,
			 const struct rt_port *ports, size_t n)
{
	bool header = false;
	char val[32];
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (!rt_has(ports[i].attrs, ROCETUNE_A_PFC))
			continue;
		for (j = 0; j < ports[i].pfc.nprio; j++) {
			const struct rt_prio *q = &ports[i].pfc.prio[j];
			uint64_t v = rt_prom_prio_value(q, m->attr);

			if (!rt_has(q->attrs, m->attr))
				continue;
			if (m->unit == RT_PROM_US_AS_SECONDS)
				rt_prom_us_to_seconds(val, sizeof(val), v);
			else
				snprintf(val, sizeof(val), "%" PRIu64, v);
			rt_prom_header(f, &header, m->name, m->help, m->type);
			fputs(m->name, f);
			rt_prom_labels(f, &ports[i]);
			fprintf(f, ",prio=\"%u\"} %s\n", q->index, val);
		}
	}
}

static void rt_prom_hw(FILE *f, const struct rt_port *ports, size_t n)
{
	const char *name = "rocetune_port_hw_stat_total";
	bool header = false;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < ports[i].nhwc; j++) {
			rt_prom_header(f, &header, name,
				       "Raw driver statistic of the port (rdma statistic), by its driver name",
				       "counter");
			fputs(name, f);
			rt_prom_labels(f, &ports[i]);
			fputs(",name=", f);
			rt_prom_label_value(f, ports[i].hwc[j].name);
			fprintf(f, "} %" PRIu64 "\n", ports[i].hwc[j].value);
		}
	}
}

void rt_prom_write_ports(FILE *f, const struct rt_port *ports, size_t n,
			 bool hw)
{
	size_t i;

	for (i = 0; i < rt_counter_ndescs; i++)
		rt_prom_counter(f, &rt_counter_descs[i], ports, n);
	for (i = 0; i < ARRAY_SIZE(rt_prom_prio_metrics); i++)
		rt_prom_prio(f, &rt_prom_prio_metrics[i], ports, n);
	if (hw)
		rt_prom_hw(f, ports, n);
}

static void rt_prom_qp_labels(FILE *f, const struct rt_qp *qp)
{
	fputs("{device=", f);
	rt_prom_label_value(f, qp->dev);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_PORT))
		fprintf(f, ",port=\"%" PRIu32 "\"", qp->port);
	fprintf(f, ",qpn=\"%" PRIu32 "\"", qp->qpn);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_TYPE))
		fprintf(f, ",type=\"%s\"", rt_qp_type_name(qp->type));
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_COMM)) {
		fputs(",comm=", f);
		rt_prom_label_value(f, qp->comm);
	}
	fputc('}', f);
}

size_t rt_prom_qp_series(const struct rt_qp *qp)
{
	size_t i, n = 0;

	for (i = 0; i < rt_qp_counter_ndescs; i++)
		if (rt_has(qp->qattrs, rt_qp_counter_descs[i].attr))
			n++;
	return n;
}

void rt_prom_write_qps(FILE *f, const struct rt_qp *qps, size_t n)
{
	char name[96];
	size_t i, j;
	bool header;

	for (i = 0; i < rt_qp_counter_ndescs; i++) {
		const struct rt_counter_desc *d = &rt_qp_counter_descs[i];

		snprintf(name, sizeof(name), "rocetune_qp_%s_total", d->key);
		header = false;
		for (j = 0; j < n; j++) {
			if (!rt_has(qps[j].qattrs, d->attr))
				continue;
			rt_prom_header(f, &header, name, d->help, "counter");
			fputs(name, f);
			rt_prom_qp_labels(f, &qps[j]);
			fprintf(f, " %" PRIu64 "\n", qps[j].cnt[d->attr]);
		}
	}
}
