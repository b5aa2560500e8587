/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: rollouts that check themselves.
 *
 * "profile apply --verify-for DURATION" and rocetuned watch a NIC after an
 * apply landed: its link stays up, every written setting still reads back,
 * and the guards of the profile's [Verify] hold.  A guard compares a rate
 * of the module's counters (the same ROCETUNE_CMD_PORT_GET that "rocetune
 * port show" reads) with a baseline measured before the apply:
 *
 *   pause-percent  the largest share of time any priority was paused
 *                  (rx pause duration), percent
 *   cnp-rate       CNPs sent + received, per second
 *   retrans-rate   out-of-sequence + sequence-error NAKs + local ACK
 *                  timeouts, per second
 *
 * Its limit is the lowest of Max...= and baseline + ...Margin=; it trips
 * when the rate of one interval is above the limit.  A trip, a link that
 * went down or a setting that no longer reads back rolls the apply back
 * through the engine (rt_apply.c), which holds the NIC's lock and its
 * journal until the watch ends: a crash during it is undone by the next
 * apply like any interrupted one.
 */
#ifndef RT_VERIFY_H
#define RT_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_apply.h"
#include "rt_nl.h"
#include "rt_profile.h"

enum rt_guard_id {
	RT_GUARD_PAUSE,
	RT_GUARD_CNP,
	RT_GUARD_RETRANS,
	RT_GUARD_NUM
};

struct rt_guard {
	const char *name;	/* "pause-percent", "cnp-rate", "retrans-rate" */
	bool on;		/* a key of it was given */
	bool have_max, have_margin;
	double max, margin;
	double baseline;	/* over the baseline window */
	double observed;	/* the highest interval so far */
	unsigned int measured;	/* intervals with its counters at both ends */
	double limit;
	bool ok;
};

/* One reading of the counters the guards use; *_ok: the port has them. */
struct rt_vsample {
	uint64_t t_ns;		/* CLOCK_MONOTONIC */
	bool pause_ok, cnp_ok, retrans_ok;
	uint8_t pause_mask;	/* the priorities with a pause duration */
	uint64_t pause_us[8];	/* rx pause duration per priority */
	uint64_t cnp;
	uint64_t retrans;
};

/* rt_vrate() - events/s from @a to @b over @dt_ns; a reset counts from 0. */
double rt_vrate(uint64_t a, uint64_t b, uint64_t dt_ns);
/* rt_vpause_pct() - the highest paused share of any priority, 0..100. */
double rt_vpause_pct(const struct rt_vsample *a, const struct rt_vsample *b);
/* rt_vobserve() - the rate of guard @id between @a and @b. */
double rt_vobserve(enum rt_guard_id id, const struct rt_vsample *a,
		   const struct rt_vsample *b);

/* rt_guards_init() - the guards of @p's [Verify], limits unset. */
void rt_guards_init(struct rt_guard g[RT_GUARD_NUM],
		    const struct rt_profile *p);
/* rt_guard_set_baseline() - @base, and the limit it gives. */
void rt_guard_set_baseline(struct rt_guard *g, double base);
/* rt_guard_check() - one interval's rate @rate; false when it trips. */
bool rt_guard_check(struct rt_guard *g, double rate);

struct rt_verify;

/* How samples are taken (the module by default; a model in the tests). */
struct rt_verify_io {
	int (*sample)(struct rt_verify *v, const struct rt_nic *nic,
		      struct rt_vsample *s, char *msg, size_t len);
	/* 1: link up, 0: down, <0: unknown (not judged) */
	int (*link)(struct rt_verify *v, const struct rt_nic *nic);
	void (*sleep_ms)(struct rt_verify *v, unsigned int ms);
};

struct rt_verify {
	uint32_t for_ms, baseline_ms, interval_ms;
	struct rt_guard g[RT_GUARD_NUM];
	const struct rt_verify_io *io;
	void *io_arg;
	struct rt_nl nl;	/* the default io's socket */
	bool nl_open;
	int link0;		/* link at the baseline */
	uint8_t want_pfc;	/* the profile's PFC= priorities */
	struct rt_vsample base;	/* the last baseline sample */
	unsigned int samples;
	/* The outcome */
	bool started;		/* the watch ran (an apply changed something) */
	bool verified;
	bool tripped;		/* rolled back because of the watch */
	char reason[512];
	struct rt_apply_verify hook;	/* for rt_apply_opts.verify */
};

/*
 * rt_verify_init() - a watch of @for_ms (0: [Verify] ForSec=) for @p.
 * @io NULL: the module through netlink.  Release with rt_verify_fini().
 */
void rt_verify_init(struct rt_verify *v, const struct rt_profile *p,
		    uint32_t for_ms, const struct rt_verify_io *io,
		    void *io_arg);
void rt_verify_fini(struct rt_verify *v);

/*
 * rt_verify_exit() - the exit code of an apply with a watch: 0 verified
 * (or nothing to verify), 3 rolled back by the watch, 1 the apply or its
 * rollback failed.
 */
int rt_verify_exit(int apply_ret, const struct rt_apply_result *res,
		   const struct rt_verify *v);

/*
 * rt_parse_duration() - "30", "30s", "500ms", "2m", "1h" into
 * milliseconds (1 ms .. 24 h).  Returns 0 or -EINVAL.
 */
int rt_parse_duration(const char *s, uint32_t *ms);

#endif /* RT_VERIFY_H */
