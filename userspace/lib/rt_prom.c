// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: ports and QPs in the Prometheus text format.
 */
#include <inttypes.h>
#include <string.h>

#include "rt_prom.h"

void rt_prom_label_value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void rt_prom_labels(FILE *f, const struct rt_port *p)
{
	fputs("{dev=", f);
	rt_prom_label_value(f, p->dev);
	fprintf(f, ",port=\"%" PRIu32 "\"", p->port);
	if (rt_has(p->attrs, ROCETUNE_A_PORT_NETDEV_NAME)) {
		fputs(",netdev=", f);
		rt_prom_label_value(f, p->netdev);
	}
}

static void rt_prom_header(FILE *f, const char *name, const char *help,
			   const char *type)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void rt_prom_counter(FILE *f, const struct rt_counter_desc *d,
			    const struct rt_port *ports, size_t n)
{
	char name[96];
	bool header = false;
	size_t i;

	snprintf(name, sizeof(name), "rocetune_port_%s_total", d->key);
	for (i = 0; i < n; i++) {
		if (!rt_counter_present(&ports[i].counters, d->attr))
			continue;
		if (!header)
			rt_prom_header(f, name, d->help, "counter");
		header = true;
		fputs(name, f);
		rt_prom_labels(f, &ports[i]);
		fprintf(f, "} %" PRIu64 "\n", ports[i].counters.val[d->attr]);
	}
}

struct rt_prom_prio_metric {
	const char *name;
	const char *help;
	const char *type;
	unsigned int attr;		/* ROCETUNE_A_PRIO_* */
	size_t offset;			/* of the u64 in struct rt_prio */
};

#define RT_PRIO_METRIC(n, t, a, field, h) \
	{ n, h, t, ROCETUNE_A_PRIO_ ## a, offsetof(struct rt_prio, field) }

static const struct rt_prom_prio_metric rt_prom_prio_metrics[] = {
	RT_PRIO_METRIC("rocetune_pfc_tx_pause_total", "counter", TX_PAUSE,
		       tx_pause, "PFC pause frames sent per priority"),
	RT_PRIO_METRIC("rocetune_pfc_rx_pause_total", "counter", RX_PAUSE,
		       rx_pause, "PFC pause frames received per priority"),
	RT_PRIO_METRIC("rocetune_pfc_rx_pause_duration_us_total", "counter",
		       RX_PAUSE_DURATION_US, rx_pause_duration_us,
		       "Time paused by received PFC frames, microseconds"),
	RT_PRIO_METRIC("rocetune_pfc_tx_pause_duration_us_total", "counter",
		       TX_PAUSE_DURATION_US, tx_pause_duration_us,
		       "Time paused by sent PFC frames, microseconds"),
};

static void rt_prom_prio_sample(FILE *f, const struct rt_prom_prio_metric *m,
				const struct rt_port *p, const struct rt_prio *pr)
{
	uint64_t v;

	memcpy(&v, (const char *)pr + m->offset, sizeof(v));
	fputs(m->name, f);
	rt_prom_labels(f, p);
	fprintf(f, ",prio=\"%u\"} %" PRIu64 "\n", pr->index, v);
}

static void rt_prom_prio(FILE *f, const struct rt_prom_prio_metric *m,
			 const struct rt_port *ports, size_t n)
{
	bool header = false;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < ports[i].pfc.nprio; j++) {
			const struct rt_prio *pr = &ports[i].pfc.prio[j];

			if (!rt_has(pr->attrs, m->attr))
				continue;
			if (!header)
				rt_prom_header(f, m->name, m->help, m->type);
			header = true;
			rt_prom_prio_sample(f, m, &ports[i], pr);
		}
	}
}

static void rt_prom_storm(FILE *f, const struct rt_port *ports, size_t n)
{
	const char *name = "rocetune_pfc_storm";
	bool header = false;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < ports[i].pfc.nprio; j++) {
			const struct rt_prio *pr = &ports[i].pfc.prio[j];

			if (!header)
				rt_prom_header(f, name,
					       "1 while a PFC pause storm lasts",
					       "gauge");
			header = true;
			fputs(name, f);
			rt_prom_labels(f, &ports[i]);
			fprintf(f, ",prio=\"%u\"} %d\n", pr->index, pr->storm);
		}
	}
}

static void rt_prom_hw(FILE *f, const struct rt_port *ports, size_t n)
{
	const char *name = "rocetune_port_hw_counter_total";
	bool header = false;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < ports[i].nhwc; j++) {
			if (!header)
				rt_prom_header(f, name,
					       "Raw driver counter of the port",
					       "counter");
			header = true;
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
	rt_prom_storm(f, ports, n);
	if (hw)
		rt_prom_hw(f, ports, n);
}

static void rt_prom_qp_labels(FILE *f, const struct rt_qp *qp)
{
	fputs("{dev=", f);
	rt_prom_label_value(f, qp->dev);
	fprintf(f, ",qpn=\"%" PRIu32 "\"", qp->qpn);
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_TYPE))
		fprintf(f, ",type=\"%s\"", rt_qp_type_name(qp->type));
	if (rt_has(qp->qattrs, ROCETUNE_A_QP_COMM)) {
		fputs(",comm=", f);
		rt_prom_label_value(f, qp->comm);
	}
	fputc('}', f);
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
			if (!header)
				rt_prom_header(f, name, d->help, "counter");
			header = true;
			fputs(name, f);
			rt_prom_qp_labels(f, &qps[j]);
			fprintf(f, " %" PRIu64 "\n", qps[j].cnt[d->attr]);
		}
	}
}
