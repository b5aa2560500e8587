/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: devices, ports, configuration and events
 * as the kernel reports them, parsed from netlink messages.
 *
 * Each object records which top-level attributes were present in @attrs
 * (bit 1 << ROCETUNE_A_*), so that absent values stay absent in output.
 */
#ifndef RT_MODEL_H
#define RT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/rocetune.h>

#include "rt_counters.h"

struct nlmsghdr;

#define RT_NAME_LEN	64

#define RT_BIT(n)	(1ULL << (n))

static inline bool rt_has(uint64_t attrs, unsigned int attr)
{
	return attr < 64 && (attrs & RT_BIT(attr));
}

struct rt_dev {
	uint64_t attrs;
	uint32_t index;
	uint32_t num_ports;
	char name[RT_NAME_LEN];
	char driver[RT_NAME_LEN];
};

struct rt_hwc {
	char *name;
	uint64_t value;
};

#define RT_PFC_PRIOS	8

struct rt_prio {
	uint64_t attrs;			/* bit 1 << ROCETUNE_A_PRIO_* */
	uint8_t index;
	uint64_t tx_pause;
	uint64_t rx_pause;
	uint64_t tx_pause_rate;
	uint64_t rx_pause_rate;
	uint64_t rx_pause_duration_us;
	uint64_t tx_pause_duration_us;
	bool storm;
};

struct rt_pfc {
	uint64_t attrs;			/* bit 1 << ROCETUNE_A_PFC_* */
	uint8_t cap;
	uint8_t enabled;		/* bitmap of priorities */
	unsigned int nprio;
	struct rt_prio prio[RT_PFC_PRIOS];
};

struct rt_port {
	uint64_t attrs;
	uint32_t dev_index;
	uint32_t port;
	uint8_t state;
	uint32_t netdev_ifindex;
	uint32_t lower_ifindex;
	uint64_t sample_time_ns;
	char dev[RT_NAME_LEN];
	char netdev[RT_NAME_LEN];
	char lower[RT_NAME_LEN];
	struct rt_counter_set counters;
	struct rt_counter_set rates;
	struct rt_hwc *hwc;		/* malloc'ed, rt_port_free() */
	size_t nhwc;
	struct rt_pfc pfc;
};

struct rt_config {
	uint64_t attrs;
	uint32_t dev_index;
	uint32_t interval_ms;
	uint32_t storm_ms;
	uint64_t cnp_rate_thresh;
	uint64_t ecn_rate_thresh;
	char dev[RT_NAME_LEN];
};

struct rt_event {
	uint64_t attrs;
	uint32_t type;			/* enum rocetune_event */
	uint32_t dev_index;
	uint32_t port;
	uint8_t state;
	uint8_t prio;
	uint32_t netdev_ifindex;
	uint64_t value;
	uint64_t thresh;
	uint64_t duration_ms;
	uint64_t time_ns;
	char dev[RT_NAME_LEN];
	char old_name[RT_NAME_LEN];
	char netdev[RT_NAME_LEN];
};

/* One QP of QP_GET: the message's attributes and its ROCETUNE_A_QP nest. */
struct rt_qp {
	uint64_t attrs;			/* bit 1 << ROCETUNE_A_* */
	uint64_t qattrs;		/* bit 1 << ROCETUNE_A_QP_* */
	uint32_t dev_index;
	uint64_t gen;			/* the dump's generation */
	uint32_t qpn;
	uint32_t port;
	uint8_t type;			/* enum ib_qp_type */
	uint32_t remote_qpn;
	uint32_t pid;
	uint64_t changed_gen;
	uint64_t first_seen_ns;
	uint64_t last_seen_ns;
	uint64_t destroyed_ns;
	uint64_t top_delta;
	uint8_t rp_paced;		/* reaction point: pacing the QP */
	uint32_t rp_alpha;		/* ... alpha, 1/1024 */
	uint64_t rp_rate_kbps;		/* ... current rate */
	uint64_t rp_target_kbps;	/* ... target rate */
	uint64_t rp_cnps;		/* ... CNPs handled */
	uint64_t rp_cuts;		/* ... rate cuts */
	uint64_t rp_releases;		/* ... pacing stopped: retransmit */
	uint64_t rtt_samples;		/* round trips measured */
	uint64_t rtt_p50_ns;		/* ... median of the last 64 */
	uint64_t rtt_p99_ns;		/* ... their 99th percentile */
	uint64_t jitter_p50_ns;		/* consecutive round trips' difference */
	uint64_t jitter_p99_ns;
	uint64_t rtt_pacing_ns;		/* sampled requests' wait to depart */
	uint64_t cnt[ROCETUNE_A_QP_MAX + 1];	/* by ROCETUNE_A_QP_* */
	char dev[RT_NAME_LEN];
	char comm[RT_NAME_LEN];
};

/*
 * Parsers of one ROCETUNE_CMD_* message (generic netlink header included).
 * They validate attribute types and lengths, skip attributes they do not
 * know, and return 0 or a negative errno.  rt_port_parse() allocates the
 * raw counters; release them with rt_port_free() (also on error).
 */
int rt_dev_parse(const struct nlmsghdr *nlh, struct rt_dev *dev);
int rt_port_parse(const struct nlmsghdr *nlh, struct rt_port *port);
void rt_port_free(struct rt_port *port);
int rt_config_parse(const struct nlmsghdr *nlh, struct rt_config *cfg);
int rt_event_parse(const struct nlmsghdr *nlh, struct rt_event *ev);
int rt_qp_parse(const struct nlmsghdr *nlh, struct rt_qp *qp);

/* Names: "active", "storm_start", ...; NULL when unknown. */
const char *rt_port_state_name(unsigned int state);
const char *rt_event_name(unsigned int type);
/* "RC", "UD", ... of enum ib_qp_type; "other" when unknown. */
const char *rt_qp_type_name(unsigned int type);

#endif /* RT_MODEL_H */
