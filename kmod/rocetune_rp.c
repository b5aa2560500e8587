// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the DCQCN reaction point (RP) of software RoCE devices.
 *
 * rxe does not react to congestion notification packets (CNPs).  With the
 * RP on (per device, QP_SET RP_ENABLE, off by default), a CNP that a local
 * QP of the device receives (its BTH destination QP is the local QP) cuts
 * the QP's rate the way DCQCN does (Zhu et al., SIGCOMM 2015):
 *
 *	Rt = Rc;  Rc = Rc * (1 - alpha / 2)
 *
 * at most once per rate reduce monitor period (RRMP); a CNP within the
 * RRMP of the last cut is not lost: the cut it asks for comes when the
 * period has passed.  Alpha is updated once per alpha period (DceTcpRttUs)
 * by whether a CNP came in it:
 *
 *	alpha = (1 - g) * alpha + g   (a CNP came)
 *	alpha = (1 - g) * alpha       (none came)
 *
 * as NVIDIA's DCQCN parameters describe it.  The cuts use the alpha of the
 * periods that ended before them, and with NVIDIA's refinements:
 * the cut is by alpha / 2^(GD - 10) (GD 11: alpha / 2), by no more than
 * MinDecreaseFactorPercent leaves, and the target follows the current
 * rate only with ClampTargetRate, or with ClampTargetRateAfterTimeInc
 * after a timer increase; with RateOnFirstCNPMbps a flow's first CNP sets
 * both rates to it instead of cutting (also the first CNP after the QP
 * recovered to the maximum, which starts it over).  The rate recovers
 * on rate-increase timer and byte-counter events: while both the timer
 * and the byte stage are below the threshold F, fast recovery (Rc = (Rt +
 * Rc) / 2); when both reached it, hyper increase (Rt += i * R_HAI, i the
 * smaller stage - F + 1); otherwise additive increase (Rt += R_AI); each
 * followed by Rc = (Rt + Rc) / 2.  Rates stay within [min, max]; a QP whose
 * rate is back at the maximum is no longer paced.
 *
 * Everything is computed lazily when the QP sends or receives a packet,
 * from the time and bytes since the last one: there are no per-QP timers,
 * so nothing is left to cancel when a QP or the module goes away.
 *
 * Enforcement is by departure time (EDT): the transmit hook sets a paced
 * QP's packets' skb->tstamp to the QP's next departure, on CLOCK_MONOTONIC
 * (ktime_get_ns(), the clock sch_fq compares it with on 6.1 and 6.12), and
 * advances it by the packet's length at Rc.  It needs fq (or another EDT
 * qdisc) as the sender's qdisc; without one the timestamp is ignored.
 * Safety (rxe waits for its packets when a QP is destroyed, and retries or
 * fails on a drop): a packet is never dropped and never held more than
 * RT_RP_HORIZON_NS; the rate never goes below RT_RP_FLOOR_MBPS; a QP that
 * retransmits is not paced until RT_RP_RETX_HOLD_NS after its last
 * retransmission, one that is destroyed or not yet verified not at all.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/skbuff.h>
#include <linux/timekeeping.h>

#include "rocetune.h"
#include "rocetune_bth.h"
#include "rocetune_qp.h"

/* Alpha is kept in 1/2^20. */
#define RT_RP_Q			20
#define RT_RP_ONE		BIT_ULL(RT_RP_Q)
/* Increase events computed per packet at most; the rest come later. */
#define RT_RP_EVENTS_MAX	64

#define RT_RP_MBPS(v)		((u64)(v) * 1000000)

/* (1 - g)^n in 1/2^20, by squaring. */
static u64 rt_rp_decay(u32 g, u64 n)
{
	u64 base = RT_RP_ONE - ((u64)g << (RT_RP_Q - 10));
	u64 r = RT_RP_ONE;

	if (!g)
		return r;
	/* Below 2^-20 after that many periods for any g >= 1/1024. */
	if (n > 16384)
		return 0;
	while (n) {
		if (n & 1)
			r = (r * base) >> RT_RP_Q;
		base = (base * base) >> RT_RP_Q;
		n >>= 1;
	}
	return r;
}

/*
 * The alpha periods that ended by @now, for an alpha of *@alpha whose
 * current period began at *@start, *@cnp telling whether a CNP came in it:
 * the first period by that, the others without a CNP.  @g and @period_us
 * are the parameters in effect, which the QP keeps for rt_rp_snap().
 */
static void rt_rp_alpha_periods(u64 *alpha, u64 *start, bool *cnp, u32 g,
				u32 period_us, u64 now)
{
	u64 period = (u64)max(period_us, 1U) * NSEC_PER_USEC;
	u64 n, a;

	if (now <= *start)
		return;
	n = div64_u64(now - *start, period);
	if (!n)
		return;
	a = (*alpha * (RT_RP_ALPHA_ONE - g)) >> 10;
	if (*cnp)
		a += (u64)g << (RT_RP_Q - 10);
	a = min(a, RT_RP_ONE);
	if (n > 1)
		a = (a * rt_rp_decay(g, n - 1)) >> RT_RP_Q;
	*alpha = a;
	*cnp = false;
	*start += n * period;
}

/* The QP's alpha periods that ended by @now. */
static void rt_rp_alpha_update(struct rt_rp *rp, u32 g, u32 period_us,
			       u64 now)
{
	rt_rp_alpha_periods(&rp->alpha, &rp->alpha_ns, &rp->cnp_seen, g,
			    period_us, now);
}

/* The QP is no longer paced: its rate is back at the maximum. */
static void rt_rp_unpace(struct rt_rp *rp, const struct rt_rp_params *p)
{
	WRITE_ONCE(rp->paced, false);
	rp->rc = RT_RP_MBPS(p->max_mbps);
	rp->rt = rp->rc;
}

/* One rate-increase event of the timer (@timer) or the byte counter. */
static void rt_rp_increase(struct rt_rp *rp, const struct rt_rp_params *p,
			   bool timer)
{
	u64 max = RT_RP_MBPS(p->max_mbps);
	u32 lo, hi;

	if (timer) {
		rp->t_stage++;
		rp->t_inc = true;
	} else {
		rp->b_stage++;
	}
	lo = min(rp->t_stage, rp->b_stage);
	hi = max(rp->t_stage, rp->b_stage);
	/* A disabled timer or byte counter never reaches hyper increase. */
	if (!p->time_reset_us || !p->byte_reset)
		lo = 0;
	if (hi < p->threshold)
		;				/* fast recovery */
	else if (lo >= p->threshold)
		rp->rt += (u64)(lo - p->threshold + 1) *
			  RT_RP_MBPS(p->hai_mbps);
	else
		rp->rt += RT_RP_MBPS(p->ai_mbps);
	rp->rt = min(rp->rt, max);
	/* Rounded up, so that Rc reaches Rt. */
	if (rp->rt > rp->rc)
		rp->rc += (rp->rt - rp->rc + 1) / 2;
	if (rp->rc >= max)
		rt_rp_unpace(rp, p);
}

/* The timer events up to @now and the byte events of @len more bytes. */
static void rt_rp_recover(struct rt_rp *rp, const struct rt_rp_params *p,
			  u64 now, unsigned int len)
{
	u64 period = (u64)p->time_reset_us * NSEC_PER_USEC;
	unsigned int budget = RT_RP_EVENTS_MAX;

	while (rp->paced && period && budget && now - rp->timer_ns >= period) {
		rp->timer_ns += period;
		rt_rp_increase(rp, p, true);
		budget--;
	}
	if (!p->byte_reset)
		return;
	rp->bytes += len;
	while (rp->paced && budget && rp->bytes >= p->byte_reset) {
		rp->bytes -= p->byte_reset;
		rt_rp_increase(rp, p, false);
		budget--;
	}
}

/* A copy of the device's parameters, each read once. */
static void rt_rp_params_get(const struct rt_qpdev *qd,
			     struct rt_rp_params *p)
{
	p->min_mbps = READ_ONCE(qd->rp_p.min_mbps);
	p->max_mbps = max(READ_ONCE(qd->rp_p.max_mbps), p->min_mbps);
	p->ai_mbps = READ_ONCE(qd->rp_p.ai_mbps);
	p->hai_mbps = READ_ONCE(qd->rp_p.hai_mbps);
	p->time_reset_us = READ_ONCE(qd->rp_p.time_reset_us);
	p->byte_reset = READ_ONCE(qd->rp_p.byte_reset);
	p->threshold = READ_ONCE(qd->rp_p.threshold);
	p->initial_alpha = READ_ONCE(qd->rp_p.initial_alpha);
	p->g = READ_ONCE(qd->rp_p.g);
	p->alpha_period_us = READ_ONCE(qd->rp_p.alpha_period_us);
	p->rrmp_us = READ_ONCE(qd->rp_p.rrmp_us);
	p->rate_first_mbps = READ_ONCE(qd->rp_p.rate_first_mbps);
	p->gd = READ_ONCE(qd->rp_p.gd);
	p->min_dec_fac = READ_ONCE(qd->rp_p.min_dec_fac);
	p->clamp_tgt = READ_ONCE(qd->rp_p.clamp_tgt);
	p->clamp_tgt_ati = READ_ONCE(qd->rp_p.clamp_tgt_ati);
}

/*
 * The cut of a CNP: the target (per the clamps), then the current rate,
 * by alpha / 2^(GD - 10) but to no less than the minimum decrease factor
 * leaves, nor the minimum rate.
 */
static void rt_rp_cut(struct rt_rp *rp, const struct rt_rp_params *p)
{
	u64 keep = div_u64(rp->rc * p->min_dec_fac, 100);
	u64 cut;

	if (p->clamp_tgt || (p->clamp_tgt_ati && rp->t_inc))
		rp->rt = rp->rc;
	/* Alpha is at most 2^20 and GD at least 0: no shift is negative. */
	if (p->gd >= 10)
		cut = mul_u64_u64_shr(rp->rc, rp->alpha, RT_RP_Q + p->gd - 10);
	else
		cut = mul_u64_u64_shr(rp->rc, rp->alpha << (10 - p->gd),
				      RT_RP_Q);
	rp->rc -= min(cut, rp->rc - min(keep, rp->rc));
	rp->rc = max(rp->rc, RT_RP_MBPS(p->min_mbps));
}

/* A verified, live QP: one the RP may act on. */
static bool rt_rp_qp_ok(const struct rt_qp *qp)
{
	return READ_ONCE(qp->verified) && !READ_ONCE(qp->dead_ns);
}

/*
 * A cut at time @t (a CNP's, or the end of the RRMP that held one back):
 * alpha is updated to @t first, then the rates fall (or, on a flow's
 * first CNP with RateOnFirstCNPMbps, are set); the recovery starts over.
 */
static void rt_rp_cut_at(struct rt_rp *rp, const struct rt_rp_params *p,
			 u64 t, bool first)
{
	rt_rp_alpha_update(rp, p->g, p->alpha_period_us, t);
	if (first && p->rate_first_mbps) {
		rp->rc = clamp(RT_RP_MBPS(p->rate_first_mbps),
			       RT_RP_MBPS(p->min_mbps), RT_RP_MBPS(p->max_mbps));
		rp->rt = rp->rc;
	} else {
		rt_rp_cut(rp, p);
	}
	rp->cut_ns = t;
	rp->timer_ns = t;
	rp->bytes = 0;
	rp->t_stage = 0;
	rp->b_stage = 0;
	rp->t_inc = false;
	rp->cut_due = false;
	rp->cuts++;
}

/*
 * Bring the QP's state to @now: a cut that a CNP within the RRMP asked
 * for, once the RRMP has passed, then the recovery events and alpha
 * periods since.
 */
static void rt_rp_advance(struct rt_rp *rp, const struct rt_rp_params *p,
			  u64 now, unsigned int len)
{
	u64 rrmp = (u64)p->rrmp_us * NSEC_PER_USEC;

	if (rp->paced && rp->cut_due && now - rp->cut_ns >= rrmp) {
		rt_rp_recover(rp, p, rp->cut_ns + rrmp, 0);
		if (rp->paced)
			rt_rp_cut_at(rp, p, rp->cut_ns + rrmp, false);
		else
			rp->cut_due = false;
	}
	rt_rp_recover(rp, p, now, len);
	rt_rp_alpha_update(rp, p->g, p->alpha_period_us, now);
}

/* A flow starts (or starts over) at the maximum, with the initial alpha. */
static void rt_rp_start(struct rt_rp *rp, const struct rt_rp_params *p,
			u64 now)
{
	rt_rp_unpace(rp, p);
	rp->alpha = (u64)p->initial_alpha << (RT_RP_Q - 10);
	rp->alpha_ns = now;
	rp->cnp_seen = false;
	rp->cut_due = false;
	rp->next_ns = now;
	WRITE_ONCE(rp->paced, true);
}

/**
 * rt_rp_cnp - a CNP came in for a local QP of a device with the RP on
 * @qd: the device
 * @qp: the QP's entry (the CNP's BTH destination QP)
 *
 * Cuts the QP's rate, at most once per rate reduce monitor period (a CNP
 * within it makes the cut come at its end), and marks the current alpha
 * period as one with a CNP; starts pacing the QP.
 *
 * Context: rcu_read_lock() held, any context (the receive hook).
 */
void rt_rp_cnp(struct rt_qpdev *qd, struct rt_qp *qp)
{
	struct rt_rp *rp = &qp->rp;
	struct rt_rp_params p;
	bool first = false;
	u64 now;

	if (!rt_rp_qp_ok(qp))
		return;
	rt_rp_params_get(qd, &p);
	now = ktime_get_ns();
	spin_lock_bh(&rp->lock);
	rp->cnps++;
	rp->g = p.g;
	rp->alpha_period_us = p.alpha_period_us;
	if (rp->paced)
		rt_rp_advance(rp, &p, now, 0);
	/* A new flow, or one that recovered to the maximum: start over. */
	if (!rp->paced) {
		rt_rp_start(rp, &p, now);
		first = true;
	}
	rp->cnp_seen = true;
	if (!first && now - rp->cut_ns < (u64)p.rrmp_us * NSEC_PER_USEC)
		rp->cut_due = true;
	else
		rt_rp_cut_at(rp, &p, now, first);
	spin_unlock_bh(&rp->lock);
}

/* Set @skb's departure time, CLOCK_MONOTONIC as sch_fq reads it. */
static void rt_rp_set_departure(struct sk_buff *skb, u64 t)
{
#ifdef RT_HAVE_SKB_CLOCK_MONOTONIC
	skb_set_delivery_time(skb, ns_to_ktime(t), SKB_CLOCK_MONOTONIC);
#else
	skb_set_delivery_time(skb, ns_to_ktime(t), true);
#endif
}

/**
 * rt_rp_tx - a local QP of a device with the RP on sends a packet
 * @qd: the device
 * @qp: the QP's entry
 * @skb: the packet (IP header first)
 *
 * Advances the QP's recovery; when the QP is paced, sets the packet's
 * departure time.  A QP that retransmits is not paced for
 * RT_RP_RETX_HOLD_NS after its last retransmitted packet (its rate state
 * is kept).  Whenever pacing stops (recovered, held, the RP or the QP
 * gone), the QP's packets keep getting the departure time of the last
 * paced one until it has passed: a packet without one would overtake
 * those still queued.  The packet is never dropped.  Called while the
 * device's RP is on, or the QP has such a tail (the RP was turned off).
 *
 * Context: rcu_read_lock() held, any context (the transmit hook).
 * Return: the departure time given to the packet (CLOCK_MONOTONIC ns), or
 * 0 when it leaves at once.
 */
u64 rt_rp_tx(struct rt_qpdev *qd, struct rt_qp *qp, struct sk_buff *skb)
{
	u64 retx = atomic64_read(rt_qp_cnt(qp, RT_QPC_TX_RETRANSMIT));
	struct rt_rp *rp = &qp->rp;
	struct rt_rp_params p;
	u64 now, t = 0;

	/* Unlocked peek: the common case of a QP that never had a CNP. */
	if (!READ_ONCE(rp->paced) && !READ_ONCE(rp->tail) &&
	    retx == READ_ONCE(rp->retx))
		return 0;
	rt_rp_params_get(qd, &p);
	now = ktime_get_ns();
	spin_lock_bh(&rp->lock);
	if (rp->paced && !READ_ONCE(qd->rp))
		rt_rp_unpace(rp, &p);
	if (retx != rp->retx) {
		WRITE_ONCE(rp->retx, retx);
		/* Retransmitting: not paced for a while, the rate kept. */
		if (rp->paced && now >= rp->hold_ns)
			rp->releases++;
		rp->hold_ns = now + RT_RP_RETX_HOLD_NS;
	}
	if (!rp->paced)
		goto out;
	if (!rt_rp_qp_ok(qp)) {
		rt_rp_unpace(rp, &p);
		goto out;
	}
	rp->g = p.g;
	rp->alpha_period_us = p.alpha_period_us;
	rt_rp_advance(rp, &p, now, skb->len);
	if (!rp->paced)
		goto out;
	if (now < rp->hold_ns) {
		rp->next_ns = now;
		goto out;
	}
	/* Never more than the horizon ahead: a full queue drains in it. */
	t = clamp(rp->next_ns, now, now + RT_RP_HORIZON_NS);
	rp->next_ns = t + div64_u64((u64)skb->len * 8 * NSEC_PER_SEC,
				    max(rp->rc, RT_RP_MBPS(RT_RP_FLOOR_MBPS)));
out:
	/* Behind the packets still queued, never before them. */
	if (rp->tail && rp->last_ns > max(t, now))
		t = rp->last_ns;
	WRITE_ONCE(rp->tail, t > now);
	if (t > now)
		rp->last_ns = t;
	spin_unlock_bh(&rp->lock);
	if (t <= now)
		return 0;
	rt_rp_set_departure(skb, t);
	return t;
}

/**
 * rt_rp_snap - what QP_GET reports of a QP's reaction point
 * @qp: the entry
 * @s: filled in; the rates as of the QP's last packet (a rate changes only
 *	when a packet is sent or a CNP comes), alpha as of now
 *
 * Context: any context.
 * Return: true when the QP handled a CNP (there is something to report).
 */
bool rt_rp_snap(struct rt_qp *qp, struct rt_rp_snap *s)
{
	struct rt_rp *rp = &qp->rp;
	u64 alpha, start;
	bool cnp;

	spin_lock_bh(&rp->lock);
	/*
	 * The periods that ended since its last packet, as they count, on a
	 * copy: a cut that is due comes first, with the alpha of its time.
	 */
	alpha = rp->alpha;
	start = rp->alpha_ns;
	cnp = rp->cnp_seen;
	if (rp->paced)
		rt_rp_alpha_periods(&alpha, &start, &cnp, rp->g,
				    rp->alpha_period_us, ktime_get_ns());
	s->paced = rp->paced;
	s->rc_kbps = div_u64(rp->rc, 1000);
	s->rt_kbps = div_u64(rp->rt, 1000);
	s->alpha = alpha >> (RT_RP_Q - 10);
	s->cnps = rp->cnps;
	s->cuts = rp->cuts;
	s->releases = rp->releases;
	spin_unlock_bh(&rp->lock);
	return s->cnps;
}
