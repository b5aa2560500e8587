// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the watch after an apply (lib/rt_verify.c) and its hook
 * in the engine (lib/rt_apply.c): the guard arithmetic, the [Verify]
 * keys, the durations, the exit codes, and a model NIC (PFC only) whose
 * counters a scripted sampler makes rise, go down or reset, whose link
 * goes down or whose setting drifts during the watch.  The real NIC is
 * tested in the VM (selftests/profile_verify.sh).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "rt_apply.h"
#include "rt_verify.h"

/* Guard arithmetic ------------------------------------------------------ */

static void rates_and_resets(void **state)
{
	(void)state;
	assert_true(rt_vrate(100, 600, 500000000ull) == 1000.0);
	assert_true(rt_vrate(5, 5, 1000000000ull) == 0.0);
	/* a counter reset (module reloaded): counted from 0 */
	assert_true(rt_vrate(1000, 30, 1000000000ull) == 30.0);
	assert_true(rt_vrate(0, 10, 0) == 0.0);
	/* no overflow near UINT64_MAX */
	assert_true(rt_vrate(0, UINT64_MAX, 1000000000ull) > 1.8e19);
}

static void pause_percent_is_the_worst_priority(void **state)
{
	struct rt_vsample a = { .t_ns = 0, .pause_mask = 0xff },
			  b = { .t_ns = 2000000000ull, .pause_mask = 0xff };

	(void)state;
	b.pause_us[3] = 500000;		/* 0.5 s of 2 s: 25 % */
	b.pause_us[5] = 200000;		/* 10 % */
	assert_true(rt_vpause_pct(&a, &b) == 25.0);
	b.pause_us[1] = 9000000;	/* more than the interval: 100 % */
	assert_true(rt_vpause_pct(&a, &b) == 100.0);
	assert_true(rt_vpause_pct(&b, &b) == 0.0);
	/* A counter only at one end (PFC turned on between): no interval. */
	a.pause_mask = (uint8_t)~(1u << 1);
	assert_true(rt_vpause_pct(&a, &b) == 25.0);
	a.pause_mask = 0;
	assert_true(rt_vpause_pct(&a, &b) == 0.0);
}

static struct rt_profile *prof(void)
{
	static struct rt_profile p;

	memset(&p, 0, sizeof(p));
	p.verify_for_s = 2;
	p.verify_baseline_s = 1;
	p.verify_interval_ms = 500;
	return &p;
}

static void limits_lowest_of_max_and_margin(void **state)
{
	struct rt_profile *p = prof();
	struct rt_guard g[RT_GUARD_NUM];

	(void)state;
	p->line[RT_PK_VERIFY_CNP_RATE_MARGIN] = 1;
	p->verify_cnp_margin = 100;
	p->line[RT_PK_VERIFY_MAX_CNP_RATE] = 2;
	p->verify_max_cnp = 1000;
	p->line[RT_PK_VERIFY_PAUSE_MARGIN_PERCENT] = 3;
	p->verify_pause_margin_pct = 10;
	rt_guards_init(g, p);
	assert_true(g[RT_GUARD_CNP].on && g[RT_GUARD_PAUSE].on);
	assert_false(g[RT_GUARD_RETRANS].on);

	rt_guard_set_baseline(&g[RT_GUARD_CNP], 50);
	assert_true(g[RT_GUARD_CNP].limit == 150);	/* margin lower */
	rt_guard_set_baseline(&g[RT_GUARD_CNP], 950);
	assert_true(g[RT_GUARD_CNP].limit == 1000);	/* max lower */
	assert_true(rt_guard_check(&g[RT_GUARD_CNP], 1000));
	assert_true(g[RT_GUARD_CNP].ok);
	assert_false(rt_guard_check(&g[RT_GUARD_CNP], 1000.5));
	assert_false(g[RT_GUARD_CNP].ok);
	assert_true(g[RT_GUARD_CNP].observed == 1000.5);
	/* the highest interval stays the observed one */
	assert_true(rt_guard_check(&g[RT_GUARD_CNP], 3));
	assert_true(g[RT_GUARD_CNP].observed == 1000.5);

	/* a pause limit is at most 100 % */
	rt_guard_set_baseline(&g[RT_GUARD_PAUSE], 95);
	assert_true(g[RT_GUARD_PAUSE].limit == 100);
	/* a guard not in force never trips */
	rt_guard_set_baseline(&g[RT_GUARD_RETRANS], 0);
	assert_true(rt_guard_check(&g[RT_GUARD_RETRANS], 1e12));
	assert_true(g[RT_GUARD_RETRANS].ok);
}

static void durations(void **state)
{
	uint32_t ms = 0;

	(void)state;
	assert_int_equal(rt_parse_duration("30", &ms), 0);
	assert_int_equal(ms, 30000);
	assert_int_equal(rt_parse_duration("30s", &ms), 0);
	assert_int_equal(ms, 30000);
	assert_int_equal(rt_parse_duration("500ms", &ms), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(rt_parse_duration("2m", &ms), 0);
	assert_int_equal(ms, 120000);
	assert_int_equal(rt_parse_duration("24h", &ms), 0);
	assert_int_equal(ms, 86400000);
	assert_int_equal(rt_parse_duration("25h", &ms), -EINVAL);
	assert_int_equal(rt_parse_duration("0", &ms), -EINVAL);
	assert_int_equal(rt_parse_duration("", &ms), -EINVAL);
	assert_int_equal(rt_parse_duration("-1", &ms), -EINVAL);
	assert_int_equal(rt_parse_duration("10x", &ms), -EINVAL);
	assert_int_equal(rt_parse_duration("99999999999999999999", &ms),
			 -EINVAL);
}

static void verify_keys_parse_and_check(void **state)
{
	static const char good[] =
		"[Match]\n[Verify]\nForSec=10\nBaselineSec=2\nIntervalMs=250\n"
		"MaxPausePercent=20\nPauseMarginPercent=5\nMaxCNPRate=5000\n"
		"CNPRateMargin=100\nMaxRetransRate=10\nRetransRateMargin=1\n";
	static const char bad[] =
		"[Match]\n[Verify]\nForSec=0\nMaxPausePercent=101\nCNPRateMargin=-1\nForsec=3\n";
	static const char interval[] =
		"[Match]\n[Verify]\nBaselineSec=1\nIntervalMs=2000\n";
	struct rt_profile *p = malloc(sizeof(*p));
	struct rt_diag *d = calloc(1, sizeof(*d));
	FILE *f;

	(void)state;
	assert_non_null(p);
	assert_non_null(d);
	f = fmemopen((void *)good, sizeof(good) - 1, "r");
	assert_int_equal(rt_profile_parse_fp(f, "good.conf", p, d), 0);
	fclose(f);
	assert_true(rt_profile_has_verify(p));
	assert_int_equal(p->verify_for_s, 10);
	assert_int_equal(p->verify_baseline_s, 2);
	assert_int_equal(p->verify_interval_ms, 250);
	assert_int_equal(p->verify_max_pause_pct, 20);
	assert_int_equal(p->verify_pause_margin_pct, 5);
	assert_int_equal(p->verify_max_cnp, 5000);
	assert_int_equal(p->verify_cnp_margin, 100);
	assert_int_equal(p->verify_max_retrans, 10);
	assert_int_equal(p->verify_retrans_margin, 1);
	assert_string_equal(rt_pkey_section(RT_PK_VERIFY_INTERVAL_MS),
			    "Verify");
	assert_int_equal(rt_pkey_lookup("Verify", "IntervalMs"),
			 RT_PK_VERIFY_INTERVAL_MS);
	assert_int_equal(rt_pkey_lookup("Tune", "IntervalMs"),
			 RT_PK_TUNE_INTERVAL_MS);

	memset(d, 0, sizeof(*d));
	f = fmemopen((void *)bad, sizeof(bad) - 1, "r");
	assert_int_equal(rt_profile_parse_fp(f, "bad.conf", p, d), -EINVAL);
	fclose(f);
	assert_int_equal(d->n, 4);
	assert_non_null(strstr(d->msg[0], "bad.conf:3: [Verify] ForSec=0: out of range (decimal 1..86400, seconds)"));
	assert_non_null(strstr(d->msg[1], "[Verify] MaxPausePercent=101: out of range (decimal 0..100"));
	assert_non_null(strstr(d->msg[2], "[Verify] CNPRateMargin=-1: no sign allowed"));
	assert_non_null(strstr(d->msg[3], "[Verify] Forsec=3: unknown key (did you mean ForSec?"));

	memset(d, 0, sizeof(*d));
	f = fmemopen((void *)interval, sizeof(interval) - 1, "r");
	assert_int_equal(rt_profile_parse_fp(f, "iv.conf", p, d), -EINVAL);
	fclose(f);
	assert_int_equal(d->n, 1);
	assert_non_null(strstr(d->msg[0], "iv.conf:4: [Verify] IntervalMs=2000: longer than the baseline (BaselineSec=1)"));
	free(p);
	free(d);
}

/* A model NIC with one setting (PFC) and scripted counters --------------- */

struct vmodel {
	struct rt_state st;
	unsigned int writes;
	bool drift;		/* the driver drops PFC after the apply */
	bool link_down;		/* the link goes down after the apply */
	bool crash_in_watch;	/* the process dies during the watch */
	uint64_t cnp_per_tick;	/* CNPs per 100 ms before the apply */
	uint64_t cnp_after;	/* ... after it */
	uint64_t t_ms, cnp;
	/* Pause counters as mlx5 has them: only on priorities with PFC on. */
	bool pause_with_pfc;
	uint64_t pause_per_tick;	/* us paused per 100 ms after the apply */
	uint64_t pause_us;
};

static int vm_read(void *ctx, const struct rt_nic *nic, unsigned int need,
		   struct rt_nic_state *ns, char *msg, size_t len)
{
	struct vmodel *m = ctx;

	(void)nic;
	(void)need;
	(void)msg;
	(void)len;
	ns->st = m->st;
	ns->dcb_ok = ns->has_ets = ns->has_pfc = ns->has_buffer = true;
	ns->has_maxrate = ns->storm_ok = ns->cc_ok = true;
	return 0;
}

static int vm_write(void *ctx, const struct rt_nic *nic,
		    const struct rt_setting *want,
		    const struct rt_setting *cur, char *msg, size_t len)
{
	struct vmodel *m = ctx;
	unsigned int i;

	(void)nic;
	(void)cur;
	(void)msg;
	(void)len;
	m->writes++;
	for (i = 0; i < m->st.n; i++) {
		if (m->st.s[i].kind == want->kind &&
		    m->st.s[i].key == want->key) {
			m->st.s[i] = *want;
			return 0;
		}
	}
	return -ENOENT;
}

static const struct rt_backend_ops vm_ops = {
	.read = vm_read,
	.write = vm_write,
};

static bool vm_applied(const struct vmodel *m)
{
	return rt_state_find(&m->st, RT_SK_PFC, 0)->v[0] == (1u << 3);
}

static int vm_sample(struct rt_verify *v, const struct rt_nic *nic,
		     struct rt_vsample *s, char *msg, size_t len)
{
	struct vmodel *m = v->io_arg;

	(void)nic;
	(void)msg;
	(void)len;
	memset(s, 0, sizeof(*s));
	s->t_ns = m->t_ms * 1000000ull;
	s->cnp_ok = s->retrans_ok = true;
	s->cnp = m->cnp;
	if (m->pause_with_pfc) {
		s->pause_mask = (uint8_t)rt_state_find(&m->st, RT_SK_PFC, 0)->v[0];
		s->pause_ok = s->pause_mask;
		s->pause_us[3] = m->pause_us;
	}
	return 0;
}

static int vm_link(struct rt_verify *v, const struct rt_nic *nic)
{
	struct vmodel *m = v->io_arg;

	(void)nic;
	return m->link_down && vm_applied(m) ? 0 : 1;
}

static void vm_sleep(struct rt_verify *v, unsigned int ms)
{
	struct vmodel *m = v->io_arg;
	unsigned int t;

	for (t = 0; t < ms; t += 100) {
		m->t_ms += 100;
		m->cnp += vm_applied(m) ? m->cnp_after : m->cnp_per_tick;
		m->pause_us += vm_applied(m) ? m->pause_per_tick : 0;
	}
	if (vm_applied(m) && m->drift)
		m->st.s[0].v[0] = 0;	/* PFC, the only setting */
	if (vm_applied(m) && m->crash_in_watch)
		_exit(9);
}

static const struct rt_verify_io vm_io = {
	.sample = vm_sample,
	.link = vm_link,
	.sleep_ms = vm_sleep,
};

struct vfix {
	struct vmodel m, orig;
	struct rt_nic nic;
	struct rt_profile p;
	struct rt_apply_result res;
	struct rt_verify v;
};

static char rundir[64];

static int setup_rundir(void **state)
{
	(void)state;
	strcpy(rundir, "/tmp/rt-test-verify-XXXXXX");
	if (!mkdtemp(rundir))
		return -1;
	setenv("ROCETUNE_RUN_DIR", rundir, 1);
	return 0;
}

static int teardown_rundir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", rundir);
	return system(cmd);
}

static struct vfix *vfix_new(void)
{
	struct vfix *f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct rt_setting *s;

	assert_true(f != MAP_FAILED);
	s = rt_state_add(&f->m.st, RT_SK_PFC, 0);
	s->n = 4;
	s->v[1] = 7;
	s->v[3] = 8;
	f->m.cnp_per_tick = 10;		/* 100 CNPs/s */
	f->m.cnp_after = 10;
	f->orig = f->m;
	strcpy(f->nic.id.netdev, "vmodel0");
	strcpy(f->nic.id.driver, "model");
	f->nic.ifindex = 7;
	strcpy(f->p.path, "v.conf");
	f->p.name = f->p.path;
	f->p.line[RT_PK_PFC] = 3;
	f->p.pfc_en = 1 << 3;
	f->p.verify_for_s = 2;
	f->p.verify_baseline_s = 1;
	f->p.verify_interval_ms = 500;
	f->p.line[RT_PK_VERIFY_CNP_RATE_MARGIN] = 4;
	f->p.verify_cnp_margin = 50;
	return f;
}

static int vfix_apply(struct vfix *f)
{
	struct rt_apply_opts o = { .lock_wait_ms = 1000 };
	int r;

	rt_verify_init(&f->v, &f->p, 0, &vm_io, &f->m);
	o.verify = &f->v.hook;
	r = rt_apply_nic_opts(&vm_ops, &f->m, &f->nic, &f->p, &o, &f->res);
	return rt_verify_exit(r, &f->res, &f->v);
}

static bool vm_same(const struct vmodel *a, const struct vmodel *b)
{
	return rt_setting_equal(rt_state_find(&a->st, RT_SK_PFC, 0),
				rt_state_find(&b->st, RT_SK_PFC, 0));
}

static void clean_apply_is_kept(void **state)
{
	struct vfix *f = vfix_new();

	(void)state;
	f->m.cnp_after = 14;		/* 140/s: within 100 + 50 */
	assert_int_equal(vfix_apply(f), 0);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	assert_true(f->v.verified);
	assert_false(f->v.tripped);
	assert_true(vm_applied(&f->m));
	assert_int_equal(f->v.samples, 4);	/* 2 s by 500 ms */
	assert_true(f->v.g[RT_GUARD_CNP].baseline == 100);
	assert_true(f->v.g[RT_GUARD_CNP].limit == 150);
	assert_true(f->v.g[RT_GUARD_CNP].observed == 140);
	assert_false(rt_journal_pending("vmodel0"));
	/* again: unchanged, nothing watched, exit 0 */
	rt_verify_init(&f->v, &f->p, 0, &vm_io, &f->m);
	assert_int_equal(vfix_apply(f), 0);
	assert_int_equal(f->res.result, RT_RES_UNCHANGED);
	assert_false(f->v.started);
	munmap(f, sizeof(*f));
}

static void counter_rise_rolls_back_exit_3(void **state)
{
	struct vfix *f = vfix_new();

	(void)state;
	f->m.cnp_after = 16;		/* 160/s > 150 */
	assert_int_equal(vfix_apply(f), 3);
	assert_int_equal(f->res.result, RT_RES_ROLLED_BACK);
	assert_true(f->v.tripped);
	assert_false(f->v.verified);
	assert_false(f->v.g[RT_GUARD_CNP].ok);
	assert_int_equal(f->v.samples, 1);	/* the first interval trips */
	assert_non_null(strstr(f->v.reason, "guard cnp-rate tripped 500 ms after the apply: 160.00 over the limit 150.00 (baseline 100.00)"));
	assert_non_null(strstr(f->res.error, "verification failed: guard cnp-rate"));
	assert_true(vm_same(&f->m, &f->orig));
	assert_int_equal(f->m.writes, 2);	/* the apply and its restore */
	assert_false(rt_journal_pending("vmodel0"));
	munmap(f, sizeof(*f));
}

static void max_alone_limits(void **state)
{
	struct vfix *f = vfix_new();

	(void)state;
	f->p.line[RT_PK_VERIFY_CNP_RATE_MARGIN] = 0;
	f->p.line[RT_PK_VERIFY_MAX_CNP_RATE] = 4;
	f->p.verify_max_cnp = 90;	/* below the baseline itself */
	assert_int_equal(vfix_apply(f), 3);
	assert_true(f->v.g[RT_GUARD_CNP].limit == 90);
	assert_true(vm_same(&f->m, &f->orig));
	munmap(f, sizeof(*f));
}

static void link_down_and_drift_roll_back(void **state)
{
	struct vfix *f = vfix_new();

	(void)state;
	f->m.link_down = true;
	assert_int_equal(vfix_apply(f), 3);
	assert_non_null(strstr(f->v.reason, "the link of vmodel0 went down 500 ms after the apply"));
	assert_true(vm_same(&f->m, &f->orig));
	munmap(f, sizeof(*f));

	f = vfix_new();
	f->m.drift = true;
	assert_int_equal(vfix_apply(f), 3);
	assert_non_null(strstr(f->v.reason, "a setting no longer reads back: pfc"));
	assert_true(vm_same(&f->m, &f->orig));
	munmap(f, sizeof(*f));
}

/* A guard whose counters the NIC never shows, before or after the apply. */
static void guard_never_measured_rolls_back(void **state)
{
	struct vfix *f = vfix_new();

	(void)state;
	f->p.line[RT_PK_VERIFY_MAX_PAUSE_PERCENT] = 5;	/* no pause_ok */
	f->p.verify_max_pause_pct = 5;
	assert_int_equal(vfix_apply(f), 3);
	assert_int_equal(f->res.result, RT_RES_ROLLED_BACK);
	assert_int_equal(f->v.g[RT_GUARD_PAUSE].measured, 0);
	assert_non_null(strstr(f->v.reason, "guard pause-percent was never measured in 2000 ms"));
	assert_true(vm_same(&f->m, &f->orig));
	assert_false(rt_journal_pending("vmodel0"));
	munmap(f, sizeof(*f));
}

/*
 * Pause counters that come with PFC (mlx5): a profile turning PFC on from
 * none keeps a clean watch and rolls back a paused one.
 */
static void pause_counters_come_with_pfc(void **state)
{
	struct vfix *f = vfix_new();

	(void)state;
	f->m.st.s[0].v[0] = 0;		/* PFC, the only setting: none */
	f->orig = f->m;
	f->m.pause_with_pfc = true;
	f->p.line[RT_PK_VERIFY_MAX_PAUSE_PERCENT] = 5;
	f->p.verify_max_pause_pct = 20;
	assert_int_equal(vfix_apply(f), 0);
	assert_true(f->v.verified);
	assert_true(f->v.g[RT_GUARD_PAUSE].measured >= 2);
	assert_true(vm_applied(&f->m));
	munmap(f, sizeof(*f));

	f = vfix_new();
	f->m.st.s[0].v[0] = 0;		/* PFC, the only setting: none */
	f->orig = f->m;
	f->m.pause_with_pfc = true;
	f->m.pause_per_tick = 50000;	/* 50 % */
	f->p.line[RT_PK_VERIFY_MAX_PAUSE_PERCENT] = 5;
	f->p.verify_max_pause_pct = 20;
	assert_int_equal(vfix_apply(f), 3);
	assert_non_null(strstr(f->v.reason, "guard pause-percent tripped 1000 ms after the apply: 50.00 over the limit 20.00"));
	assert_true(vm_same(&f->m, &f->orig));
	munmap(f, sizeof(*f));
}

static void crash_during_watch_is_restored_next_run(void **state)
{
	struct vfix *f = vfix_new();
	int status;
	pid_t pid;

	(void)state;
	f->m.crash_in_watch = true;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		vfix_apply(f);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	assert_true(vm_applied(&f->m));
	assert_true(rt_journal_pending("vmodel0"));
	/* the next run restores the journal first, then applies again */
	f->m.crash_in_watch = false;
	f->m.cnp_after = 10;
	assert_int_equal(vfix_apply(f), 0);
	assert_true(f->res.recovered);
	assert_int_equal(f->res.recovered_writes, 1);
	assert_false(rt_journal_pending("vmodel0"));
	munmap(f, sizeof(*f));
}

static void exit_codes(void **state)
{
	struct rt_apply_result res = { .result = RT_RES_ROLLED_BACK };
	struct rt_verify v = { .tripped = true };

	(void)state;
	assert_int_equal(rt_verify_exit(-1, &res, &v), 3);
	/* rolled back for another reason (a write failed): 1 */
	v.tripped = false;
	assert_int_equal(rt_verify_exit(-1, &res, &v), 1);
	/* the watch tripped but the restore failed: 1 */
	v.tripped = true;
	res.result = RT_RES_ROLLBACK_FAILED;
	assert_int_equal(rt_verify_exit(-1, &res, &v), 1);
	res.result = RT_RES_APPLIED;
	v.tripped = false;
	assert_int_equal(rt_verify_exit(0, &res, &v), 0);
	assert_int_equal(rt_verify_exit(0, &res, NULL), 0);
	assert_int_equal(rt_verify_exit(-1, &res, NULL), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rates_and_resets),
		cmocka_unit_test(pause_percent_is_the_worst_priority),
		cmocka_unit_test(limits_lowest_of_max_and_margin),
		cmocka_unit_test(durations),
		cmocka_unit_test(verify_keys_parse_and_check),
		cmocka_unit_test(clean_apply_is_kept),
		cmocka_unit_test(counter_rise_rolls_back_exit_3),
		cmocka_unit_test(max_alone_limits),
		cmocka_unit_test(link_down_and_drift_roll_back),
		cmocka_unit_test(guard_never_measured_rolls_back),
		cmocka_unit_test(pause_counters_come_with_pfc),
		cmocka_unit_test(crash_during_watch_is_restored_next_run),
		cmocka_unit_test(exit_codes),
	};

	return cmocka_run_group_tests(tests, setup_rundir, teardown_rundir);
}
