/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the vendor-normalized port counters.
 *
 * One table maps each ROCETUNE_A_CNT_* attribute to its JSON key (the
 * lowercase attribute name, also the Prometheus metric name part), its
 * text label (the key in kebab-case) and a one-line description.
 */
#ifndef RT_COUNTERS_H
#define RT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/rocetune.h>

struct nlattr;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

struct rt_counter_desc {
	unsigned int attr;	/* ROCETUNE_A_CNT_* */
	const char *key;	/* JSON key: "rx_ecn_ce_pkts" */
	const char *label;	/* text label: "rx-ecn-ce-pkts" */
	const char *help;	/* one line, Prometheus # HELP */
};

extern const struct rt_counter_desc rt_counter_descs[];
extern const size_t rt_counter_ndescs;

/* Lookups; NULL when unknown. */
const struct rt_counter_desc *rt_counter_by_attr(unsigned int attr);
const struct rt_counter_desc *rt_counter_by_key(const char *key);

/*
 * The per-QP counters (ROCETUNE_A_QP_*, all u64), in output order; as for
 * the port counters, the text label is the key in kebab-case.
 */
extern const struct rt_counter_desc rt_qp_counter_descs[];
extern const size_t rt_qp_counter_ndescs;

/* A per-QP counter by its JSON key or text label; NULL when unknown. */
const struct rt_counter_desc *rt_qp_counter_by_name(const char *name);

/*
 * A set of counter values, as nested in ROCETUNE_A_COUNTERS or
 * ROCETUNE_A_RATES.  A counter the device does not have is absent (its
 * bit in @present clear), never zero.
 */
struct rt_counter_set {
	uint64_t val[ROCETUNE_A_CNT_MAX + 1];
	uint32_t present;	/* bit (1 << ROCETUNE_A_CNT_*) */
};

static inline bool rt_counter_present(const struct rt_counter_set *cs,
				      unsigned int attr)
{
	return attr <= ROCETUNE_A_CNT_MAX && (cs->present & (1U << attr));
}

/*
 * rt_counter_set_parse() - fill @cs from a ROCETUNE_A_COUNTERS or
 * ROCETUNE_A_RATES nest.  Attributes this tool does not know are skipped.
 * Returns 0 or a negative errno (malformed nest).
 */
int rt_counter_set_parse(struct rt_counter_set *cs, struct nlattr *nest);

#endif /* RT_COUNTERS_H */
