/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: ports in the Prometheus text exposition
 * format (for node_exporter's textfile collector).
 *
 *	rocetune_port_<counter>_total{dev="rxe0",port="1",netdev="va"} N
 *	rocetune_pfc_rx_pause_total{dev="rxe0",port="1",netdev="va",prio="3"} N
 *	rocetune_qp_<counter>_total{dev="rxe0",qpn="17",type="RC"} N
 *
 * Each metric family gets one # HELP and one # TYPE line, then a sample
 * per port (per priority) that has the value.
 */
#ifndef RT_PROM_H
#define RT_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rt_model.h"

/* rt_prom_write_ports() - @ports in the text format; raw counters if @hw. */
void rt_prom_write_ports(FILE *f, const struct rt_port *ports, size_t n,
			 bool hw);

/*
 * rt_prom_write_qps() - per-QP counters of @qps in the text format:
 *	rocetune_qp_<counter>_total{dev="rxe0",qpn="17",type="RC",
 *				    comm="ib_write_bw"} N
 * (comm only where the kernel sent the owner).
 */
void rt_prom_write_qps(FILE *f, const struct rt_qp *qps, size_t n);

/* rt_prom_label_value() - @s quoted as a label value, with escapes. */
void rt_prom_label_value(FILE *f, const char *s);

#endif /* RT_PROM_H */
