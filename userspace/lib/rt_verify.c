// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the watch after an apply (rt_verify.h):
 * the guard arithmetic, the baseline, the watch itself and the default
 * sampler on rocetune.ko's ROCETUNE_CMD_PORT_GET.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_model.h"
#include "rt_nic.h"
#include "rt_util.h"
#include "rt_verify.h"

/* Arithmetic ------------------------------------------------------------ */

double rt_vrate(uint64_t a, uint64_t b, uint64_t dt_ns)
{
	uint64_t d = b >= a ? b - a : b;	/* reset: counted from 0 */

	if (!dt_ns)
		return 0;
	return (double)d * 1e9 / (double)dt_ns;
}

double rt_vpause_pct(const struct rt_vsample *a, const struct rt_vsample *b)
{
	uint64_t dt_ns = b->t_ns > a->t_ns ? b->t_ns - a->t_ns : 0;
	double best = 0, pct;
	unsigned int i;

	if (!dt_ns)
		return 0;
	for (i = 0; i < 8; i++) {
		uint64_t a_us = a->pause_us[i], b_us = b->pause_us[i];
		uint64_t d = b_us >= a_us ? b_us - a_us : b_us;

		/* A counter that came (or went) between the two: no interval. */
		if (!(a->pause_mask & b->pause_mask & (1u << i)))
			continue;

		pct = (double)d * 1e3 * 100.0 / (double)dt_ns;
		if (pct > best)
			best = pct;
	}
	return best > 100 ? 100 : best;
}

double rt_vobserve(enum rt_guard_id id, const struct rt_vsample *a,
		   const struct rt_vsample *b)
{
	uint64_t dt_ns = b->t_ns > a->t_ns ? b->t_ns - a->t_ns : 0;

	switch (id) {
	case RT_GUARD_PAUSE:
		return rt_vpause_pct(a, b);
	case RT_GUARD_CNP:
		return rt_vrate(a->cnp, b->cnp, dt_ns);
	default:
		return rt_vrate(a->retrans, b->retrans, dt_ns);
	}
}

/* Guard @id's counters are at both ends of the interval @a..@b. */
static bool rt_vmeasured(enum rt_guard_id id, const struct rt_vsample *a,
			 const struct rt_vsample *b)
{
	switch (id) {
	case RT_GUARD_PAUSE:
		return a->pause_mask & b->pause_mask;
	case RT_GUARD_CNP:
		return a->cnp_ok && b->cnp_ok;
	default:
		return a->retrans_ok && b->retrans_ok;
	}
}

static void rt_guard_one(struct rt_guard *g, const char *name,
			 const struct rt_profile *p, enum rt_pkey kmax,
			 double max, enum rt_pkey kmargin, double margin)
{
	memset(g, 0, sizeof(*g));
	g->name = name;
	g->have_max = rt_profile_has(p, kmax);
	g->have_margin = rt_profile_has(p, kmargin);
	g->on = g->have_max || g->have_margin;
	g->max = max;
	g->margin = margin;
	g->ok = true;
}

void rt_guards_init(struct rt_guard g[RT_GUARD_NUM],
		    const struct rt_profile *p)
{
	rt_guard_one(&g[RT_GUARD_PAUSE], "pause-percent", p,
		     RT_PK_VERIFY_MAX_PAUSE_PERCENT, p->verify_max_pause_pct,
		     RT_PK_VERIFY_PAUSE_MARGIN_PERCENT,
		     p->verify_pause_margin_pct);
	rt_guard_one(&g[RT_GUARD_CNP], "cnp-rate", p,
		     RT_PK_VERIFY_MAX_CNP_RATE, (double)p->verify_max_cnp,
		     RT_PK_VERIFY_CNP_RATE_MARGIN,
		     (double)p->verify_cnp_margin);
	rt_guard_one(&g[RT_GUARD_RETRANS], "retrans-rate", p,
		     RT_PK_VERIFY_MAX_RETRANS_RATE,
		     (double)p->verify_max_retrans,
		     RT_PK_VERIFY_RETRANS_RATE_MARGIN,
		     (double)p->verify_retrans_margin);
}

void rt_guard_set_baseline(struct rt_guard *g, double base)
{
	double lim = -1;

	g->baseline = base;
	if (g->have_margin)
		lim = base + g->margin;
	if (g->have_max && (lim < 0 || g->max < lim))
		lim = g->max;
	if (g->name && !strcmp(g->name, "pause-percent") && lim > 100)
		lim = 100;
	g->limit = lim;
}

bool rt_guard_check(struct rt_guard *g, double rate)
{
	if (rate > g->observed)
		g->observed = rate;
	if (g->on && rate > g->limit)
		g->ok = false;
	return !g->on || rate <= g->limit;
}

int rt_verify_exit(int apply_ret, const struct rt_apply_result *res,
		   const struct rt_verify *v)
{
	if (v && v->tripped && res->result == RT_RES_ROLLED_BACK)
		return 3;
	if (apply_ret)
		return 1;
	return 0;
}

int rt_parse_duration(const char *s, uint32_t *ms)
{
	unsigned long long n = 0, mul;
	const char *q = s;

	if (*q < '0' || *q > '9')
		return -EINVAL;
	while (*q >= '0' && *q <= '9') {
		n = n * 10 + (unsigned long long)(*q - '0');
		if (n > 86400000ull)
			return -EINVAL;
		q++;
	}
	if (!strcmp(q, "ms"))
		mul = 1;
	else if (!*q || !strcmp(q, "s"))
		mul = 1000;
	else if (!strcmp(q, "m"))
		mul = 60000;
	else if (!strcmp(q, "h"))
		mul = 3600000;
	else
		return -EINVAL;
	n *= mul;
	if (!n || n > 86400000ull)
		return -EINVAL;
	*ms = (uint32_t)n;
	return 0;
}

/* The default io: rocetune.ko and sysfs ---------------------------------- */

static uint64_t rt_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int rt_vport_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_port *port = arg;

	rt_port_free(port);
	memset(port, 0, sizeof(*port));
	return rt_port_parse(nlh, port);
}

static int rt_vsample_nl(struct rt_verify *v, const struct rt_nic *nic,
			 struct rt_vsample *s, char *msg, size_t len)
{
	static const unsigned int retrans[] = {
		ROCETUNE_A_CNT_OUT_OF_SEQUENCE, ROCETUNE_A_CNT_RX_SEQ_ERR_NAKS,
		ROCETUNE_A_CNT_LOCAL_ACK_TIMEOUTS,
	};
	const struct rt_counter_set *c;
	struct rt_port port;
	struct nl_msg *m;
	unsigned int i;
	int err;

	memset(s, 0, sizeof(*s));
	if (!nic->id.rdma_dev[0]) {
		rt_fmt(msg, len, "%s has no RDMA device: no counters to guard",
		       nic->id.netdev);
		return -ENODEV;
	}
	if (!v->nl_open) {
		err = rt_nl_open(&v->nl);
		if (err) {
			rt_fmt(msg, len,
			       "cannot read the counters of %s: %s",
			       nic->id.rdma_dev, err == -ENOENT ?
			       "rocetune.ko is not loaded" : strerror(-err));
			return err;
		}
		v->nl_open = true;
	}
	memset(&port, 0, sizeof(port));
	m = rt_nl_msg_dev(&v->nl, ROCETUNE_CMD_PORT_GET, nic->id.rdma_dev,
			  nic->port);
	if (!m) {
		rt_fmt(msg, len, "out of memory");
		return -ENOMEM;
	}
	err = rt_nl_do(&v->nl, m, rt_vport_cb, &port);
	s->t_ns = rt_mono_ns();
	if (err) {
		rt_fmt(msg, len, "cannot read the counters of %s/%u: %s",
		       nic->id.rdma_dev, nic->port, strerror(-err));
		rt_port_free(&port);
		return err;
	}
	c = &port.counters;
	if (rt_has(port.attrs, ROCETUNE_A_COUNTERS)) {
		if (rt_counter_present(c, ROCETUNE_A_CNT_TX_CNP_PKTS) ||
		    rt_counter_present(c, ROCETUNE_A_CNT_RX_CNP_PKTS)) {
			s->cnp_ok = true;
			if (rt_counter_present(c, ROCETUNE_A_CNT_TX_CNP_PKTS))
				s->cnp += c->val[ROCETUNE_A_CNT_TX_CNP_PKTS];
			if (rt_counter_present(c, ROCETUNE_A_CNT_RX_CNP_PKTS))
				s->cnp += c->val[ROCETUNE_A_CNT_RX_CNP_PKTS];
		}
		for (i = 0; i < ARRAY_SIZE(retrans); i++) {
			if (!rt_counter_present(c, retrans[i]))
				continue;
			s->retrans_ok = true;
			s->retrans += c->val[retrans[i]];
		}
	}
	if (rt_has(port.attrs, ROCETUNE_A_PFC)) {
		for (i = 0; i < port.pfc.nprio; i++) {
			const struct rt_prio *q = &port.pfc.prio[i];

			if (q->index >= 8 ||
			    !rt_has(q->attrs,
				    ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US))
				continue;
			s->pause_ok = true;
			s->pause_mask |= (uint8_t)(1u << q->index);
			s->pause_us[q->index] = q->rx_pause_duration_us;
		}
	}
	rt_port_free(&port);
	return 0;
}

static int rt_vlink_sys(struct rt_verify *v, const struct rt_nic *nic)
{
	char path[512], buf[32] = "";
	FILE *f;

	(void)v;
	snprintf(path, sizeof(path), "%s/class/net/%s/operstate",
		 rt_sysfs_root(), nic->id.netdev);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (!strncmp(buf, "up", 2))
		return 1;
	if (!strncmp(buf, "down", 4) || !strncmp(buf, "lowerlayerdown", 14))
		return 0;
	return -EAGAIN;		/* unknown, dormant, ...: not judged */
}

static void rt_vsleep(struct rt_verify *v, unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	(void)v;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static const struct rt_verify_io rt_verify_io_sys = {
	.sample = rt_vsample_nl,
	.link = rt_vlink_sys,
	.sleep_ms = rt_vsleep,
};

/* The baseline and the watch --------------------------------------------- */

/* Every guard in force has its counters in @s; else why not in @msg. */
static int rt_vneeds(const struct rt_verify *v, const struct rt_nic *nic,
		     const struct rt_vsample *s, char *msg, size_t len)
{
	static const char *const what[RT_GUARD_NUM] = {
		[RT_GUARD_PAUSE] = "pause duration counter (MaxPausePercent=, PauseMarginPercent=)",
		[RT_GUARD_CNP] = "CNP counter (MaxCNPRate=, CNPRateMargin=)",
		[RT_GUARD_RETRANS] = "retransmission counter (MaxRetransRate=, RetransRateMargin=)",
	};
	bool have[RT_GUARD_NUM] = { s->pause_ok, s->cnp_ok, s->retrans_ok };
	unsigned int i;

	for (i = 0; i < RT_GUARD_NUM; i++) {
		if (!v->g[i].on || have[i])
			continue;
		/*
		 * mlx5 has a priority's pause counters only while its PFC is
		 * on (the per-priority PFC group of en_stats.c, Linux 6.1):
		 * a profile that turns PFC on brings them, and the watch
		 * fails if it never measures the guard.
		 */
		if (i == RT_GUARD_PAUSE && v->want_pfc)
			continue;
		rt_fmt(msg, len,
		       "[Verify]: %s/%u has no %s: the guard cannot be measured; nothing was written",
		       nic->id.rdma_dev, nic->port, what[i]);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int rt_verify_baseline(void *arg, const struct rt_nic *nic, char *msg,
			      size_t len)
{
	struct rt_verify *v = arg;
	struct rt_vsample s0;
	unsigned int i;
	int err;

	v->link0 = v->io->link(v, nic);
	err = v->io->sample(v, nic, &s0, msg, len);
	if (!err)
		err = rt_vneeds(v, nic, &s0, msg, len);
	if (err)
		goto fail;
	v->io->sleep_ms(v, v->baseline_ms);
	err = v->io->sample(v, nic, &v->base, msg, len);
	if (err)
		goto fail;
	for (i = 0; i < RT_GUARD_NUM; i++)
		rt_guard_set_baseline(&v->g[i],
				      rt_vobserve(i, &s0, &v->base));
	return 0;
fail:
	rt_fmt(v->reason, sizeof(v->reason), "no baseline: %s", msg);
	return err;
}

static int rt_verify_watch(void *arg, const struct rt_nic *nic,
			   int (*readback)(void *rb, char *msg, size_t len),
			   void *rb, char *msg, size_t len)
{
	struct rt_verify *v = arg;
	struct rt_vsample prev = v->base, cur;
	uint32_t done = 0, step;
	unsigned int i;
	char why[768];
	int err, link;

	v->started = true;
	while (done < v->for_ms) {
		step = v->interval_ms < v->for_ms - done ?
		       v->interval_ms : v->for_ms - done;
		v->io->sleep_ms(v, step);
		done += step;
		link = v->io->link(v, nic);
		if (v->link0 == 1 && link == 0) {
			rt_fmt(v->reason, sizeof(v->reason),
			       "the link of %s went down %u ms after the apply",
			       nic->id.netdev, done);
			goto trip;
		}
		err = readback(rb, why, sizeof(why));
		if (err) {
			rt_fmt(v->reason, sizeof(v->reason),
			       "%u ms after the apply, a setting no longer reads back: %s",
			       done, why);
			if (err == -ENODEV || err == -ESTALE) {
				rt_fmt(msg, len, "%s", v->reason);
				v->tripped = true;
				return err;
			}
			goto trip;
		}
		err = v->io->sample(v, nic, &cur, why, sizeof(why));
		if (err) {
			rt_fmt(v->reason, sizeof(v->reason), "%s", why);
			goto trip;
		}
		v->samples++;
		for (i = 0; i < RT_GUARD_NUM; i++) {
			double r = rt_vobserve(i, &prev, &cur);

			if (rt_vmeasured(i, &prev, &cur))
				v->g[i].measured++;
			if (rt_guard_check(&v->g[i], r))
				continue;
			rt_fmt(v->reason, sizeof(v->reason),
			       "guard %s tripped %u ms after the apply: %.2f over the limit %.2f (baseline %.2f)",
			       v->g[i].name, done, r, v->g[i].limit,
			       v->g[i].baseline);
			goto trip;
		}
		prev = cur;
	}
	for (i = 0; i < RT_GUARD_NUM; i++) {
		if (!v->g[i].on || v->g[i].measured)
			continue;
		rt_fmt(v->reason, sizeof(v->reason),
		       "guard %s was never measured in %u ms: %s/%u showed no counter for it after the apply",
		       v->g[i].name, done, nic->id.rdma_dev, nic->port);
		goto trip;
	}
	v->verified = true;
	rt_fmt(v->reason, sizeof(v->reason),
	       "watched for %u ms: link, settings and guards held", done);
	return 0;
trip:
	v->tripped = true;
	rt_fmt(msg, len, "verification failed: %s", v->reason);
	return -ECANCELED;
}

void rt_verify_init(struct rt_verify *v, const struct rt_profile *p,
		    uint32_t for_ms, const struct rt_verify_io *io,
		    void *io_arg)
{
	memset(v, 0, sizeof(*v));
	v->for_ms = for_ms ? for_ms : p->verify_for_s * 1000u;
	v->baseline_ms = p->verify_baseline_s * 1000u;
	v->interval_ms = p->verify_interval_ms;
	rt_guards_init(v->g, p);
	v->want_pfc = p->pfc_en;
	v->io = io ? io : &rt_verify_io_sys;
	v->io_arg = io_arg;
	v->link0 = -1;
	v->hook.baseline = rt_verify_baseline;
	v->hook.watch = rt_verify_watch;
	v->hook.arg = v;
}

void rt_verify_fini(struct rt_verify *v)
{
	if (v->nl_open)
		rt_nl_close(&v->nl);
	v->nl_open = false;
}
