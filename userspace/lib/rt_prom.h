/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: ports and QPs in the Prometheus text
 * exposition format (for node_exporter's textfile collector).
 *
 *	rocetune_port_<counter>_total{device="rxe0",port="1",netdev="va"} N
 *	rocetune_pfc_rx_pause_total{device=...,prio="3"} N
 *	rocetune_pfc_rx_pause_duration_seconds_total{device=...,prio="3"} 0.0009
 *	rocetune_qp_<counter>_total{device="rxe0",port="1",qpn="17",type="RC"} N
 *
 * The labels "device" and "port" are those of node_exporter's infiniband
 * collector (node_infiniband_*), so that both join on them.  Each metric
 * family gets one # HELP and one # TYPE line, then a sample per port (per
 * priority, per QP) for which the kernel sent the value: a value the
 * kernel did not send is absent, never 0, and a family without samples is
 * not written at all.  Names follow the Prometheus conventions that
 * "promtool check metrics" checks: counters end in _total, times are in
 * seconds, no abbreviated units, no type in the name.  Label values are
 * valid UTF-8 (a byte outside a valid sequence becomes U+FFFD).
 */
#ifndef RT_PROM_H
#define RT_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rt_model.h"

/*
 * rt_prom_write_ports() - @ports in the text format; the raw driver
 * counters too if @hw, as
 *	rocetune_port_hw_stat_total{device=...,name="np_cnp_sent"} N
 */
void rt_prom_write_ports(FILE *f, const struct rt_port *ports, size_t n,
			 bool hw);

/*
 * rt_prom_write_qps() - per-QP counters of @qps in the text format:
 *	rocetune_qp_<counter>_total{device="rxe0",port="1",qpn="17",
 *				    type="RC",comm="ib_write_bw"} N
 * (port, type and comm only where the kernel sent them).  The caller
 * bounds @n (rocetune qp show asks the kernel for the top K).
 */
void rt_prom_write_qps(FILE *f, const struct rt_qp *qps, size_t n);

/*
 * rt_prom_qp_series() - how many series rt_prom_write_qps() writes for
 * @qp (one per counter the kernel sent).
 */
size_t rt_prom_qp_series(const struct rt_qp *qp);

/* rt_prom_label_value() - @s quoted as a label value, with escapes. */
void rt_prom_label_value(FILE *f, const char *s);

/*
 * rt_prom_us_to_seconds() - @us microseconds as an exact decimal number
 * of seconds ("0.0009", "12", "1.5") into @buf.
 */
void rt_prom_us_to_seconds(char *buf, size_t len, uint64_t us);

#endif /* RT_PROM_H */
