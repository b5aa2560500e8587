// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: round-trip time and jitter of the QPs of software RoCE devices.
 *
 * A QP measures one round trip at a time, the way a requester would: a
 * request it sends with the AckReq bit set starts a probe when none is
 * outstanding; the first positive acknowledgment (an AETH with the ACK
 * syndrome) it receives whose PSN is that request's or a later one ends
 * the probe, and the time between the two is a sample.  A retransmission
 * of the probe's request or an earlier one (Karn's rule) and a NAK end the
 * probe without a sample: its time would not be a round trip.
 *
 * The last RT_RTT_WIN samples are kept per QP; QP_GET reports the 50th and
 * 99th percentiles of the window (nearest rank), and those of the jitter,
 * the difference between consecutive samples of the window.
 *
 * Both ends are taken on one clock, CLOCK_MONOTONIC, in the hooks: the
 * send is the request's departure, the departure time the reaction point
 * gave it (rocetune_rp.c) or, unpaced, when the transmit hook sees it; the
 * receipt when the receive hook sees the acknowledgment.  So a sample is
 * the network's round trip (and the peer's), whatever the clock steps and
 * whether or not a socket asked the stack for receive stamps; how long a
 * sampled request waited for its departure is kept apart (pacing_ns).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#include "rocetune.h"
#include "rocetune_bth.h"
#include "rocetune_qp.h"

/**
 * rt_rtt_tx - a QP sends a request
 * @qp: the QP's entry
 * @pkt: the request
 * @departure: its departure time (CLOCK_MONOTONIC ns), 0 when it leaves
 *	at once
 *
 * Context: rcu_read_lock() held, any context (the transmit hook).
 */
void rt_rtt_tx(struct rt_qp *qp, const struct rt_pkt *pkt, u64 departure)
{
	struct rt_rtt *r = &qp->rtt;
	u64 now;

	if (!READ_ONCE(r->probe) && !pkt->ackreq)
		return;
	now = ktime_get_ns();
	spin_lock_bh(&r->lock);
	if (r->probe) {
		/* Karn: the probe's request or an earlier one again. */
		if (!rt_psn_after(pkt->psn, r->psn))
			WRITE_ONCE(r->probe, false);
	} else if (pkt->ackreq) {
		r->psn = pkt->psn;
		r->t0 = max(now, departure);
		r->pace = r->t0 - now;
		WRITE_ONCE(r->probe, true);
	}
	spin_unlock_bh(&r->lock);
}

/**
 * rt_rtt_rx - a QP receives a packet
 * @qp: the QP's entry
 * @pkt: the packet
 *
 * Context: rcu_read_lock() held, any context (the receive hook).
 */
void rt_rtt_rx(struct rt_qp *qp, const struct rt_pkt *pkt)
{
	struct rt_rtt *r = &qp->rtt;
	u64 t;

	if (!pkt->has_aeth || !READ_ONCE(r->probe))
		return;
	t = ktime_get_ns();
	spin_lock_bh(&r->lock);
	if (!r->probe)
		goto out;
	if ((pkt->syndrome & RT_AETH_TYPE_MASK) != RT_AETH_ACK) {
		WRITE_ONCE(r->probe, false);
		goto out;
	}
	if (rt_psn_after(r->psn, pkt->psn))
		goto out;
	WRITE_ONCE(r->probe, false);
	/* Acknowledged before its departure: no round trip. */
	if (t < r->t0)
		goto out;
	r->win[r->head] = min_t(u64, t - r->t0, U32_MAX);
	r->head = (r->head + 1) % RT_RTT_WIN;
	if (r->n < RT_RTT_WIN)
		r->n++;
	r->pace_avg = r->samples ? r->pace_avg - r->pace_avg / 8 + r->pace / 8 :
				   r->pace;
	r->samples++;
out:
	spin_unlock_bh(&r->lock);
}

/**
 * rt_rtt_carry - a QP's sent packets move from its pending entry to its own
 * @to: the QP's entry
 * @from: the pending entry that counted them so far
 *
 * The probe outstanding on @from becomes @to's, unless @to has one.
 *
 * Context: any context; @from stays (rcu_read_lock() held).
 */
void rt_rtt_carry(struct rt_qp *to, struct rt_qp *from)
{
	struct rt_rtt *r = &from->rtt;
	bool probe;
	u32 psn;
	u64 t0, pace;

	spin_lock_bh(&r->lock);
	probe = r->probe;
	psn = r->psn;
	t0 = r->t0;
	pace = r->pace;
	WRITE_ONCE(r->probe, false);
	spin_unlock_bh(&r->lock);
	if (!probe)
		return;
	r = &to->rtt;
	spin_lock_bh(&r->lock);
	if (!r->probe) {
		r->psn = psn;
		r->t0 = t0;
		r->pace = pace;
		WRITE_ONCE(r->probe, true);
	}
	spin_unlock_bh(&r->lock);
}

static int rt_rtt_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* The @pct percentile of the @n values of @v (sorted here): nearest rank. */
static u32 rt_rtt_pct(u32 *v, u32 n, u32 pct)
{
	sort(v, n, sizeof(*v), rt_rtt_cmp, NULL);
	return v[DIV_ROUND_UP(n * pct, 100) - 1];
}

/**
 * rt_rtt_snap - what QP_GET reports of a QP's round trips
 * @qp: the entry
 * @s: filled in
 *
 * Context: process context.
 * Return: true when the QP has a sample (there is something to report).
 */
bool rt_rtt_snap(struct rt_qp *qp, struct rt_rtt_snap *s)
{
	struct rt_rtt *r = &qp->rtt;
	u32 win[RT_RTT_WIN], jit[RT_RTT_WIN];
	u32 i, n, first;

	spin_lock_bh(&r->lock);
	n = r->n;
	s->samples = r->samples;
	s->pacing_ns = r->pace_avg;
	/* Oldest first. */
	first = (r->head + RT_RTT_WIN - n) % RT_RTT_WIN;
	for (i = 0; i < n; i++)
		win[i] = r->win[(first + i) % RT_RTT_WIN];
	spin_unlock_bh(&r->lock);
	s->n = n;
	if (!n)
		return false;
	for (i = 1; i < n; i++)
		jit[i - 1] = win[i] > win[i - 1] ? win[i] - win[i - 1] :
						   win[i - 1] - win[i];
	s->has_jitter = n > 1;
	if (s->has_jitter) {
		s->jitter_p50_ns = rt_rtt_pct(jit, n - 1, 50);
		s->jitter_p99_ns = rt_rtt_pct(jit, n - 1, 99);
	}
	s->p50_ns = rt_rtt_pct(win, n, 50);
	s->p99_ns = rt_rtt_pct(win, n, 99);
	return true;
}
