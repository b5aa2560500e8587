// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the agent's pure parts (cmocka): the re-apply rate
 * limiter, the pause-storm watchdog and its resynchronisation, storm
 * actions with failing reads or a NIC lock held, the metrics text, the
 * parsing of rtnetlink notifications and the status socket with silent
 * clients.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "agent.h"

/* ---- rate limiter ---- */

static void rl_bounded(void **state)
{
	struct ag_ratelimit *rl = calloc(1, sizeof(*rl));
	unsigned int i;

	(void)state;
	assert_non_null(rl);
	ag_rl_init(rl, 3, 10);
	/* Three re-applies within the window are allowed ... */
	assert_true(ag_rl_allow(rl, 1000));
	assert_true(ag_rl_allow(rl, 1100));
	assert_true(ag_rl_allow(rl, 1200));
	assert_int_equal(ag_rl_count(rl, 1200), 3);
	assert_false(rl->suppressed);
	/* ... the fourth is refused and suppresses for good. */
	assert_false(ag_rl_allow(rl, 1300));
	assert_true(rl->suppressed);
	assert_int_equal(rl->suppressed_at_ms, 1300);
	/* Even after the window has passed: never fight. */
	assert_false(ag_rl_allow(rl, 1000000));
	/* A flapping setter every 100 ms: at most 3 writes, whatever the time. */
	ag_rl_init(rl, 3, 10);
	unsigned int allowed = 0;

	for (i = 0; i < 1000; i++)
		allowed += ag_rl_allow(rl, 5000 + i * 100);
	assert_int_equal(allowed, 3);
	free(rl);
}

static void rl_window_slides(void **state)
{
	struct ag_ratelimit *rl = calloc(1, sizeof(*rl));

	(void)state;
	assert_non_null(rl);
	ag_rl_init(rl, 2, 1);
	assert_true(ag_rl_allow(rl, 0));
	assert_true(ag_rl_allow(rl, 500));
	/* At 1000 the first one has left the 1 s window. */
	assert_int_equal(ag_rl_count(rl, 1000), 1);
	assert_true(ag_rl_allow(rl, 1000));
	assert_true(ag_rl_allow(rl, 2600));
	assert_int_equal(ag_rl_count(rl, 2600), 1);
	assert_true(ag_rl_allow(rl, 2700));
	assert_false(ag_rl_allow(rl, 2800));
	/* MaxReapplies=0: never. */
	ag_rl_init(rl, 0, 60);
	assert_false(ag_rl_allow(rl, 0));
	assert_true(rl->suppressed);
	/* Bounded by the slots. */
	ag_rl_init(rl, 5000, 60);
	assert_int_equal(rl->max, AG_RL_SLOTS);
	free(rl);
}

/* ---- watchdog ---- */

static void wd_start_end_restore(void **state)
{
	struct ag_wd wd;

	(void)state;
	ag_wd_init(&wd, 1000);
	assert_int_equal(wd.state, AG_WD_IDLE);
	assert_int_equal(ag_wd_deadline(&wd), 0);
	assert_int_equal(ag_wd_storm_start(&wd, 3, 100), AG_WD_DO_ACT);
	assert_int_equal(wd.state, AG_WD_ACTIVE);
	assert_int_equal(wd.acted, 1 << 3);
	/* The same storm reported again: nothing more to do. */
	assert_int_equal(ag_wd_storm_start(&wd, 3, 150), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_tick(&wd, 100000), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_storm_end(&wd, 3, 2000), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_HOLD);
	assert_int_equal(ag_wd_deadline(&wd), 3000);
	assert_int_equal(ag_wd_tick(&wd, 2999), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_tick(&wd, 3000), AG_WD_DO_RESTORE);
	assert_int_equal(wd.state, AG_WD_IDLE);
	assert_int_equal(wd.acted, 0);
	assert_int_equal(ag_wd_tick(&wd, 5000), AG_WD_DO_NOTHING);
	assert_string_equal(ag_wd_state_name(wd.state), "idle");
}

static void wd_two_prios_and_restart(void **state)
{
	struct ag_wd wd;

	(void)state;
	ag_wd_init(&wd, 500);
	assert_int_equal(ag_wd_storm_start(&wd, 3, 0), AG_WD_DO_ACT);
	/* A second priority: act for it too. */
	assert_int_equal(ag_wd_storm_start(&wd, 4, 10), AG_WD_DO_ACT);
	assert_int_equal(wd.acted, (1 << 3) | (1 << 4));
	/* One ends: the other still storms, the action holds. */
	assert_int_equal(ag_wd_storm_end(&wd, 3, 100), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_ACTIVE);
	assert_int_equal(ag_wd_storm_end(&wd, 4, 200), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_HOLD);
	/* A storm again during the hold: back to active, no new action. */
	assert_int_equal(ag_wd_storm_start(&wd, 4, 300), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_ACTIVE);
	assert_int_equal(ag_wd_deadline(&wd), 0);
	assert_int_equal(ag_wd_tick(&wd, 100000), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_storm_end(&wd, 4, 1000), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_tick(&wd, 1500), AG_WD_DO_RESTORE);
	/* An end without a start (agent started mid-storm): nothing. */
	assert_int_equal(ag_wd_storm_end(&wd, 2, 2000), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_IDLE);
	/* Bad priorities are ignored. */
	assert_int_equal(ag_wd_storm_start(&wd, 8, 0), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_IDLE);
}

static void wd_restore_immediately(void **state)
{
	struct ag_wd wd;

	(void)state;
	ag_wd_init(&wd, 0);
	assert_int_equal(ag_wd_storm_start(&wd, 0, 10), AG_WD_DO_ACT);
	assert_int_equal(ag_wd_storm_end(&wd, 0, 20), AG_WD_DO_RESTORE);
	assert_int_equal(wd.state, AG_WD_IDLE);
}

/* ---- storm actions with failing reads (ag_storm.c) ---- */

/*
 * The NIC of the storm tests: its PFC and tunable as the reads see them,
 * reads that fail on demand, and every write recorded.
 */
struct fake_nic {
	uint8_t pfc_en;
	uint16_t tout;
	int pfc_err, tout_err;		/* the next reads fail with these */
	unsigned int pfc_reads, tout_reads;
	unsigned int applies;
	unsigned int busy;		/* the next applies find the lock held */
	struct rt_profile last;		/* the last profile applied */
};

static int fake_read_pfc(void *arg, uint8_t *pfc_en, char *msg, size_t len)
{
	struct fake_nic *n = arg;

	n->pfc_reads++;
	if (n->pfc_err) {
		snprintf(msg, len, "DCB read timed out");
		return n->pfc_err;
	}
	*pfc_en = n->pfc_en;
	return 0;
}

static int fake_read_tout(void *arg, uint16_t *ms, char *msg, size_t len)
{
	struct fake_nic *n = arg;

	n->tout_reads++;
	if (n->tout_err) {
		snprintf(msg, len, "ethtool read failed");
		return n->tout_err;
	}
	*ms = n->tout;
	return 0;
}

/* The engine: writes what @p governs of PFC and the tunable. */
static int fake_apply(void *arg, const struct rt_profile *p, const char *why)
{
	struct fake_nic *n = arg;

	(void)why;
	if (n->busy) {
		n->busy--;
		return -EBUSY;	/* nothing written */
	}
	n->applies++;
	n->last = *p;
	if (rt_profile_has(p, RT_PK_PFC))
		n->pfc_en = p->pfc_en;
	if (rt_profile_has(p, RT_PK_PFC_STORM_TIMEOUT_MS))
		n->tout = p->pfc_storm_tout;
	return 0;
}

static const struct ag_storm_ops fake_ops = {
	.read_pfc = fake_read_pfc,
	.read_tout = fake_read_tout,
	.apply = fake_apply,
};

/* A profile from its text, as the agent loads it. */
static struct rt_profile *storm_profile(const char *text)
{
	struct rt_profile *p = calloc(1, sizeof(*p));
	struct rt_diag *d = calloc(1, sizeof(*d));
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(p);
	assert_non_null(d);
	assert_non_null(f);
	if (rt_profile_parse_fp(f, "test.conf", p, d))
		rt_diag_print(d, stderr);
	assert_int_equal(d->n, 0);
	fclose(f);
	free(d);
	return p;
}

/* Only PFC written, and nothing else of the profile. */
static void assert_pfc_only(const struct rt_profile *p, uint8_t pfc_en)
{
	unsigned int k;

	assert_true(rt_profile_has(p, RT_PK_PFC));
	assert_int_equal(p->pfc_en, pfc_en);
	for (k = RT_PK_MATCH_NUM; k < RT_PK_NUM; k++)
		if (k != RT_PK_PFC)
			assert_int_equal(p->line[k], 0);
}

/*
 * Action=disable-pfc, no PFC= in the profile: the DCB read at
 * STORM_START fails.  No write at all (never pfc_en 0x00, the state not
 * read); the priority is not taken as acted, so a resync acts once the
 * read works, clearing only its bit of what it read; the restore puts
 * back exactly that.
 */
static void storm_read_fails_no_pfc(void **state)
{
	struct rt_profile *p = storm_profile("[Match]\nName=rsim5\n"
		"[Watchdog]\nAction=disable-pfc\nRestoreAfterMs=1000\n");
	struct rt_profile *eff = calloc(1, sizeof(*eff));
	struct fake_nic nic = { .pfc_en = 0x18, .pfc_err = -ETIMEDOUT };
	struct ag_storm s = { 0 };
	enum ag_skip skip = AG_SKIP_NUM;
	struct ag_wd wd;
	char msg[256];
	uint8_t fresh;
	int ret;

	(void)state;
	assert_non_null(eff);
	ag_wd_init(&wd, p->wd_restore_after_ms);
	assert_int_equal(ag_wd_storm_start(&wd, 3, 0), AG_WD_DO_ACT);
	ret = ag_storm_act(&s, &wd, 0x08, p, &fake_ops, &nic, &skip, msg,
			   sizeof(msg));
	/* Untouched (the bug wrote 0x00), nothing applied, skipped. */
	assert_int_equal(nic.pfc_en, 0x18);
	assert_int_equal(nic.applies, 0);
	assert_int_equal(ret, -1);
	assert_int_equal(nic.pfc_reads, 1);
	assert_int_equal(skip, AG_SKIP_PFC_READ);
	assert_string_equal(ag_skip_name(skip), "pfc-read-failed");
	assert_non_null(strstr(msg, "timed out"));
	/* Not acted: drift checks see no action either. */
	assert_int_equal(wd.acted, 0);
	*eff = *p;
	assert_int_equal(ag_storm_eff(&s, p, 0x08, eff), -ENODATA);
	assert_false(rt_profile_has(eff, RT_PK_PFC));

	/* The retry (a resync: the module still says 3 storms) reads. */
	nic.pfc_err = 0;
	assert_int_equal(ag_wd_sync(&wd, 0x08, 100, &fresh), AG_WD_DO_ACT);
	assert_int_equal(fresh, 0x08);
	assert_int_equal(ag_storm_act(&s, &wd, fresh, p, &fake_ops, &nic,
				      &skip, msg, sizeof(msg)), 0);
	assert_int_equal(nic.applies, 1);
	assert_pfc_only(&nic.last, 0x10);
	/* The effective profile the drift checks compare with. */
	*eff = *p;
	assert_int_equal(ag_storm_eff(&s, p, wd.acted, eff), 0);
	assert_int_equal(eff->pfc_en, 0x10);
	assert_true(rt_profile_has(eff, RT_PK_PFC));

	/* Priority 4 as well: no new read, still only acted bits cleared. */
	assert_int_equal(ag_wd_storm_start(&wd, 4, 200), AG_WD_DO_ACT);
	assert_int_equal(ag_storm_act(&s, &wd, 0x10, p, &fake_ops, &nic,
				      &skip, msg, sizeof(msg)), 0);
	assert_int_equal(nic.pfc_reads, 2);
	assert_pfc_only(&nic.last, 0x00);

	/* Over: restored to what was read before the first action. */
	ag_wd_storm_end(&wd, 3, 300);
	assert_int_equal(ag_wd_storm_end(&wd, 4, 300), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_tick(&wd, 1300), AG_WD_DO_RESTORE);
	assert_int_equal(ag_storm_restore(&s, p, &fake_ops, &nic), 0);
	assert_int_equal(nic.applies, 3);
	assert_pfc_only(&nic.last, 0x18);
	assert_int_equal(nic.pfc_en, 0x18);
	free(eff);
	free(p);
}

/*
 * With PFC= in the profile the action still reads: a NIC found with only
 * priority 3 lossless (say OnDrift=report) gets 3 cleared, never 4 set,
 * and a failed read means no write; the restore is the profile's.
 */
static void storm_read_fails_with_pfc(void **state)
{
	struct rt_profile *p = storm_profile("[Match]\nName=rsim5\n"
		"[Lossless]\nPFC=3 4\n"
		"[Watchdog]\nAction=disable-pfc\nRestoreAfterMs=0\n");
	struct fake_nic nic = { .pfc_en = 0x08, .pfc_err = -EIO };
	struct ag_storm s = { 0 };
	enum ag_skip skip;
	struct ag_wd wd;
	char msg[256];
	int ret;

	(void)state;
	ag_wd_init(&wd, 0);
	ag_wd_storm_start(&wd, 3, 0);
	ret = ag_storm_act(&s, &wd, 0x08, p, &fake_ops, &nic, &skip, msg,
			   sizeof(msg));
	/* Not written (the bug wrote 0x10: priority 4 on, never read). */
	assert_int_equal(nic.pfc_en, 0x08);
	assert_int_equal(nic.applies, 0);
	assert_int_equal(ret, -1);
	nic.pfc_err = 0;
	ag_wd_storm_start(&wd, 3, 0);
	assert_int_equal(ag_storm_act(&s, &wd, 0x08, p, &fake_ops, &nic,
				      &skip, msg, sizeof(msg)), 0);
	assert_int_equal(nic.applies, 1);
	assert_pfc_only(&nic.last, 0x00);
	assert_int_equal(ag_wd_storm_end(&wd, 3, 10), AG_WD_DO_RESTORE);
	assert_int_equal(ag_storm_restore(&s, p, &fake_ops, &nic), 0);
	assert_pfc_only(&nic.last, 0x18);
	free(p);
}

/*
 * Action=timeout without PFCStormTimeoutMs=: the value to restore must be
 * read first; a failed read means no write.  A restore with nothing
 * written writes nothing.
 */
static void storm_timeout_read_fails(void **state)
{
	struct rt_profile *p = storm_profile("[Match]\nName=rsim5\n"
		"[Watchdog]\nAction=timeout\nTimeoutMs=200\n");
	struct fake_nic nic = { .tout = 8000, .tout_err = -EOPNOTSUPP };
	struct ag_storm s = { 0 };
	enum ag_skip skip;
	struct ag_wd wd;
	char msg[256];
	int ret;

	(void)state;
	ag_wd_init(&wd, 0);
	ag_wd_storm_start(&wd, 3, 0);
	ret = ag_storm_act(&s, &wd, 0x08, p, &fake_ops, &nic, &skip, msg,
			   sizeof(msg));
	/* Not written (the bug set 200 with nothing to restore). */
	assert_int_equal(nic.tout, 8000);
	assert_int_equal(nic.applies, 0);
	assert_int_equal(ret, -1);
	assert_int_equal(skip, AG_SKIP_TOUT_READ);
	assert_int_equal(ag_storm_restore(&s, p, &fake_ops, &nic), 0);
	assert_int_equal(nic.applies, 0);
	nic.tout_err = 0;
	ag_wd_storm_start(&wd, 3, 0);
	assert_int_equal(ag_storm_act(&s, &wd, 0x08, p, &fake_ops, &nic,
				      &skip, msg, sizeof(msg)), 0);
	assert_int_equal(nic.tout, 200);
	assert_int_equal(nic.pfc_reads, 0);
	assert_int_equal(ag_storm_restore(&s, p, &fake_ops, &nic), 0);
	assert_int_equal(nic.tout, 8000);
	free(p);
}


/*
 * The CLI holds the NIC's lock at STORM_START: the action writes nothing,
 * is not taken as acted nor in force (no action reported active), and
 * the retry reads PFC again (the CLI may have changed it) and lands;
 * a restore that finds the lock held keeps everything for its retry.
 */
static void storm_lock_busy_retried(void **state)
{
	struct rt_profile *p = storm_profile("[Match]\nName=rsim5\n"
		"[Watchdog]\nAction=disable-pfc\nRestoreAfterMs=1000\n");
	struct fake_nic nic = { .pfc_en = 0x18, .busy = 3 };
	struct ag_storm s = { 0 };
	enum ag_skip skip = AG_SKIP_NUM;
	struct ag_wd wd;
	char msg[256];
	unsigned int i;

	(void)state;
	ag_wd_init(&wd, p->wd_restore_after_ms);
	assert_int_equal(ag_wd_storm_start(&wd, 3, 0), AG_WD_DO_ACT);
	for (i = 0; i < 3; i++) {
		/* The retry: priority 3 back into acted, as the daemon does. */
		wd.acted |= 0x08;
		assert_int_equal(ag_storm_act(&s, &wd, 0x08, p, &fake_ops, &nic,
					      &skip, msg, sizeof(msg)), 2);
		assert_int_equal(nic.applies, 0);
		assert_int_equal(wd.acted, 0);
		assert_false(s.in_force);
		assert_false(s.saved);
		assert_int_equal(nic.pfc_reads, i + 1);
		/* The CLI's apply changes PFC meanwhile. */
		nic.pfc_en = 0x38;
	}
	wd.acted |= 0x08;
	assert_int_equal(ag_storm_act(&s, &wd, 0x08, p, &fake_ops, &nic,
				      &skip, msg, sizeof(msg)), 0);
	assert_int_equal(nic.pfc_reads, 4);
	assert_true(s.in_force);
	/* Only the storming bit of what the last read found. */
	assert_pfc_only(&nic.last, 0x30);
	assert_int_equal(nic.pfc_en, 0x30);

	/* The storm is over; the lock is held at the restore: kept. */
	ag_wd_storm_end(&wd, 3, 100);
	assert_int_equal(ag_wd_tick(&wd, 1100), AG_WD_DO_RESTORE);
	nic.busy = 1;
	assert_int_equal(ag_storm_restore(&s, p, &fake_ops, &nic), 2);
	assert_true(s.in_force);
	assert_true(s.saved);
	assert_int_equal(nic.pfc_en, 0x30);
	assert_int_equal(ag_storm_restore(&s, p, &fake_ops, &nic), 0);
	assert_pfc_only(&nic.last, 0x38);
	assert_int_equal(nic.pfc_en, 0x38);
	assert_false(s.in_force);
	assert_false(s.saved);
	free(p);
}

/*
 * Resynchronisation from the module's storm state: a STORM_END lost in
 * an overrun ends the storm (HOLD, then the restore); an agent started
 * during a storm acts for it; a skipped priority is acted for again.
 */
static void wd_sync_lost_edges(void **state)
{
	struct ag_wd wd;
	uint8_t fresh;

	(void)state;
	ag_wd_init(&wd, 1000);
	/* Start during a storm on 3: act. */
	assert_int_equal(ag_wd_sync(&wd, 0x08, 0, &fresh), AG_WD_DO_ACT);
	assert_int_equal(fresh, 0x08);
	assert_int_equal(wd.state, AG_WD_ACTIVE);
	/* In step: nothing. */
	assert_int_equal(ag_wd_sync(&wd, 0x08, 50, &fresh), AG_WD_DO_NOTHING);
	assert_int_equal(fresh, 0);
	/* 4 started and its STORM_START was lost: act for 4 only. */
	assert_int_equal(ag_wd_sync(&wd, 0x18, 60, &fresh), AG_WD_DO_ACT);
	assert_int_equal(fresh, 0x10);
	/* Both STORM_ENDs lost: hold, restore RestoreAfterMs= later. */
	assert_int_equal(ag_wd_sync(&wd, 0x00, 100, &fresh), AG_WD_DO_NOTHING);
	assert_int_equal(wd.state, AG_WD_HOLD);
	assert_int_equal(ag_wd_deadline(&wd), 1100);
	assert_int_equal(ag_wd_tick(&wd, 1099), AG_WD_DO_NOTHING);
	assert_int_equal(ag_wd_tick(&wd, 1100), AG_WD_DO_RESTORE);
	assert_int_equal(wd.acted, 0);
	/* A storm on, its action skipped (acted cleared): acted again. */
	ag_wd_storm_start(&wd, 5, 2000);
	wd.acted &= (uint8_t)~0x20;
	assert_int_equal(ag_wd_sync(&wd, 0x20, 2200, &fresh), AG_WD_DO_ACT);
	assert_int_equal(fresh, 0x20);
	/* RestoreAfterMs=0: a lost end restores at once. */
	ag_wd_init(&wd, 0);
	ag_wd_sync(&wd, 0x01, 0, &fresh);
	assert_int_equal(ag_wd_sync(&wd, 0x00, 10, &fresh), AG_WD_DO_RESTORE);
	assert_int_equal(wd.state, AG_WD_IDLE);
}

/* ---- closed-loop tuning ---- */

/* The rule of the tests: base 10 in 4..40, Step=8, above 1000, below 100. */
static void tune_rule(struct ag_tune_rule *r, int dir, bool guard)
{
	memset(r, 0, sizeof(*r));
	r->dir = dir;
	r->above = 1000;
	r->below = 100;
	r->step = 8;
	r->min = 4;
	r->max = 40;
	r->base = 10;
	r->cooldown_ms = 5000;
	r->guard = guard;
	r->guard_tol = 50;
	r->max_writes = AG_TUNE_WRITES_MAX;
}

/*
 * One sample at @now with @metric and @guard: decide, check the action
 * and the value it wants, then update as if the write worked.
 */
static void tune_expect(const struct ag_tune_rule *r, struct ag_tune_state *s,
			uint64_t now, uint64_t metric, uint64_t guard,
			enum ag_tune_action action, enum ag_tune_reason reason,
			uint32_t to)
{
	struct ag_tune_in in = { .now_ms = now, .fresh = true,
				 .metric = metric, .guard = guard };
	struct ag_tune_decision d;

	ag_tune_decide(r, s, &in, &d);
	if (d.action != action || d.reason != reason || d.to != to)
		fprintf(stderr, "# at %llu ms, metric %llu guard %llu: %s (%s) %u -> %u, wanted %s (%s) -> %u\n",
			(unsigned long long)now, (unsigned long long)metric,
			(unsigned long long)guard, ag_tune_action_name(d.action),
			ag_tune_reason_name(d.reason), d.from, d.to,
			ag_tune_action_name(action), ag_tune_reason_name(reason),
			to);
	assert_int_equal(d.action, action);
	assert_int_equal(d.reason, reason);
	assert_int_equal(d.to, to);
	assert_int_equal(d.from, s->value);
	ag_tune_update(r, s, &in, &d, true);
	assert_int_equal(s->value, to);
}

static void tune_step_cooldown_back(void **state)
{
	struct ag_tune_rule r;
	struct ag_tune_state s;

	(void)state;
	tune_rule(&r, 1, false);
	ag_tune_init(&s, &r);
	assert_int_equal(s.value, 10);
	/* Quiet, and the hysteresis band: nothing. */
	tune_expect(&r, &s, 0, 0, 0, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 10);
	tune_expect(&r, &s, 100, 1000, 0, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 10);
	tune_expect(&r, &s, 200, 100, 0, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 10);
	/* Above: exactly one step, then the cool-down holds it ... */
	tune_expect(&r, &s, 1000, 1001, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH, 18);
	tune_expect(&r, &s, 1100, 5000, 0, AG_TUNE_HOLD, AG_TUNE_R_COOLDOWN, 18);
	tune_expect(&r, &s, 5999, 5000, 0, AG_TUNE_HOLD, AG_TUNE_R_COOLDOWN, 18);
	/* ... until it is over. */
	tune_expect(&r, &s, 6000, 5000, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH, 26);
	tune_expect(&r, &s, 11000, 5000, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH, 34);
	/* Clamped to Max=40, then at the limit. */
	tune_expect(&r, &s, 16000, 5000, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH, 40);
	tune_expect(&r, &s, 21000, 5000, 0, AG_TUNE_HOLD, AG_TUNE_R_LIMIT, 40);
	/* Back into the band: stays (hysteresis). */
	tune_expect(&r, &s, 30000, 500, 0, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 40);
	/* Below: back one step at a time, never past the base. */
	tune_expect(&r, &s, 31000, 99, 0, AG_TUNE_BACK, AG_TUNE_R_LOW, 32);
	tune_expect(&r, &s, 32000, 0, 0, AG_TUNE_HOLD, AG_TUNE_R_COOLDOWN, 32);
	tune_expect(&r, &s, 36000, 0, 0, AG_TUNE_BACK, AG_TUNE_R_LOW, 24);
	tune_expect(&r, &s, 41000, 0, 0, AG_TUNE_BACK, AG_TUNE_R_LOW, 16);
	tune_expect(&r, &s, 46000, 0, 0, AG_TUNE_BACK, AG_TUNE_R_LOW, 10);
	tune_expect(&r, &s, 51000, 0, 0, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 10);
	assert_string_equal(ag_tune_action_name(AG_TUNE_BACK), "back");
	assert_string_equal(ag_tune_reason_name(AG_TUNE_R_COOLDOWN), "cooldown");
	assert_string_equal(ag_tune_dir_name(-1), "down");
	assert_string_equal(ag_tune_dir_name(0), "none");
}

static void tune_decrease_and_min(void **state)
{
	struct ag_tune_rule r;
	struct ag_tune_state s;

	(void)state;
	tune_rule(&r, -1, false);
	r.cooldown_ms = 0;
	ag_tune_init(&s, &r);
	/* 10 - 8 = 2 is below Min=4: clamped. */
	tune_expect(&r, &s, 0, 2000, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH, 4);
	tune_expect(&r, &s, 1, 2000, 0, AG_TUNE_HOLD, AG_TUNE_R_LIMIT, 4);
	/* Back up toward the base, not past it (4 + 8 > 10). */
	tune_expect(&r, &s, 2, 0, 0, AG_TUNE_BACK, AG_TUNE_R_LOW, 10);
	tune_expect(&r, &s, 3, 0, 0, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 10);
	/* Step larger than the value: no wrap below 0. */
	r.min = 0;
	r.step = 30;
	tune_expect(&r, &s, 4, 2000, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH, 0);
	/* Max near UINT32_MAX: no overflow. */
	tune_rule(&r, 1, false);
	r.base = r.min = UINT32_MAX - 10;
	r.max = UINT32_MAX;
	r.step = 8;
	ag_tune_init(&s, &r);
	tune_expect(&r, &s, 0, 2000, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH,
		    UINT32_MAX - 2);
	tune_expect(&r, &s, 10000, 2000, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH,
		    UINT32_MAX);
}

static void tune_guard_reverts(void **state)
{
	struct ag_tune_rule r;
	struct ag_tune_state s;

	(void)state;
	tune_rule(&r, 1, true);
	ag_tune_init(&s, &r);
	/* A step with the guard at 200/s; within the tolerance it stays. */
	tune_expect(&r, &s, 0, 2000, 200, AG_TUNE_STEP, AG_TUNE_R_HIGH, 18);
	assert_true(s.watching);
	tune_expect(&r, &s, 1000, 2000, 250, AG_TUNE_HOLD, AG_TUNE_R_COOLDOWN, 18);
	/* Worse than 200 + 50: reverted at once, cool-down or not. */
	tune_expect(&r, &s, 2000, 2000, 251, AG_TUNE_REVERT, AG_TUNE_R_GUARD, 10);
	assert_false(s.watching);
	/* The same step is not tried again while the metric stays high ... */
	tune_expect(&r, &s, 20000, 2000, 0, AG_TUNE_HOLD, AG_TUNE_R_BLOCKED, 10);
	tune_expect(&r, &s, 30000, 500, 0, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 10);
	tune_expect(&r, &s, 40000, 2000, 0, AG_TUNE_HOLD, AG_TUNE_R_BLOCKED, 10);
	/* ... only after it went below Below=. */
	tune_expect(&r, &s, 50000, 50, 0, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 10);
	tune_expect(&r, &s, 60000, 2000, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH, 18);
	/* The guard watches until the cool-down is over, then stops. */
	tune_expect(&r, &s, 64000, 2000, 0, AG_TUNE_HOLD, AG_TUNE_R_COOLDOWN, 18);
	assert_true(s.watching);
	tune_expect(&r, &s, 65000, 500, 0, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 18);
	assert_false(s.watching);
	tune_expect(&r, &s, 70000, 500, 100000, AG_TUNE_HOLD, AG_TUNE_R_IDLE, 18);
	/*
	 * A step back is guarded too; its revert blocks going back.  (Up,
	 * down, up, down, up within 81 s would be oscillation: a fresh
	 * history, the detector has tests of its own.)
	 */
	s.nchanges = 0;
	tune_expect(&r, &s, 80000, 0, 10, AG_TUNE_BACK, AG_TUNE_R_LOW, 10);
	tune_expect(&r, &s, 81000, 0, 100, AG_TUNE_REVERT, AG_TUNE_R_GUARD, 18);
	tune_expect(&r, &s, 90000, 0, 0, AG_TUNE_HOLD, AG_TUNE_R_BLOCKED, 18);
	tune_expect(&r, &s, 95000, 1001, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH, 26);
	tune_expect(&r, &s, 100000, 0, 0, AG_TUNE_BACK, AG_TUNE_R_LOW, 18);
	/* Without Guard=, nothing reverts. */
	tune_rule(&r, 1, false);
	ag_tune_init(&s, &r);
	tune_expect(&r, &s, 0, 2000, 0, AG_TUNE_STEP, AG_TUNE_R_HIGH, 18);
	tune_expect(&r, &s, 100, 2000, 1000000, AG_TUNE_HOLD, AG_TUNE_R_COOLDOWN, 18);
}

static void tune_stale_and_failed(void **state)
{
	struct ag_tune_in in = { .now_ms = 0, .fresh = false, .metric = 5000 };
	struct ag_tune_decision d;
	struct ag_tune_rule r;
	struct ag_tune_state s, before;

	(void)state;
	tune_rule(&r, 1, true);
	ag_tune_init(&s, &r);
	/* No new sample: no decision, no state change. */
	ag_tune_decide(&r, &s, &in, &d);
	assert_int_equal(d.action, AG_TUNE_HOLD);
	assert_int_equal(d.reason, AG_TUNE_R_NO_DATA);
	before = s;
	ag_tune_update(&r, &s, &in, &d, false);
	assert_memory_equal(&s, &before, sizeof(s));
	/* A write that failed: the value stays, the cool-down starts. */
	in.fresh = true;
	in.now_ms = 1000;
	ag_tune_decide(&r, &s, &in, &d);
	assert_int_equal(d.action, AG_TUNE_STEP);
	ag_tune_update(&r, &s, &in, &d, false);
	assert_int_equal(s.value, 10);
	assert_false(s.watching);
	in.now_ms = 2000;
	ag_tune_decide(&r, &s, &in, &d);
	assert_int_equal(d.reason, AG_TUNE_R_COOLDOWN);
	in.now_ms = 6000;
	ag_tune_decide(&r, &s, &in, &d);
	assert_int_equal(d.action, AG_TUNE_STEP);
	assert_int_equal(d.to, 18);
}

/* A tiny PRNG, so that the run is the same every time. */
static uint32_t tune_rand(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * Whatever the rates and whichever writes fail: the value never leaves
 * Min..Max, moves at most one Step= per change (a revert undoes exactly
 * one), changes (steps and backs) are CooldownMs= apart, no hour has
 * more than MaxWritesPerHour= writes, and a stopped rule writes nothing
 * (it is started again, as a reload would).
 */
static void tune_invariants(void **state)
{
	static uint64_t w[AG_TUNE_WRITES_MAX + 1];
	struct ag_tune_rule r;
	struct ag_tune_state s;
	struct ag_tune_decision d;
	struct ag_tune_in in = { 0 };
	uint64_t last_change = 0;
	unsigned int i, steps = 0, backs = 0, reverts = 0, limits = 0;
	unsigned int stops[AG_TUNE_STOP_NUM] = { 0 }, nw = 0, k;
	bool changed = false;
	uint32_t x = 12345, v;
	int dir;

	(void)state;
	for (dir = -1; dir <= 1; dir += 2) {
		tune_rule(&r, dir, true);
		r.step = 7;
		r.max_writes = dir > 0 ? 9 : 40;
		ag_tune_init(&s, &r);
		changed = false;
		nw = 0;
		for (i = 0; i < 200000; i++) {
			in.now_ms += 100 + tune_rand(&x) % 900;
			in.fresh = tune_rand(&x) % 10 != 0;
			in.metric = tune_rand(&x) % 3000;
			in.guard = tune_rand(&x) % 400;
			v = s.value;
			ag_tune_decide(&r, &s, &in, &d);
			assert_int_equal(d.from, v);
			if (s.stopped) {
				/* Stopped: holds, for good, until init. */
				assert_int_equal(d.action, AG_TUNE_HOLD);
				assert_int_equal(d.reason, AG_TUNE_R_STOPPED);
				ag_tune_update(&r, &s, &in, &d, true);
				assert_int_equal(s.value, v);
				stops[s.stopped]++;
				ag_tune_init(&s, &r);
				changed = false;
				nw = 0;
				continue;
			}
			if (d.action == AG_TUNE_STEP || d.action == AG_TUNE_BACK) {
				assert_true(d.to != v);
				assert_true(d.to >= r.min && d.to <= r.max);
				assert_true((d.to > v ? d.to - v : v - d.to) <=
					    r.step);
				if (changed)
					assert_true(in.now_ms >= last_change +
						    r.cooldown_ms);
			}
			if (d.action == AG_TUNE_REVERT)
				assert_int_equal(d.to, s.prev);
			if (d.action != AG_TUNE_HOLD) {
				changed = true;
				last_change = in.now_ms;
				/* The writes of the hour up to now. */
				for (k = 0; k < nw &&
				     in.now_ms >= w[k] + AG_TUNE_WINDOW_MS; k++)
					;
				memmove(w, w + k, (nw - k) * sizeof(w[0]));
				nw -= k;
				w[nw++] = in.now_ms;
				assert_true(nw <= r.max_writes);
			}
			steps += d.action == AG_TUNE_STEP;
			backs += d.action == AG_TUNE_BACK;
			reverts += d.action == AG_TUNE_REVERT;
			limits += d.reason == AG_TUNE_R_LIMIT;
			ag_tune_update(&r, &s, &in, &d, tune_rand(&x) % 8 != 0);
			assert_true(s.value >= r.min && s.value <= r.max);
			/* A back step never crosses the base. */
			if (d.action == AG_TUNE_BACK)
				assert_true(dir > 0 ? s.value >= r.base :
					    s.value <= r.base);
		}
	}
	fprintf(stderr, "# tune: %u steps, %u backs, %u reverts, %u at a limit, stopped %u times by oscillation, %u by the budget\n",
		steps, backs, reverts, limits,
		stops[AG_TUNE_STOP_OSCILLATION], stops[AG_TUNE_STOP_BUDGET]);
	/* The run went through every kind of decision. */
	assert_true(steps > 100 && backs > 100 && reverts > 10 && limits > 10);
	assert_true(stops[AG_TUNE_STOP_OSCILLATION] > 10);
	assert_true(stops[AG_TUNE_STOP_BUDGET] > 10);
}

/* ---- metrics ---- */

static char *metrics_text(const struct ag_global *g,
			  const struct ag_stats *const *nics, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ag_metrics_write(f, g, nics, n);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static unsigned int count(const char *s, const char *sub)
{
	unsigned int n = 0;

	while ((s = strstr(s, sub))) {
		n++;
		s += strlen(sub);
	}
	return n;
}

/* promtool check metrics, when promtool is installed (make deps does). */
static void promtool_clean(const char *text)
{
	char path[] = "/tmp/rt-agent-metrics.XXXXXX", cmd[256];
	FILE *f;
	int fd, rc;

	if (access("/usr/bin/promtool", X_OK)) {
		fprintf(stderr, "# promtool is not installed: lint not run\n");
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd),
		 "promtool check metrics < %s > %s.out 2>&1", path, path);
	rc = system(cmd);
	if (rc) {
		snprintf(cmd, sizeof(cmd), "cat %s.out >&2", path);
		assert_int_equal(system(cmd), 0);
	}
	snprintf(cmd, sizeof(cmd), "%s.out", path);
	unlink(cmd);
	unlink(path);
	assert_int_equal(rc, 0);
}

static void metrics_families(void **state)
{
	struct ag_global g = { .start_time_s = 1700000000.5, .module = true,
			       .reloads_ok = 2, .last_reload_ok = true };
	struct ag_stats *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const struct ag_stats *v[2] = { a, b };
	char *t;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	snprintf(a->netdev, sizeof(a->netdev), "rsim5");
	snprintf(a->rdma_dev, sizeof(a->rdma_dev), "rsim_ib5");
	a->port = 1;
	snprintf(a->profile, sizeof(a->profile), "50-lossless \"x\".conf");
	a->applies[RT_RES_APPLIED] = 2;
	a->applies[RT_RES_UNCHANGED] = 1;
	a->writes = 17;
	a->last_apply_time_s = 1700000001.25;
	ag_stats_drift(a, "pfc");
	ag_stats_drift(a, "pfc");
	ag_stats_drift(a, "dscp 26");
	a->suppressed = true;
	a->journal_stuck = true;
	a->suppressions = 4;
	a->storm_starts = 1;
	a->actions[AG_ACT_TIMEOUT] = 1;
	a->last_action_latency_s = 0.0123;
	snprintf(b->netdev, sizeof(b->netdev), "va");
	b->last_action_latency_s = -1;
	ag_hist_add(&g.storm_latency, 0.0123);
	ag_hist_add(&g.storm_latency, 0.3);
	ag_hist_add(&g.storm_latency, 99);
	/* A [Tune] rule: two steps up, a revert, a hold; idle uncounted. */
	a->tune = true;
	snprintf(a->tune_param, sizeof(a->tune_param), "MinTimeBetweenCNPsUs");
	a->tune_value = 12;
	{
		struct ag_tune_decision d = { AG_TUNE_STEP, AG_TUNE_R_HIGH, 1, 4, 8 };

		ag_stats_tune(a, &d);
		ag_stats_tune(a, &d);
		d = (struct ag_tune_decision){ AG_TUNE_REVERT, AG_TUNE_R_GUARD,
					       -1, 12, 8 };
		ag_stats_tune(a, &d);
		d = (struct ag_tune_decision){ AG_TUNE_HOLD, AG_TUNE_R_COOLDOWN,
					       0, 8, 8 };
		ag_stats_tune(a, &d);
		d.reason = AG_TUNE_R_IDLE;
		ag_stats_tune(a, &d);
		d.reason = AG_TUNE_R_NO_DATA;
		ag_stats_tune(a, &d);
		/* A stopped rule's holds are no decisions either. */
		d.reason = AG_TUNE_R_STOPPED;
		ag_stats_tune(a, &d);
	}
	a->tune_stopped = AG_TUNE_STOP_BUDGET;

	t = metrics_text(&g, v, 2);
	assert_non_null(strstr(t, "rocetune_agent_tune_value{netdev=\"rsim5\",parameter=\"MinTimeBetweenCNPsUs\"} 12\n"));
	assert_non_null(strstr(t, "rocetune_agent_tune_decisions_total{netdev=\"rsim5\",parameter=\"MinTimeBetweenCNPsUs\",direction=\"up\",reason=\"high\"} 2\n"));
	assert_non_null(strstr(t, "rocetune_agent_tune_decisions_total{netdev=\"rsim5\",parameter=\"MinTimeBetweenCNPsUs\",direction=\"down\",reason=\"guard\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_tune_decisions_total{netdev=\"rsim5\",parameter=\"MinTimeBetweenCNPsUs\",direction=\"none\",reason=\"cooldown\"} 1\n"));
	assert_int_equal(count(t, "rocetune_agent_tune_decisions_total{"), 3);
	assert_non_null(strstr(t, "rocetune_agent_tune_stopped{netdev=\"rsim5\",parameter=\"MinTimeBetweenCNPsUs\",reason=\"oscillation\"} 0\n"));
	assert_non_null(strstr(t, "rocetune_agent_tune_stopped{netdev=\"rsim5\",parameter=\"MinTimeBetweenCNPsUs\",reason=\"budget\"} 1\n"));
	assert_int_equal(count(t, "# TYPE rocetune_agent_tune_stopped gauge\n"), 1);
	assert_int_equal(count(t, "# TYPE rocetune_agent_tune_decisions_total counter\n"), 1);
	assert_null(strstr(t, "rocetune_agent_tune_value{netdev=\"va\""));
	/* One HELP and TYPE per family. */
	assert_int_equal(count(t, "# TYPE rocetune_agent_applies_total counter\n"), 1);
	assert_int_equal(count(t, "# HELP rocetune_agent_applies_total "), 1);
	assert_non_null(strstr(t, "rocetune_agent_applies_total{netdev=\"rsim5\",result=\"applied\"} 2\n"));
	assert_non_null(strstr(t, "rocetune_agent_applies_total{netdev=\"rsim5\",result=\"unchanged\"} 1\n"));
	/* No sample for a result that never happened. */
	assert_null(strstr(t, "result=\"rolled-back\""));
	/* The info series joins node_exporter's labels; quotes escaped. */
	assert_non_null(strstr(t, "rocetune_agent_profile_info{netdev=\"rsim5\",device=\"rsim_ib5\",port=\"1\",profile=\"50-lossless \\\"x\\\".conf\"} 1\n"));
	assert_null(strstr(t, "rocetune_agent_profile_info{netdev=\"va\""));
	assert_non_null(strstr(t, "rocetune_agent_drift_events_total{netdev=\"rsim5\",setting=\"pfc\"} 2\n"));
	assert_non_null(strstr(t, "rocetune_agent_drift_events_total{netdev=\"rsim5\",setting=\"dscp 26\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_reapply_suppressed{netdev=\"rsim5\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_reapply_suppressed{netdev=\"va\"} 0\n"));
	assert_non_null(strstr(t, "# TYPE rocetune_agent_journal_stuck gauge\n"));
	assert_non_null(strstr(t, "rocetune_agent_journal_stuck{netdev=\"rsim5\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_journal_stuck{netdev=\"va\"} 0\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_actions_total{netdev=\"rsim5\",action=\"timeout\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_last_latency_seconds{netdev=\"rsim5\"} 0.012300\n"));
	assert_null(strstr(t, "rocetune_agent_storm_action_last_latency_seconds{netdev=\"va\"}"));
	assert_non_null(strstr(t, "rocetune_agent_last_apply_timestamp_seconds{netdev=\"rsim5\"} 1700000001.250\n"));
	/* The histogram is cumulative and ends in +Inf = count. */
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"0.01\"} 0\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"0.025\"} 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"0.5\"} 2\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"5\"} 2\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_bucket{le=\"+Inf\"} 3\n"));
	assert_non_null(strstr(t, "rocetune_agent_storm_action_latency_seconds_count 3\n"));
	assert_non_null(strstr(t, "rocetune_agent_module_connected 1\n"));
	assert_non_null(strstr(t, "rocetune_agent_profile_reloads_total{result=\"ok\"} 2\n"));
	promtool_clean(t);
	free(t);

	/* No NICs at all: still valid. */
	t = metrics_text(&g, v, 0);
	assert_null(strstr(t, "rocetune_agent_applies_total"));
	assert_null(strstr(t, "rocetune_agent_tune"));
	assert_non_null(strstr(t, "rocetune_agent_nics 0\n"));
	promtool_clean(t);
	free(t);
	free(a);
	free(b);
}

static void drift_table_bounded(void **state)
{
	struct ag_stats *s = calloc(1, sizeof(*s));
	char name[32];
	unsigned int i;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "dscp %u", i);
		ag_stats_drift(s, name);
	}
	assert_int_equal(s->ndrift, AG_DRIFT_KEYS);
	assert_string_equal(s->drift[AG_DRIFT_KEYS - 2].setting, "dscp 30");
	assert_string_equal(s->drift[AG_DRIFT_KEYS - 1].setting, "other");
	assert_int_equal(s->drift[AG_DRIFT_KEYS - 1].n, 64 - (AG_DRIFT_KEYS - 1));
	ag_stats_drift(s, "dscp 0");
	assert_int_equal(s->drift[0].n, 2);
	free(s);
}

/* ---- the tuner and a plant, over simulated hours ---- */

/*
 * The rule of the plant tests, from a real profile through the parser:
 * CNPs above 1000/s make MinTimeBetweenCNPsUs (4) larger by 4, up to 64,
 * below 100/s it goes back; the default MaxWritesPerHour= (60).
 */
static void plant_rule(struct ag_tune_rule *r, const char *extra)
{
	static const char head[] =
		"[Match]\n[DCQCN]\nMinTimeBetweenCNPsUs=4\n[Tune]\n"
		"Parameter=MinTimeBetweenCNPsUs\nMetric=cnp\n"
		"Direction=increase\nAbove=1000\nBelow=100\nStep=4\n"
		"Min=4\nMax=64\nCooldownMs=10000\nIntervalMs=1000\n";
	struct rt_profile *p = calloc(1, sizeof(*p));
	struct rt_diag *d = calloc(1, sizeof(*d));
	char text[1024];
	FILE *f;

	assert_non_null(p);
	assert_non_null(d);
	snprintf(text, sizeof(text), "%s%s", head, extra);
	f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	if (rt_profile_parse_fp(f, "plant.conf", p, d))
		rt_diag_print(d, stderr);
	assert_int_equal(d->n, 0);
	fclose(f);
	assert_true(rt_profile_has(p, RT_PK_TUNE_PARAMETER));
	ag_tune_rule_from(r, p);
	free(p);
	free(d);
}

/* The CNP rate of a plant with the parameter at @v, @t ms into the run. */
typedef uint64_t plant_fn(uint32_t v, uint64_t t);

struct plant_run {
	unsigned int writes;		/* all of them */
	unsigned int max_hour;		/* the most in any hour */
	unsigned int after_stop;	/* writes after the rule stopped */
	uint64_t stop_ms;		/* when it stopped, 0: never */
	uint32_t lo, hi;		/* the values it took */
};

/*
 * @hours of samples every IntervalMs= (1 s) through ag_tune_decide() and
 * ag_tune_update(), every write working; the plant answers the value in
 * force at the next sample.
 */
static void plant_drive(const struct ag_tune_rule *r, struct ag_tune_state *s,
			plant_fn *plant, unsigned int hours,
			struct plant_run *o)
{
	static uint64_t w[4096];
	struct ag_tune_decision d;
	struct ag_tune_in in = { .fresh = true };
	unsigned int nw = 0, k;

	memset(o, 0, sizeof(*o));
	o->lo = o->hi = s->value;
	for (in.now_ms = 1000; in.now_ms < hours * AG_TUNE_WINDOW_MS;
	     in.now_ms += 1000) {
		in.metric = plant(s->value, in.now_ms);
		ag_tune_decide(r, s, &in, &d);
		if (d.action != AG_TUNE_HOLD) {
			o->writes++;
			o->after_stop += o->stop_ms != 0;
			for (k = 0; k < nw &&
			     in.now_ms >= w[k] + AG_TUNE_WINDOW_MS; k++)
				;
			memmove(w, w + k, (nw - k) * sizeof(w[0]));
			nw -= k;
			assert_true(nw < sizeof(w) / sizeof(w[0]));
			w[nw++] = in.now_ms;
			if (nw > o->max_hour)
				o->max_hour = nw;
		}
		ag_tune_update(r, s, &in, &d, true);
		if (s->stopped && !o->stop_ms)
			o->stop_ms = in.now_ms;
		if (s->value < o->lo)
			o->lo = s->value;
		if (s->value > o->hi)
			o->hi = s->value;
	}
}

/* The rocetune_agent_tune_stopped sample of @reason in the agent's text. */
static bool plant_reported(const struct ag_tune_state *s, const char *reason,
			   const char *value)
{
	struct ag_global g = { 0 };
	struct ag_stats *a = calloc(1, sizeof(*a));
	const struct ag_stats *v[1] = { a };
	char want[256], *t;
	bool ok;

	assert_non_null(a);
	snprintf(a->netdev, sizeof(a->netdev), "rsim5");
	a->tune = true;
	snprintf(a->tune_param, sizeof(a->tune_param), "MinTimeBetweenCNPsUs");
	a->tune_value = s->value;
	a->tune_stopped = s->stopped;
	t = metrics_text(&g, v, 1);
	snprintf(want, sizeof(want),
		 "\nrocetune_agent_tune_stopped{netdev=\"rsim5\",parameter=\"MinTimeBetweenCNPsUs\",reason=\"%s\"} %s\n",
		 reason, value);
	ok = strstr(t, want) != NULL;
	if (!ok)
		fprintf(stderr, "# no \"%s\" in the metrics\n", want + 1);
	free(t);
	free(a);
	return ok;
}

/*
 * Too much gain: at the profile's 4 the port sends 5000 CNPs/s, one step
 * up (8) and it sends none; so the rule steps up, the rate drops below
 * Below=, it steps back, and so on: a write every CooldownMs=, 360 an
 * hour, for ever.
 */
static uint64_t plant_overshoot(uint32_t v, uint64_t t)
{
	(void)t;
	return v <= 4 ? 5000 : 0;
}

/*
 * Traffic that comes and goes every 25 s: three steps up while it is
 * there, three back while it is not (one reversal in three changes,
 * which is no oscillation): 430 writes an hour that MaxWritesPerHour=
 * must bound.
 */
static uint64_t plant_flapping(uint32_t v, uint64_t t)
{
	(void)v;
	return (t / 25000) % 2 ? 0 : 5000;
}

/* Well behaved: the CNP rate falls as the gap between CNPs grows. */
static uint64_t plant_smooth(uint32_t v, uint64_t t)
{
	(void)t;
	return 32000 / v;
}

/* The same, with the traffic there for 30 minutes of every hour. */
static uint64_t plant_daily(uint32_t v, uint64_t t)
{
	return (t / 1800000) % 2 ? 50 : 32000 / v;
}

static void tune_plant_oscillates(void **state)
{
	struct ag_tune_rule r;
	struct ag_tune_state s;
	struct plant_run o;

	(void)state;
	plant_rule(&r, "");
	ag_tune_init(&s, &r);
	plant_drive(&r, &s, plant_overshoot, 3, &o);
	fprintf(stderr, "# overshooting plant, 3 h: %u writes (at most %u in an hour), stopped after %.0f s: %s, value %u\n",
		o.writes, o.max_hour, (double)o.stop_ms / 1000,
		ag_tune_stop_name(s.stopped), s.value);
	assert_true(o.max_hour <= RT_TUNE_DEF_MAX_WRITES_PER_HOUR);
	assert_int_equal(r.max_writes, RT_TUNE_DEF_MAX_WRITES_PER_HOUR);
	/* Stopped, for oscillation, within the first minutes ... */
	assert_int_equal(s.stopped, AG_TUNE_STOP_OSCILLATION);
	assert_string_equal(ag_tune_stop_name(s.stopped), "oscillation");
	assert_true(o.stop_ms > 0 && o.stop_ms <= 60000);
	assert_int_equal(s.reversals, AG_TUNE_OSC_REVERSALS);
	/* ... after 5 writes (4 reversals), none since, in the budget. */
	assert_int_equal(o.writes, AG_TUNE_OSC_REVERSALS + 1);
	assert_int_equal(o.after_stop, 0);
	assert_true(o.max_hour <= r.max_writes);
	assert_true(o.lo == 4 && o.hi == 8);
	/* Said where the operator looks: the metric, by its reason. */
	assert_true(plant_reported(&s, "oscillation", "1"));
	assert_true(plant_reported(&s, "budget", "0"));

	/* A load that flaps is no oscillation: the budget stops it. */
	ag_tune_init(&s, &r);
	plant_drive(&r, &s, plant_flapping, 3, &o);
	fprintf(stderr, "# flapping load, 3 h: %u writes (at most %u in an hour), stopped after %.0f s: %s, value %u\n",
		o.writes, o.max_hour, (double)o.stop_ms / 1000,
		ag_tune_stop_name(s.stopped), s.value);
	assert_int_equal(s.stopped, AG_TUNE_STOP_BUDGET);
	assert_true(s.reversals < AG_TUNE_OSC_REVERSALS);
	assert_int_equal(o.writes, r.max_writes);
	assert_int_equal(o.max_hour, r.max_writes);
	assert_int_equal(o.after_stop, 0);
	assert_true(o.stop_ms < AG_TUNE_WINDOW_MS);
	assert_true(s.value >= r.min && s.value <= r.max);
	assert_true(plant_reported(&s, "budget", "1"));
	assert_true(plant_reported(&s, "oscillation", "0"));

	/* With Guard=, a step always keeps room for its revert. */
	plant_rule(&r, "Guard=rx-pause\nMaxWritesPerHour=7\n");
	ag_tune_init(&s, &r);
	plant_drive(&r, &s, plant_flapping, 2, &o);
	assert_int_equal(s.stopped, AG_TUNE_STOP_BUDGET);
	assert_int_equal(o.writes, 6);
	assert_int_equal(ag_tune_writes(&s, o.stop_ms), 6);
}

static void tune_plant_converges(void **state)
{
	struct ag_tune_rule r;
	struct ag_tune_state s;
	struct plant_run o;

	(void)state;
	plant_rule(&r, "");
	ag_tune_init(&s, &r);
	/* 8000, 4000, ..., 1000 CNPs/s at 32: seven steps, then it stays. */
	plant_drive(&r, &s, plant_smooth, 6, &o);
	fprintf(stderr, "# smooth plant, 6 h: %u writes, value %u, %s\n",
		o.writes, s.value, ag_tune_stop_name(s.stopped));
	assert_int_equal(s.stopped, AG_TUNE_RUNNING);
	assert_int_equal(s.value, 32);
	assert_int_equal(o.writes, 7);
	assert_int_equal(o.hi, 32);
	assert_true(plant_reported(&s, "oscillation", "0"));
	assert_true(plant_reported(&s, "budget", "0"));

	/* Traffic half of every hour: up to 32 and back to 4, each hour. */
	ag_tune_init(&s, &r);
	plant_drive(&r, &s, plant_daily, 6, &o);
	fprintf(stderr, "# half-hour traffic, 6 h: %u writes (at most %u in an hour), value %u, %s\n",
		o.writes, o.max_hour, s.value, ag_tune_stop_name(s.stopped));
	assert_int_equal(s.stopped, AG_TUNE_RUNNING);
	assert_int_equal(o.writes, 6 * 14);
	assert_true(o.lo == 4 && o.hi == 32);
	assert_int_equal(s.value, 4);
	assert_true(o.max_hour <= r.max_writes);
}

/* ---- rtnetlink ---- */

static void rtnl_messages(void **state)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct ag_rtnl_msg m;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	struct dcbmsg *dcb;

	(void)state;
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 42;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "rsim7");
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len, &m), 0);
	assert_int_equal(m.kind, AG_RTNL_NEWLINK);
	assert_int_equal(m.ifindex, 42);
	assert_string_equal(m.ifname, "rsim7");
	nlh->nlmsg_type = RTM_DELLINK;
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len, &m), 0);
	assert_int_equal(m.kind, AG_RTNL_DELLINK);
	/* Truncated: refused. */
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len - 1, &m), -EINVAL);

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETDCB;
	dcb = mnl_nlmsg_put_extra_header(nlh, sizeof(*dcb));
	dcb->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "rsim9");
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len, &m), 0);
	assert_int_equal(m.kind, AG_RTNL_DCB);
	assert_string_equal(m.ifname, "rsim9");

	nlh->nlmsg_type = RTM_NEWADDR;
	assert_int_equal(ag_rtnl_parse(nlh, nlh->nlmsg_len, &m), 0);
	assert_int_equal(m.kind, AG_RTNL_OTHER);
	/* A header that claims too little. */
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_len = sizeof(*nlh) + 2;
	assert_int_equal(ag_rtnl_parse(nlh, sizeof(buf), &m), -EINVAL);
}

/* ---- the status socket (ag_status.c) ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void status_fill(FILE *f, bool json, bool pretty, void *arg)
{
	unsigned int *calls = arg;

	(*calls)++;
	fprintf(f, "%s%s answer %u\n", json ? "json" : "text",
		pretty ? " pretty" : "", *calls);
}

/* One turn of the agent's loop for the status socket: at most @ms. */
static void status_turn(struct ag_status *s, int ms)
{
	struct pollfd pfd[AG_STATUS_NFDS];
	int t = ag_status_timeout_ms(s);

	ag_status_pollfds(s, pfd);
	if (t < 0 || t > ms)
		t = ms;
	poll(pfd, AG_STATUS_NFDS, t);
	ag_status_run(s, pfd);
}

static int status_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(ag_status_path(sun.sun_path, sizeof(sun.sun_path)),
			 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof(sun)),
			 0);
	return fd;
}

/* Read what is there without waiting: bytes, 0 at EOF, -1 nothing yet. */
static ssize_t status_peek(int fd, char *buf, size_t len)
{
	ssize_t n = recv(fd, buf, len - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/*
 * Five clients that connect and say nothing cost the loop nothing: a
 * sixth is answered in the same turns (the old server read each silent
 * one for 1 s, blocking the loop), and the silent ones are closed after
 * AG_STATUS_TIMEOUT_MS.  With every slot taken by silent clients, the
 * one silent longest makes room.
 */
static void status_silent_clients_do_not_block(void **state)
{
	char dir[] = "/tmp/rt-status.XXXXXX", buf[256];
	int silent[AG_STATUS_CLIENTS + 1], c;
	unsigned int calls = 0, i;
	struct ag_status *s;
	double t0, t;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("ROCETUNE_RUN_DIR", dir, 1);
	s = ag_status_start(status_fill, &calls);
	assert_non_null(s);
	for (i = 0; i < 5; i++) {
		silent[i] = status_connect();
		status_turn(s, 0);
	}
	t0 = now_s();
	c = status_connect();
	assert_int_equal(write(c, "status json\n", 12), 12);
	n = -1;
	while (n < 0 && now_s() - t0 < 2) {
		status_turn(s, 10);
		n = status_peek(c, buf, sizeof(buf));
	}
	t = now_s() - t0;
	print_message("# a client among 5 silent ones answered in %.1f ms\n",
		      t * 1e3);
	assert_true(t < 0.1);
	assert_string_equal(buf, "json answer 1\n");
	/* Then EOF: the agent closes after the answer. */
	for (n = -1; n < 0 && now_s() - t0 < 2;) {
		status_turn(s, 10);
		n = status_peek(c, buf, sizeof(buf));
	}
	assert_int_equal(n, 0);
	close(c);
	/* The silent ones: closed after their time, not before. */
	assert_int_equal(status_peek(silent[0], buf, sizeof(buf)), -1);
	while (now_s() - t0 < (AG_STATUS_TIMEOUT_MS + 500) / 1000.0)
		status_turn(s, 50);
	for (i = 0; i < 5; i++) {
		assert_int_equal(status_peek(silent[i], buf, sizeof(buf)), 0);
		close(silent[i]);
	}

	/* Every slot silent, one more: the oldest makes room. */
	for (i = 0; i < AG_STATUS_CLIENTS; i++) {
		silent[i] = status_connect();
		status_turn(s, 0);
	}
	c = status_connect();
	assert_int_equal(write(c, "status\n", 7), 7);
	t0 = now_s();
	for (n = -1; n < 0 && now_s() - t0 < 2;) {
		status_turn(s, 10);
		n = status_peek(c, buf, sizeof(buf));
	}
	assert_true(now_s() - t0 < 0.1);
	assert_string_equal(buf, "text answer 2\n");
	assert_int_equal(status_peek(silent[0], buf, sizeof(buf)), 0);
	assert_int_equal(status_peek(silent[1], buf, sizeof(buf)), -1);
	close(c);
	for (i = 0; i < AG_STATUS_CLIENTS; i++)
		close(silent[i]);
	ag_status_stop(s);
	assert_int_equal(rmdir(dir), 0);
	unsetenv("ROCETUNE_RUN_DIR");
}

/* ag_ready_write() on @in: the count, and the text in @buf. */
static size_t ready_text(const struct ag_ready_in *in, char *buf, size_t len)
{
	FILE *f;
	size_t n;

	memset(buf, 0, len);
	f = fmemopen(buf, len, "w");
	assert_non_null(f);
	n = ag_ready_write(f, in);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(ag_ready_write(NULL, in), n);
	return n;
}

/* Each reason the agent is not ready names its NIC; a NIC without a
 * profile asks nothing. */
static void ready_reasons(void **state)
{
	struct ag_ready_nic v[2] = {
		{ .netdev = "eth1", .profile = true, .profile_name = "50-a.conf",
		  .applied = true, .last = RT_RES_APPLIED },
		{ .netdev = "eth2", .profile = false },
	};
	struct ag_ready_in in = { .started = true, .reload_error = "",
				  .nics = v, .n = 2 };
	char buf[2048];

	(void)state;
	assert_int_equal(ready_text(&in, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	v[0].last = RT_RES_UNCHANGED;
	assert_int_equal(ready_text(&in, buf, sizeof(buf)), 0);

	in.started = false;
	assert_int_equal(ready_text(&in, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "the start-up applies are not done\n");
	in.started = true;

	v[0].last = RT_RES_ROLLED_BACK;
	v[0].last_error = "PFC: Invalid argument";
	assert_int_equal(ready_text(&in, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "eth1: profile 50-a.conf: last apply rolled-back: PFC: Invalid argument\n");

	v[0].busy = true;		/* the wait is what it is now */
	assert_int_equal(ready_text(&in, buf, sizeof(buf)), 1);
	assert_non_null(strstr(buf, "eth1: its apply waits for the NIC's lock"));
	v[0].busy = false;
	v[0].applied = false;
	assert_int_equal(ready_text(&in, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "eth1: profile 50-a.conf not applied yet\n");
	v[0].applied = true;
	v[0].last = RT_RES_APPLIED;

	v[0].drift_left = true;
	v[0].drift_why = "OnDrift=report";
	v[0].journal_stuck = true;
	v[0].storm_action = true;
	in.reload_error = "errors in 10-x.conf";
	assert_int_equal(ready_text(&in, buf, sizeof(buf)), 4);
	assert_non_null(strstr(buf, "the last profile reload failed (the profiles before stay in force): errors in 10-x.conf\n"));
	assert_non_null(strstr(buf, "eth1: drifted from profile 50-a.conf, left so (OnDrift=report)\n"));
	assert_non_null(strstr(buf, "eth1: a stuck journal blocks its applies"));
	assert_non_null(strstr(buf, "eth1: a pause storm action is in force\n"));
	assert_null(strstr(buf, "eth2"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rl_bounded),
		cmocka_unit_test(rl_window_slides),
		cmocka_unit_test(wd_start_end_restore),
		cmocka_unit_test(wd_two_prios_and_restart),
		cmocka_unit_test(wd_restore_immediately),
		cmocka_unit_test(storm_read_fails_no_pfc),
		cmocka_unit_test(storm_read_fails_with_pfc),
		cmocka_unit_test(storm_timeout_read_fails),
		cmocka_unit_test(storm_lock_busy_retried),
		cmocka_unit_test(wd_sync_lost_edges),
		cmocka_unit_test(tune_step_cooldown_back),
		cmocka_unit_test(tune_decrease_and_min),
		cmocka_unit_test(tune_guard_reverts),
		cmocka_unit_test(tune_stale_and_failed),
		cmocka_unit_test(tune_invariants),
		cmocka_unit_test(tune_plant_oscillates),
		cmocka_unit_test(tune_plant_converges),
		cmocka_unit_test(metrics_families),
		cmocka_unit_test(drift_table_bounded),
		cmocka_unit_test(rtnl_messages),
		cmocka_unit_test(status_silent_clients_do_not_block),
		cmocka_unit_test(ready_reasons),
	};

	ag_log_init(false, AG_ERR);
	return cmocka_run_group_tests_name("rocetuned", tests, NULL, NULL);
}
