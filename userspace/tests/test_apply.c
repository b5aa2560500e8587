// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the apply engine (lib/rt_apply.c, lib/rt_want.c) against a
 * model NIC: a backend that keeps the settings in memory, counts writes,
 * and can fail, ignore a write, lose the device or die (as under SIGKILL)
 * at a chosen write.  The real backends are tested in the VM
 * (selftests/profile_apply.sh) with the real kernel and a test driver.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "rt_apply.h"
#include "rt_rxecc.h"

/* How the model NIC takes an add for a DSCP that has an entry. */
enum model_app {
	MODEL_APP_REPLACE,		/* the old entry goes (mlx5) */
	MODEL_APP_APPEND,		/* a second entry (bnxt_en) */
	MODEL_APP_REFUSE,		/* EINVAL (ice) */
};

struct model {
	struct rt_state st;
	enum model_app app;
	bool has_maxrate;
	unsigned int writes;
	unsigned int reads;
	unsigned int fail_at;		/* 1-based write that fails, 0 none */
	int fail_err;
	unsigned int ignore_at;		/* write that is ignored */
	unsigned int gone_at;		/* write after which the NIC is gone */
	unsigned int crash_at;		/* write at which the process dies */
	unsigned int rename_at;		/* write after which it is "model1" */
	char name[16];			/* the NIC's name and ifindex now: */
	int ifindex;			/* others are refused, as rt_want.c */
	bool gone;
	bool rxe;			/* refuses a min rate above the max,
					 * as rocetune.ko does */
	unsigned int rxe_refused;	/* writes it refused so */
	enum rt_set_kind order[RT_SET_MAX * 2];
	bool order_absent[RT_SET_MAX * 2];
	unsigned int order_key[RT_SET_MAX * 2];
	unsigned int order_prio[RT_SET_MAX * 2];	/* DSCP: of the entry */
};

/* One DSCP APP entry added (@want) or deleted (@cur's), as a driver. */
static int model_app_write(struct model *m, struct rt_setting *s,
			   const struct rt_setting *want,
			   const struct rt_setting *cur)
{
	unsigned int mask = rt_dscp_mask(s);
	unsigned int p = (unsigned int)(want->absent ? cur->v[0] :
						       want->v[0]);

	if (want->absent) {
		if (cur->absent)
			return 0;
		if (!(mask & (1u << p)))
			return -ENOENT;
		mask &= ~(1u << p);
		p = mask ? (unsigned int)__builtin_ctz(mask) : 0;
	} else if (mask & (1u << p)) {
		return m->app == MODEL_APP_REPLACE ? 0 : -EEXIST;
	} else if (mask && m->app == MODEL_APP_REFUSE) {
		return -EINVAL;
	} else {
		mask = m->app == MODEL_APP_APPEND ? mask | 1u << p : 1u << p;
	}
	s->absent = !mask;
	s->n = 2;
	s->v[0] = mask ? p : 0;
	s->v[1] = mask;
	return 0;
}

/* The system backend's contract: the name must lead to the ifindex. */
static int model_same_nic(const struct model *m, const struct rt_nic *nic,
			  char *msg, size_t len)
{
	if (!strcmp(nic->id.netdev, m->name) && nic->ifindex == m->ifindex)
		return 0;
	snprintf(msg, len, "%s is %s now", nic->id.netdev,
		 nic->ifindex == m->ifindex ? "renamed" : "another device");
	return nic->ifindex == m->ifindex ? -ESTALE : -ENODEV;
}

static int model_read(void *ctx, const struct rt_nic *nic, unsigned int need,
		      struct rt_nic_state *ns, char *msg, size_t len)
{
	struct model *m = ctx;
	unsigned int i;
	int err;

	m->reads++;
	if (m->gone) {
		snprintf(msg, len, "gone");
		return -ENODEV;
	}
	err = model_same_nic(m, nic, msg, len);
	if (err)
		return err;
	for (i = 0; i < m->st.n; i++) {
		enum rt_set_kind k = m->st.s[i].kind;

		if ((k == RT_SK_CC && !(need & RT_NEED_CC)) ||
		    (k == RT_SK_PFC_STORM && !(need & RT_NEED_STORM)) ||
		    (k != RT_SK_CC && k != RT_SK_PFC_STORM &&
		     !(need & RT_NEED_DCB)))
			continue;
		ns->st.s[ns->st.n++] = m->st.s[i];
	}
	ns->dcb_ok = true;
	ns->has_ets = ns->has_pfc = ns->has_buffer = true;
	ns->has_maxrate = m->has_maxrate;
	ns->storm_ok = true;
	ns->cc_ok = true;
	return 0;
}

static int model_write(void *ctx, const struct rt_nic *nic,
		       const struct rt_setting *want,
		       const struct rt_setting *cur, char *msg, size_t len)
{
	struct model *m = ctx;
	struct rt_setting *s;
	unsigned int i;
	int err;

	if (m->gone)
		return -ENODEV;
	err = model_same_nic(m, nic, msg, len);
	if (err)
		return err;
	m->writes++;
	if (m->writes == m->rename_at)
		strcpy(m->name, "model1");
	m->order[m->writes - 1] = want->kind;
	m->order_absent[m->writes - 1] = want->absent;
	m->order_key[m->writes - 1] = want->key;
	m->order_prio[m->writes - 1] = (unsigned int)(want->absent ?
						      cur->v[0] : want->v[0]);
	if (m->writes == m->crash_at)
		_exit(9);
	if (m->writes == m->fail_at) {
		snprintf(msg, len, "refused by the model");
		return m->fail_err;
	}
	if (m->writes == m->gone_at)
		m->gone = true;
	if (m->writes == m->ignore_at)
		return 0;
	if (m->rxe && want->kind == RT_SK_CC &&
	    (want->key == RT_DCQCN_MIN_RATE_MBPS ||
	     want->key == RT_DCQCN_MAX_RATE_MBPS)) {
		const struct rt_setting *o = rt_state_find(&m->st, RT_SK_CC,
			want->key == RT_DCQCN_MIN_RATE_MBPS ?
			RT_DCQCN_MAX_RATE_MBPS : RT_DCQCN_MIN_RATE_MBPS);

		if (o && (want->key == RT_DCQCN_MIN_RATE_MBPS ?
			  want->v[0] > o->v[0] : want->v[0] < o->v[0])) {
			m->rxe_refused++;
			snprintf(msg, len, "minimum rate above the maximum");
			return -EINVAL;
		}
	}
	for (i = 0; i < m->st.n; i++) {
		s = &m->st.s[i];
		if (s->kind != want->kind || s->key != want->key)
			continue;
		if (want->kind == RT_SK_DSCP) {
			err = model_app_write(m, s, want, cur);

			if (err)
				snprintf(msg, len, "APP entry refused");
			return err;
		}
		*s = *want;
		return 0;
	}
	return -ENOENT;
}

static const struct rt_backend_ops model_ops = {
	.read = model_read,
	.write = model_write,
};

static void model_init(struct model *m)
{
	struct rt_setting *s;
	unsigned int i;

	memset(m, 0, sizeof(*m));
	strcpy(m->name, "model0");
	m->ifindex = 42;
	m->fail_err = -EINVAL;
	m->has_maxrate = true;
	s = rt_state_add(&m->st, RT_SK_ETS, 0);
	s->n = 24;
	for (i = 0; i < 8; i++) {
		s->v[i] = i;
		s->v[8 + i] = RT_TSA_ETS;
		s->v[16 + i] = i < 4 ? 12 : 13;
	}
	s = rt_state_add(&m->st, RT_SK_PFC, 0);
	s->n = 4;
	s->v[1] = 7;
	s->v[3] = 8;
	s = rt_state_add(&m->st, RT_SK_MAXRATE, 0);
	s->n = 8;
	s = rt_state_add(&m->st, RT_SK_BUFFER, 0);
	s->n = 16;
	for (i = 0; i < RT_NDSCP; i++) {
		s = rt_state_add(&m->st, RT_SK_DSCP, i);
		s->n = 1;
		s->absent = i != 10;	/* one stray entry: dscp 10 -> 1 */
		s->v[0] = s->absent ? 0 : 1;
	}
	s = rt_state_add(&m->st, RT_SK_PFC_STORM, 0);
	s->n = 1;
	s->v[0] = 8000;
	for (i = 0; i < RT_CC_KEY_MAX; i++) {
		if (!rt_cc_file(RT_CC_MLX5, i))
			continue;
		s = rt_state_add(&m->st, RT_SK_CC, i);
		s->n = 1;
		s->v[0] = i == RT_CC_KEY_CNP_PRIO_MODE ? 1 : 5;
	}
}

static void nic_init(struct rt_nic *nic)
{
	memset(nic, 0, sizeof(*nic));
	strcpy(nic->id.netdev, "model0");
	strcpy(nic->id.driver, "model");
	nic->ifindex = 42;
	nic->cc = RT_CC_MLX5;
}

/* Lossless RoCE on DSCP 26 / priority 3, CNPs on DSCP 48 / priority 6. */
static void profile_init(struct rt_profile *p)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	strcpy(p->path, "test.conf");
	p->name = p->path;
	p->line[RT_PK_TRUST] = 3;
	p->trust = RT_TRUST_DSCP;
	p->line[RT_PK_DSCP_TO_PRIORITY] = 4;
	for (i = 0; i < RT_NDSCP; i++)
		p->dscp_prio[i] = -1;
	p->dscp_prio[26] = 3;
	p->dscp_prio[48] = 6;
	p->line[RT_PK_PFC] = 5;
	p->pfc_en = 1 << 3;
	p->line[RT_PK_ETS_BANDWIDTH] = 6;
	p->ets_bw[0] = 50;
	p->ets_bw[3] = 50;
	p->line[RT_PK_PRIORITY_TO_TC] = 7;
	p->prio_tc[3] = 3;
	p->line[RT_PK_PFC_STORM_TIMEOUT_MS] = 8;
	p->pfc_storm_tout = RT_PFC_STORM_AUTO;
	p->line[RT_PK_DCQCN + RT_DCQCN_CNP_DSCP] = 10;
	p->dcqcn[RT_DCQCN_CNP_DSCP] = 48;
	p->line[RT_PK_DCQCN + RT_DCQCN_CNP_PRIORITY] = 11;
	p->dcqcn[RT_DCQCN_CNP_PRIORITY] = 6;
}

static char rundir[64];

static int setup_rundir(void **state)
{
	(void)state;
	strcpy(rundir, "/tmp/rt-test-apply-XXXXXX");
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

struct fixture {
	struct model m;
	struct model orig;
	struct rt_nic nic;
	struct rt_profile p;
	struct rt_apply_result res;
};

/* In shared memory: the model outlives a child that dies mid-apply. */
static struct fixture *fixture_new(void)
{
	struct fixture *f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(f != MAP_FAILED);
	model_init(&f->m);
	f->orig = f->m;
	nic_init(&f->nic);
	profile_init(&f->p);
	return f;
}

static void fixture_free(struct fixture *f)
{
	munmap(f, sizeof(*f));
}

static bool model_same(const struct model *a, const struct model *b)
{
	unsigned int i;

	if (a->st.n != b->st.n)
		return false;
	for (i = 0; i < a->st.n; i++)
		if (!rt_setting_equal(&a->st.s[i], &b->st.s[i]))
			return false;
	return true;
}

static const struct rt_setting *model_get(const struct model *m,
					  enum rt_set_kind kind,
					  unsigned int key)
{
	return rt_state_find(&m->st, kind, key);
}

static void apply_then_zero_writes(void **state)
{
	struct fixture *f = fixture_new();
	unsigned int writes;

	(void)state;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	/* ETS, PFC, storm, dscp 10 removed, 26 and 48 added, 2 cc files */
	assert_int_equal(f->res.nchanges, 8);
	assert_int_equal(f->res.writes, 8);
	assert_int_equal(f->m.writes, 8);
	assert_int_equal(model_get(&f->m, RT_SK_PFC, 0)->v[0], 1 << 3);
	assert_int_equal(model_get(&f->m, RT_SK_PFC, 0)->v[1], 7);
	assert_true(model_get(&f->m, RT_SK_DSCP, 10)->absent);
	assert_int_equal(model_get(&f->m, RT_SK_DSCP, 26)->v[0], 3);
	assert_int_equal(model_get(&f->m, RT_SK_CC, RT_DCQCN_CNP_DSCP)->v[0],
			 48);
	/* mlx5 switches the mode itself (the model does not) */
	assert_int_equal(model_get(&f->m, RT_SK_CC,
				   RT_CC_KEY_CNP_PRIO_MODE)->v[0], 1);
	assert_int_equal(model_get(&f->m, RT_SK_ETS, 0)->v[3], 3);
	assert_int_equal(model_get(&f->m, RT_SK_ETS, 0)->v[16], 50);
	assert_int_equal(model_get(&f->m, RT_SK_ETS, 0)->v[17], 0);

	writes = f->m.writes;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_int_equal(f->res.result, RT_RES_UNCHANGED);
	assert_int_equal(f->res.writes, 0);
	assert_int_equal(f->m.writes, writes);
	fixture_free(f);
}

static int phase_of(const struct model *m, unsigned int i)
{
	switch (m->order[i]) {
	case RT_SK_DSCP:
		return m->order_absent[i] ? 0 : 2;
	case RT_SK_CC:
		return 3;
	default:
		return 1;
	}
}

static void writes_in_safe_order(void **state)
{
	struct fixture *f = fixture_new();
	unsigned int i;

	(void)state;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	for (i = 1; i < f->m.writes; i++)
		assert_true(phase_of(&f->m, i - 1) <= phase_of(&f->m, i));
	/* ETS before PFC: the class exists before it is lossless */
	assert_int_equal(f->m.order[1], RT_SK_ETS);
	assert_int_equal(f->m.order[2], RT_SK_PFC);
	fixture_free(f);
}

static void dry_run_writes_nothing(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, true,
				      &f->res), 0);
	assert_int_equal(f->res.result, RT_RES_DRY_RUN);
	assert_int_equal(f->res.nchanges, 8);
	assert_int_equal(f->m.writes, 0);
	assert_true(model_same(&f->m, &f->orig));
	fixture_free(f);
}

/* A failure at any write leaves the NIC exactly as it was. */
static void failure_at_each_write_rolls_back(void **state)
{
	unsigned int k;

	(void)state;
	for (k = 1; k <= 8; k++) {
		struct fixture *f = fixture_new();

		f->m.fail_at = k;
		assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic,
					      &f->p, false, &f->res), -1);
		assert_int_equal(f->res.result, RT_RES_ROLLED_BACK);
		assert_int_equal(f->res.writes, k);
		assert_int_equal(f->res.restore_writes, k - 1);
		assert_non_null(strstr(f->res.error, "refused by the model"));
		assert_true(model_same(&f->m, &f->orig));
		assert_false(rt_journal_pending("model0"));
		fixture_free(f);
	}
}

/* A driver that reports success but keeps nothing: read-back catches it. */
static void ignored_write_is_caught_and_rolled_back(void **state)
{
	unsigned int k;

	(void)state;
	for (k = 1; k <= 8; k++) {
		struct fixture *f = fixture_new();

		f->m.ignore_at = k;
		assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic,
					      &f->p, false, &f->res), -1);
		assert_int_equal(f->res.result, RT_RES_ROLLED_BACK);
		assert_non_null(strstr(f->res.error, "read back"));
		assert_true(model_same(&f->m, &f->orig));
		fixture_free(f);
	}
}

static void restore_failure_is_reported(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	f->m.fail_at = 4;
	f->m.ignore_at = 6;	/* the second restoring write is lost */
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_ROLLBACK_FAILED);
	assert_non_null(strstr(f->res.state, "NOT as it was"));
	/* The journal stays, so that the next apply restores first. */
	assert_true(rt_journal_pending("model0"));
	f->m.fail_at = 0;
	f->m.ignore_at = 0;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_true(f->res.recovered);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	assert_false(rt_journal_pending("model0"));
	fixture_free(f);
}

static void nic_vanishing_mid_apply(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	f->m.gone_at = 3;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_VANISHED);
	assert_false(rt_journal_pending("model0"));
	fixture_free(f);
}

/* An apply killed after 3 writes is undone by the next one. */
static void crash_is_recovered_from_the_journal(void **state)
{
	struct fixture *f = fixture_new();
	int status;
	pid_t pid;

	(void)state;
	f->m.crash_at = 4;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
			     &f->res);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	assert_true(rt_journal_pending("model0"));
	assert_false(model_same(&f->m, &f->orig));
	f->m.crash_at = 0;
	f->m.writes = 0;
	/* A dry run only reads; it leaves the journal to the next apply. */
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, true,
				      &f->res), 0);
	assert_true(rt_journal_pending("model0"));
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_true(f->res.recovered);
	assert_int_equal(f->res.recovered_writes, 3);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	assert_false(rt_journal_pending("model0"));
	fixture_free(f);
}

static void nic_without_maxrate_is_invalid(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	f->m.has_maxrate = false;
	f->p.line[RT_PK_MAX_RATE_MBPS] = 9;
	f->p.maxrate_mbps[3] = 10000;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_INVALID);
	assert_int_equal(f->m.writes, 0);
	assert_int_equal(f->res.diag.n, 1);
	assert_non_null(strstr(f->res.diag.msg[0],
			       "test.conf:9: [Lossless] MaxRateMbps"));
	fixture_free(f);
}

static void vendor_width_and_missing_key(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	f->nic.cc = RT_CC_BNXT_RE;
	f->p.line[RT_PK_DCQCN + RT_DCQCN_G] = 12;
	f->p.dcqcn[RT_DCQCN_G] = 1019;		/* 8 bits on bnxt_re */
	f->p.line[RT_PK_DCQCN + RT_DCQCN_AI_RATE_MBPS] = 13;
	f->p.dcqcn[RT_DCQCN_AI_RATE_MBPS] = 5;	/* no bnxt_re file */
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_INVALID);
	assert_int_equal(f->m.writes, 0);
	assert_int_equal(f->res.diag.n, 2);
	assert_non_null(strstr(f->res.diag.msg[0], "AIRateMbps"));
	assert_non_null(strstr(f->res.diag.msg[1], "8-bit field"));
	fixture_free(f);
}

static void ets_sum_checked_on_the_merged_state(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	/* Only TSA given: TC 0 strict leaves 88% to the ETS classes. */
	f->p.line[RT_PK_ETS_BANDWIDTH] = 0;
	f->p.line[RT_PK_TSA] = 6;
	memset(f->p.tsa, RT_TSA_ETS, sizeof(f->p.tsa));
	f->p.tsa[0] = RT_TSA_STRICT;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_INVALID);
	assert_non_null(strstr(f->res.diag.msg[0], "88%"));
	fixture_free(f);
}

/* rxe (rocetune.ko) -------------------------------------------------- */

/*
 * The module's attribute ranges, written out here from
 * kmod/rocetune_qp_nl_set.c's policy (not taken from rt_rxecc.c).
 */
static const struct {
	unsigned int key;
	uint32_t lo, hi;
} rxe_ranges[] = {
	{ RT_DCQCN_MIN_TIME_BETWEEN_CNPS_US, 0, 1000000 },
	{ RT_DCQCN_RATE_REDUCE_MONITOR_PERIOD_US, 0, 1000000 },
	{ RT_DCQCN_MIN_RATE_MBPS, 12, 1000000 },
	{ RT_DCQCN_MAX_RATE_MBPS, 12, 1000000 },
	{ RT_DCQCN_AI_RATE_MBPS, 0, 1000000 },
	{ RT_DCQCN_HAI_RATE_MBPS, 0, 1000000 },
	{ RT_DCQCN_TIME_RESET_US, 0, 1000000 },
	{ RT_DCQCN_BYTE_RESET_BYTES, 0, UINT32_MAX },
	{ RT_DCQCN_THRESHOLD, 1, 31 },
	{ RT_DCQCN_INITIAL_ALPHA, 0, 1023 },
	{ RT_DCQCN_G, 0, 1023 },
	{ RT_DCQCN_DCE_TCP_RTT_US, 1, 1000000 },
	{ RT_DCQCN_GD, 0, 15 },
	{ RT_DCQCN_MIN_DECREASE_FACTOR_PERCENT, 0, 100 },
	{ RT_DCQCN_RATE_ON_FIRST_CNP_MBPS, 0, 1000000 },
	{ RT_DCQCN_CLAMP_TARGET_RATE, 0, 1 },
	{ RT_DCQCN_CLAMP_TARGET_RATE_AFTER_TIME_INC, 0, 1 },
	{ RT_DCQCN_CNP_DSCP, 0, 63 },
	{ RT_DCQCN_CNP_PRIORITY, 0, 7 },
	{ RT_DCQCN_ENABLE, 0, 1 },
};

static void rxe_mapping_and_ranges(void **state)
{
	char msg[256];
	size_t i;

	(void)state;
	/* Every key is mapped: none forgotten. */
	assert_int_equal(sizeof(rxe_ranges) / sizeof(rxe_ranges[0]),
			 RT_DCQCN_NUM);
	assert_null(rt_rxe_param(RT_DCQCN_NUM));
	assert_int_equal(rt_rxe_check(RT_DCQCN_NUM, 0, "rxe0", msg,
				      sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "rxe (rocetune.ko)"));
	for (i = 0; i < sizeof(rxe_ranges) / sizeof(rxe_ranges[0]); i++) {
		unsigned int k = rxe_ranges[i].key;
		uint32_t lo = rxe_ranges[i].lo, hi = rxe_ranges[i].hi;
		char val[16];

		assert_non_null(rt_rxe_param(k));
		assert_int_equal(rt_rxe_check(k, lo, "rxe0", msg,
					      sizeof(msg)), 0);
		assert_int_equal(rt_rxe_check(k, hi, "rxe0", msg,
					      sizeof(msg)), 0);
		if (lo > 0) {
			assert_int_equal(rt_rxe_check(k, lo - 1, "rxe7", msg,
						      sizeof(msg)), -EINVAL);
			snprintf(val, sizeof(val), "%u", lo - 1);
			assert_non_null(strstr(msg, val));
			assert_non_null(strstr(msg, "rxe7"));
		}
		if (hi < UINT32_MAX) {
			assert_int_equal(rt_rxe_check(k, hi + 1, "rxe7", msg,
						      sizeof(msg)), -EINVAL);
			snprintf(val, sizeof(val), "%u", hi + 1);
			assert_non_null(strstr(msg, val));
			assert_non_null(strstr(msg, "rxe7"));
		}
	}
	/* MaxRateMbps=0 is the line rate elsewhere: said so. */
	assert_int_equal(rt_rxe_check(RT_DCQCN_MAX_RATE_MBPS, 0, "rxe0", msg,
				      sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "line rate"));
}

/* A model rxe: every parameter of rocetune.ko, NP/RP/accounting off. */
static void rxe_fixture(struct fixture *f)
{
	struct rt_setting *s;
	size_t i;

	memset(&f->m.st, 0, sizeof(f->m.st));
	f->m.rxe = true;
	for (i = 0; i < sizeof(rxe_ranges) / sizeof(rxe_ranges[0]); i++) {
		s = rt_state_add(&f->m.st, RT_SK_CC, rxe_ranges[i].key);
		s->n = rxe_ranges[i].key == RT_DCQCN_ENABLE ? 3 : 1;
		s->v[0] = rxe_ranges[i].lo ? rxe_ranges[i].lo :
			  rxe_ranges[i].hi < 5 ? rxe_ranges[i].hi : 5;
		if (rxe_ranges[i].key == RT_DCQCN_ENABLE)
			s->v[0] = 0;
	}
	s = (struct rt_setting *)model_get(&f->m, RT_SK_CC,
					   RT_DCQCN_MAX_RATE_MBPS);
	s->v[0] = 100;
	f->orig = f->m;
	f->nic.cc = RT_CC_RXE;
	strcpy(f->nic.id.rdma_dev, "rxe0");
	profile_init(&f->p);
	memset(f->p.line, 0, sizeof(f->p.line));
}

static void rxe_set(struct fixture *f, unsigned int key, uint32_t v,
		    unsigned int line)
{
	f->p.line[RT_PK_DCQCN + key] = line;
	f->p.dcqcn[key] = v;
}

static void rxe_out_of_range(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	rxe_fixture(f);
	rxe_set(f, RT_DCQCN_AI_RATE_MBPS, 7, 3);
	rxe_set(f, RT_DCQCN_CNP_DSCP, 48, 4);
	rxe_set(f, RT_DCQCN_MIN_RATE_MBPS, 5, 5);
	rxe_set(f, RT_DCQCN_RATE_ON_FIRST_CNP_MBPS, 2000000, 6);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_INVALID);
	assert_int_equal(f->m.writes, 0);
	assert_int_equal(f->res.diag.n, 2);
	assert_non_null(strstr(f->res.diag.msg[0],
			       "test.conf:5: [DCQCN] MinRateMbps: 5 is out of range for rxe0"));
	assert_non_null(strstr(f->res.diag.msg[0], "12..1000000 Mb/s"));
	assert_non_null(strstr(f->res.diag.msg[1],
			       "test.conf:6: [DCQCN] RateOnFirstCNPMbps: 2000000 is out of range for rxe0"));
	assert_true(model_same(&f->m, &f->orig));
	fixture_free(f);
}

/* A minimum above the maximum the apply leaves: refused before writing. */
static void rxe_min_above_max(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	rxe_fixture(f);		/* max 100 */
	rxe_set(f, RT_DCQCN_MIN_RATE_MBPS, 500, 7);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_INVALID);
	assert_int_equal(f->m.writes, 0);
	assert_non_null(strstr(f->res.diag.msg[0],
			       "[DCQCN] MinRateMbps: rxe0 would get a minimum rate of 500 Mb/s above its maximum of 100 Mb/s"));
	fixture_free(f);
}

static void rxe_profile(struct fixture *f)
{
	rxe_fixture(f);		/* min 12, max 100, all off */
	rxe_set(f, RT_DCQCN_ENABLE, 1, 3);
	rxe_set(f, RT_DCQCN_MIN_RATE_MBPS, 500, 4);
	rxe_set(f, RT_DCQCN_MAX_RATE_MBPS, 1000, 5);
	rxe_set(f, RT_DCQCN_AI_RATE_MBPS, 7, 6);
	rxe_set(f, RT_DCQCN_DCE_TCP_RTT_US, 60, 7);
}

/*
 * Enable= turns accounting, NP and RP on, last; the rates move so that
 * the minimum never exceeds the maximum, on apply and on every restore.
 */
static void rxe_apply_order_and_rollback(void **state)
{
	const struct rt_setting *en;
	unsigned int k;
	struct fixture *f = fixture_new();

	(void)state;
	rxe_profile(f);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	assert_int_equal(f->m.writes, 5);
	assert_int_equal(f->m.rxe_refused, 0);
	en = model_get(&f->m, RT_SK_CC, RT_DCQCN_ENABLE);
	assert_int_equal(en->n, 3);
	assert_true(en->v[0] && en->v[1] && en->v[2]);
	assert_int_equal(model_get(&f->m, RT_SK_CC,
				   RT_DCQCN_MIN_RATE_MBPS)->v[0], 500);
	assert_int_equal(model_get(&f->m, RT_SK_CC,
				   RT_DCQCN_DCE_TCP_RTT_US)->v[0], 60);
	fixture_free(f);

	for (k = 1; k <= 5; k++) {
		f = fixture_new();
		rxe_profile(f);
		f->m.fail_at = k;
		assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic,
					      &f->p, false, &f->res), -1);
		assert_int_equal(f->res.result, RT_RES_ROLLED_BACK);
		assert_int_equal(f->m.rxe_refused, 0);
		assert_true(model_same(&f->m, &f->orig));
		fixture_free(f);
	}
	/* Enable was the last write: a failure there undoes all four. */
	f = fixture_new();
	rxe_profile(f);
	f->m.fail_at = 5;
	rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false, &f->res);
	assert_non_null(strstr(f->res.error, "dcqcn Enable"));
	assert_int_equal(f->res.restore_writes, 4);
	fixture_free(f);
}

/* Enable=no: NP and RP off, the accounting as it was. */
static void rxe_disable_keeps_accounting(void **state)
{
	struct rt_setting *en;
	struct fixture *f = fixture_new();

	(void)state;
	rxe_fixture(f);
	en = (struct rt_setting *)model_get(&f->m, RT_SK_CC, RT_DCQCN_ENABLE);
	en->v[0] = en->v[1] = en->v[2] = 1;
	rxe_set(f, RT_DCQCN_ENABLE, 0, 3);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	en = (struct rt_setting *)model_get(&f->m, RT_SK_CC, RT_DCQCN_ENABLE);
	assert_int_equal(en->v[0], 1);
	assert_int_equal(en->v[1], 0);
	assert_int_equal(en->v[2], 0);
	fixture_free(f);
}

/* Model DSCP @dscp with entries for the priorities in @mask, @first first. */
static void model_dscp(struct model *m, unsigned int dscp, unsigned int mask,
		       unsigned int first)
{
	struct rt_setting *s = (struct rt_setting *)model_get(m, RT_SK_DSCP,
							      dscp);

	s->n = 2;
	s->absent = !mask;
	s->v[0] = first;
	s->v[1] = mask;
}

/* The writes to DSCP @dscp, as "+P" (add) and "-P" (delete), in order. */
static void dscp_ops(const struct model *m, unsigned int dscp, char *buf,
		     size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < m->writes && off < len; i++)
		if (m->order[i] == RT_SK_DSCP && m->order_key[i] == dscp)
			off += (size_t)snprintf(buf + off, len - off, "%s%c%u",
						off ? " " : "",
						m->order_absent[i] ? '-' : '+',
						m->order_prio[i]);
}

/*
 * DSCP 26 on priority 1, the profile wants 3: the old entry is deleted
 * before the new one is added, whatever the driver does with an add for
 * a mapped DSCP, and exactly one entry is left.
 */
static void dscp_remap_deletes_then_adds(void **state)
{
	static const enum model_app apps[] = {
		MODEL_APP_REPLACE, MODEL_APP_APPEND, MODEL_APP_REFUSE,
	};
	char ops[64];
	unsigned int a;

	(void)state;
	for (a = 0; a < sizeof(apps) / sizeof(apps[0]); a++) {
		struct fixture *f = fixture_new();

		f->m.app = apps[a];
		model_dscp(&f->m, 26, 1 << 1, 1);
		assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic,
					      &f->p, false, &f->res), 0);
		assert_int_equal(f->res.result, RT_RES_APPLIED);
		dscp_ops(&f->m, 26, ops, sizeof(ops));
		assert_string_equal(ops, "-1 +3");
		assert_int_equal(rt_dscp_mask(model_get(&f->m, RT_SK_DSCP, 26)),
				 1 << 3);
		assert_int_equal(f->res.writes, f->m.writes);
		fixture_free(f);
	}
}

/* mlx5 replaces a mapped DSCP's entry itself: a remap is one add. */
static void dscp_remap_on_mlx5_is_one_add(void **state)
{
	struct fixture *f = fixture_new();
	char ops[64];

	(void)state;
	strcpy(f->nic.id.driver, "mlx5_core");
	model_dscp(&f->m, 26, 1 << 1, 1);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	dscp_ops(&f->m, 26, ops, sizeof(ops));
	assert_string_equal(ops, "+3");
	assert_int_equal(rt_dscp_mask(model_get(&f->m, RT_SK_DSCP, 26)),
			 1 << 3);
	fixture_free(f);
}

/*
 * A failure at any write of an apply with a remap, on a driver that
 * appends and on one that refuses: the rollback brings DSCP 26 back to
 * its one entry, and re-adds the old entry only after the new one is
 * gone.
 */
static void dscp_remap_failure_rolls_back(void **state)
{
	static const enum model_app apps[] = {
		MODEL_APP_APPEND, MODEL_APP_REFUSE,
	};
	unsigned int a, k, n;

	(void)state;
	for (a = 0; a < sizeof(apps) / sizeof(apps[0]); a++) {
		struct fixture *f = fixture_new();

		f->m.app = apps[a];
		model_dscp(&f->m, 26, 1 << 1, 1);
		f->orig = f->m;
		assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic,
					      &f->p, false, &f->res), 0);
		n = f->m.writes;
		fixture_free(f);
		for (k = 1; k <= n; k++) {
			f = fixture_new();
			f->m.app = apps[a];
			model_dscp(&f->m, 26, 1 << 1, 1);
			f->orig = f->m;
			f->m.fail_at = k;
			assert_int_equal(rt_apply_nic(&model_ops, &f->m,
						      &f->nic, &f->p, false,
						      &f->res), -1);
			assert_int_equal(f->res.result, RT_RES_ROLLED_BACK);
			assert_true(model_same(&f->m, &f->orig));
			assert_int_equal(rt_dscp_mask(model_get(&f->m,
								RT_SK_DSCP,
								26)),
					 1 << 1);
			fixture_free(f);
		}
	}
}

/*
 * Two entries for DSCP 26 (3, and 5 added later, as bnxt_en keeps them)
 * differ from the profile's 26:3: apply deletes both (bnxt_en's firmware
 * unmaps the DSCP on either delete) and adds 26:3 again; then nothing is
 * left to do.
 */
static void dscp_duplicate_is_drift(void **state)
{
	struct fixture *f = fixture_new();
	char ops[64];

	(void)state;
	f->m.app = MODEL_APP_APPEND;
	model_dscp(&f->m, 26, (1 << 3) | (1 << 5), 5);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, true,
				      &f->res), 0);
	assert_int_equal(f->res.result, RT_RES_DRY_RUN);
	assert_int_equal(f->m.writes, 0);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	dscp_ops(&f->m, 26, ops, sizeof(ops));
	assert_string_equal(ops, "-3 -5 +3");
	assert_int_equal(rt_dscp_mask(model_get(&f->m, RT_SK_DSCP, 26)),
			 1 << 3);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_int_equal(f->res.result, RT_RES_UNCHANGED);
	fixture_free(f);
}

/* Restoring a duplicated DSCP adds its missing entries back. */
static void dscp_duplicate_is_restored(void **state)
{
	struct fixture *f = fixture_new();
	const struct rt_setting *s;
	char ops[64];

	(void)state;
	f->m.app = MODEL_APP_APPEND;
	model_dscp(&f->m, 26, (1 << 3) | (1 << 5), 5);
	f->orig = f->m;
	f->m.ignore_at = 1;	/* the read-back fails: everything restored */
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_ROLLED_BACK);
	assert_true(model_same(&f->m, &f->orig));
	s = model_get(&f->m, RT_SK_DSCP, 26);
	assert_int_equal(rt_dscp_mask(s), (1 << 3) | (1 << 5));
	assert_int_equal(s->v[0], 5);
	/* applied: both deleted, 26:3 added; restored: 26:5 added again */
	dscp_ops(&f->m, 26, ops, sizeof(ops));
	assert_string_equal(ops, "-3 -5 +3 +5");
	fixture_free(f);
}

/*
 * bnxt_en refuses PFC until ETS has been set once and reads an empty ETS
 * until then: a PFC change with no ETS write is refused before any
 * write, naming the rule; with ETS in the profile it applies, ETS first.
 */
static void bnxt_pfc_needs_ets_first(void **state)
{
	struct fixture *f = fixture_new();
	struct rt_setting *ets;
	unsigned int i;

	(void)state;
	strcpy(f->nic.id.driver, "bnxt_en");
	ets = (struct rt_setting *)model_get(&f->m, RT_SK_ETS, 0);
	memset(ets->v, 0, sizeof(ets->v));
	f->orig = f->m;
	f->p.line[RT_PK_ETS_BANDWIDTH] = 0;
	f->p.line[RT_PK_PRIORITY_TO_TC] = 0;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_INVALID);
	assert_int_equal(f->m.writes, 0);
	assert_int_equal(f->res.diag.n, 1);
	assert_non_null(strstr(f->res.diag.msg[0],
			       "[Lossless] PFC: bnxt_en refuses PFC until ETS has been set once"));

	/* the same without a PFC change: nothing to refuse */
	f->p.line[RT_PK_PFC] = 0;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, true,
				      &f->res), 0);

	/* with ETS in the profile: applied, the ETS write before PFC's */
	fixture_free(f);
	f = fixture_new();
	strcpy(f->nic.id.driver, "bnxt_en");
	ets = (struct rt_setting *)model_get(&f->m, RT_SK_ETS, 0);
	memset(ets->v, 0, sizeof(ets->v));
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	for (i = 0; i < f->m.writes && f->m.order[i] != RT_SK_PFC; i++)
		;
	assert_true(i < f->m.writes);
	while (i-- > 0 && f->m.order[i] != RT_SK_ETS)
		;
	assert_true(i < f->m.writes);
	fixture_free(f);
}

/* The index of the first write of @kind at or after @from, or -1. */
static int write_index(const struct model *m, enum rt_set_kind kind,
		       unsigned int from)
{
	unsigned int i;

	for (i = from; i < m->writes; i++)
		if (m->order[i] == kind)
			return (int)i;
	return -1;
}

/* Model PFC on @en and buffer 1 of @size bytes. */
static void model_pfc_buffer(struct model *m, unsigned int en,
			     unsigned int size)
{
	((struct rt_setting *)model_get(m, RT_SK_PFC, 0))->v[0] = en;
	((struct rt_setting *)model_get(m, RT_SK_BUFFER, 0))->v[9] = size;
}

/* The profile: PFC on @en, buffer 1 of @size bytes. */
static void profile_pfc_buffer(struct rt_profile *p, unsigned int en,
			       unsigned int size)
{
	p->pfc_en = (uint8_t)en;
	p->line[RT_PK_BUFFER_SIZE_BYTES] = 12;
	p->buffer_size[1] = size;
}

/*
 * PFC on and a bigger buffer: the buffer grows before PFC goes on; the
 * restore after a failure at the last write turns PFC off before the
 * buffer shrinks.  And the other way round.
 */
static void pfc_and_buffer_ordered_by_direction(void **state)
{
	struct fixture *f = fixture_new();
	unsigned int n;
	int b, pfc;

	(void)state;
	profile_pfc_buffer(&f->p, 1 << 3, 65536);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	n = f->m.writes;
	fixture_free(f);

	f = fixture_new();
	profile_pfc_buffer(&f->p, 1 << 3, 65536);
	f->m.fail_at = n;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_ROLLED_BACK);
	b = write_index(&f->m, RT_SK_BUFFER, 0);
	pfc = write_index(&f->m, RT_SK_PFC, 0);
	assert_true(b >= 0 && pfc > b);		/* apply: grow, then on */
	b = write_index(&f->m, RT_SK_BUFFER, n);
	pfc = write_index(&f->m, RT_SK_PFC, n);
	assert_true(pfc >= 0 && b > pfc);	/* restore: off, then shrink */
	assert_true(model_same(&f->m, &f->orig));
	fixture_free(f);

	/* PFC off and a smaller buffer: off first, on again last */
	f = fixture_new();
	model_pfc_buffer(&f->m, 1 << 3, 65536);
	f->orig = f->m;
	profile_pfc_buffer(&f->p, 0, 0);
	f->m.fail_at = n;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_ROLLED_BACK);
	b = write_index(&f->m, RT_SK_BUFFER, 0);
	pfc = write_index(&f->m, RT_SK_PFC, 0);
	assert_true(pfc >= 0 && b > pfc);
	b = write_index(&f->m, RT_SK_BUFFER, n);
	pfc = write_index(&f->m, RT_SK_PFC, n);
	assert_true(b >= 0 && pfc > b);
	assert_true(model_same(&f->m, &f->orig));
	fixture_free(f);
}

/*
 * PFC moving from priority 4 to 3 with a buffer change: 4 goes off
 * before the buffers change, 3 comes on after (one write more).
 */
static void pfc_move_with_buffer_is_split(void **state)
{
	struct fixture *f = fixture_new();
	int b, off, on;

	(void)state;
	model_pfc_buffer(&f->m, 1 << 4, 65536);
	profile_pfc_buffer(&f->p, 1 << 3, 131072);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	off = write_index(&f->m, RT_SK_PFC, 0);
	b = write_index(&f->m, RT_SK_BUFFER, 0);
	on = write_index(&f->m, RT_SK_PFC, (unsigned int)off + 1);
	assert_true(off >= 0 && b > off && on > b);
	assert_int_equal(f->m.order_prio[off], 0);
	assert_int_equal(f->m.order_prio[on], 1 << 3);
	assert_int_equal(model_get(&f->m, RT_SK_PFC, 0)->v[0], 1 << 3);
	assert_int_equal(f->res.writes, f->m.writes);
	fixture_free(f);
}

/* Journals (lib/rt_run.c) ------------------------------------------------ */

/* Kill an apply of @f at write @k, as SIGKILL would: it leaves a journal. */
static void crash_apply_at(struct fixture *f, unsigned int k)
{
	int status;
	pid_t pid;

	f->m.crash_at = k;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
			     &f->res);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	f->m.crash_at = 0;
	f->m.writes = 0;
}

static void write_run_file(const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", rundir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* Discard the journals of @netdev; how many there were. */
static unsigned int discard(const char *netdev)
{
	struct rt_journal *v = NULL;
	unsigned int n = 0;
	char msg[512] = "";
	int ret;

	ret = rt_journal_discard(netdev, &v, &n, msg, sizeof(msg));
	assert_true(ret >= 0);
	assert_int_equal((unsigned int)ret, n);
	free(v);
	return n;
}

#define JHEAD	"rocetune-journal 1\nnetdev model0\nifindex 42\npid 7\n"

/*
 * A damaged journal: the apply writes nothing and says which file and
 * line and why, the journal stays and is stuck, discard lets applies go
 * on.  Out-of-range values (which a write would truncate into others)
 * are damage too.
 */
static void damaged_journal_blocks_until_discarded(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ JHEAD "s 1 0 0 4 256 7 0 8\n", "line 5: pfc value 0 is 256, above 255" },
		{ JHEAD "s 0 0 0 24 0 0 0 9 0 0 0 0 2 2 2 2 2 2 2 2 50 50 0 0 0 0 0 0\n", "traffic class" },
		{ JHEAD "s 4 26 0 2 8 1\n", "no DSCP entry" },
		{ JHEAD "s 6 0 0 1 65536\n", "above 65535" },
		{ JHEAD "s 7 3 0 1 4294967296\n", "above 4294967295" },
		{ JHEAD "s 1 0 0 4 8 7 0\n", "fewer values than N" },
		{ JHEAD "s 1 0 0 4 8 7 0 8 9\n", "more values than N" },
		{ JHEAD "s 1 0 0 4 -1 7 0 8\n", "not a number" },
		{ JHEAD "s 1 0 0 4 8 7 0 8\ns 1 0 0 4 8 7 0 8\n", "pfc twice" },
		{ JHEAD "s 9 0 0 1 0\n", "not \"s KIND" },
		{ JHEAD "s 1 0 0 4 8 7 0 8", "cut off in its last line" },
		{ JHEAD "colour blue\n", "unknown key" },
		{ "rocetune-journal 1\nnetdev model0\npid 7\n", "no ifindex line" },
		{ "rocetune-journal 1\nnetdev eth9\nifindex 42\npid 7\n", "names netdev eth9, not model0" },
		{ "garbage\n", "line 1: not a rocetune journal" },
		{ "", "empty" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture *f = fixture_new();
		char why[1024];

		write_run_file("model0.journal", cases[i].text);
		assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic,
					      &f->p, false, &f->res), -1);
		assert_int_equal(f->res.result, RT_RES_ERROR);
		if (!strstr(f->res.error, cases[i].why))
			fail_msg("case %u: \"%s\" does not say \"%s\"", i,
				 f->res.error, cases[i].why);
		assert_non_null(strstr(f->res.error, "model0.journal is damaged"));
		assert_non_null(strstr(f->res.error, "journal discard dev model0"));
		assert_int_equal(f->m.writes, 0);
		assert_true(model_same(&f->m, &f->orig));
		assert_true(rt_journal_pending("model0"));
		assert_int_equal(rt_journal_status(&f->nic, why, sizeof(why)),
				 RT_JOURNAL_STUCK);
		/* It stays stuck: the next apply fails the same way. */
		assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic,
					      &f->p, false, &f->res), -1);
		assert_int_equal(discard("model0"), 1);
		assert_false(rt_journal_pending("model0"));
		assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic,
					      &f->p, false, &f->res), 0);
		assert_int_equal(f->res.result, RT_RES_APPLIED);
		assert_false(f->res.recovered);
		fixture_free(f);
	}
}

/*
 * The NIC of that name is another device now (another ifindex: it was
 * removed and re-created after a killed apply): its journal is not
 * restored onto it, nor deleted; the apply says so until it is discarded.
 */
static void foreign_ifindex_journal_is_kept_until_discarded(void **state)
{
	struct fixture *f = fixture_new();
	struct model half;
	char why[1024];

	(void)state;
	crash_apply_at(f, 4);
	half = f->m;
	f->nic.ifindex = 43;
	f->m.ifindex = 43;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_ERROR);
	assert_non_null(strstr(f->res.error, "when it was ifindex 42"));
	assert_non_null(strstr(f->res.error, "now ifindex 43"));
	assert_non_null(strstr(f->res.error, "journal discard dev model0"));
	assert_int_equal(f->m.writes, 0);
	assert_true(model_same(&f->m, &half));
	assert_true(rt_journal_pending("model0"));
	assert_int_equal(rt_journal_status(&f->nic, why, sizeof(why)),
			 RT_JOURNAL_STUCK);
	assert_int_equal(discard("model0"), 1);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	assert_false(f->res.recovered);
	fixture_free(f);
}

/* Same ifindex, another driver: ifindex reused by another device. */
static void journal_of_another_device_is_refused(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	crash_apply_at(f, 4);
	strcpy(f->nic.id.driver, "other");
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_non_null(strstr(f->res.error, "driver model"));
	assert_int_equal(f->m.writes, 0);
	assert_int_equal(discard("model0"), 1);
	fixture_free(f);
}

/* A NIC renamed after a killed apply: its journal is found by ifindex. */
static void renamed_nic_recovers_its_journal(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	crash_apply_at(f, 4);
	strcpy(f->nic.id.netdev, "model1");
	strcpy(f->m.name, "model1");
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_true(f->res.recovered);
	assert_int_equal(f->res.recovered_writes, 3);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	assert_false(rt_journal_pending("model0"));
	assert_false(rt_journal_pending("model1"));
	fixture_free(f);
}

/*
 * Renamed mid-apply: no write goes by the old name once it leads
 * elsewhere, nothing is "restored" through it, the journal stays and the
 * NIC under its new name restores it.
 */
static void rename_mid_apply_stops_and_keeps_the_journal(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	f->m.rename_at = 3;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_int_equal(f->res.result, RT_RES_VANISHED);
	assert_int_equal(f->m.writes, 3);
	assert_int_equal(f->res.restore_writes, 0);
	assert_non_null(strstr(f->res.error, "renamed"));
	assert_non_null(strstr(f->res.state, "new name"));
	assert_true(rt_journal_pending("model0"));
	strcpy(f->nic.id.netdev, "model1");
	f->m.writes = 0;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_true(f->res.recovered);
	assert_int_equal(f->res.recovered_writes, 3);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	assert_false(rt_journal_pending("model0"));
	fixture_free(f);
}

/* A restore of a journal that fails is counted in it and tried again. */
static void failed_recovery_is_counted_and_retried(void **state)
{
	struct fixture *f = fixture_new();
	struct rt_journal *j = calloc(1, sizeof(*j));
	char path[256], why[1024];

	(void)state;
	assert_non_null(j);
	crash_apply_at(f, 4);
	f->m.fail_at = 1;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), -1);
	assert_non_null(strstr(f->res.error, "restoring it failed (1 time)"));
	snprintf(path, sizeof(path), "%s/model0.journal", rundir);
	assert_int_equal(rt_journal_read(path, j), 0);
	assert_int_equal(j->failures, 1);
	assert_non_null(strstr(j->last_error, "NOT as it was"));
	assert_int_equal(j->ifindex, 42);
	assert_string_equal(j->driver, "model");
	assert_true(j->time > 0);
	assert_int_equal(j->snap.n, 9);	/* and cnp-prio-mode */
	assert_int_equal(rt_journal_status(&f->nic, why, sizeof(why)),
			 RT_JOURNAL_STUCK);
	assert_non_null(strstr(why, "failed 1 time"));
	f->m.fail_at = 0;
	f->m.writes = 0;
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_true(f->res.recovered);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	assert_int_equal(rt_journal_status(&f->nic, why, sizeof(why)),
			 RT_JOURNAL_NONE);
	free(j);
	fixture_free(f);
}

/* Discard takes the NIC's locks without waiting: a live apply keeps it. */
static void discard_leaves_a_running_apply_alone(void **state)
{
	struct fixture *f = fixture_new();
	struct rt_journal *v = NULL;
	unsigned int n = 9;
	char msg[512] = "";
	int fds[2];

	(void)state;
	crash_apply_at(f, 4);
	assert_int_equal(rt_nic_lock(&f->nic, fds, msg, sizeof(msg)), 0);
	assert_int_equal(rt_journal_discard("model0", &v, &n, msg,
					    sizeof(msg)), -EBUSY);
	assert_int_equal(n, 0);
	assert_non_null(strstr(msg, "an apply is running"));
	assert_true(rt_journal_pending("model0"));
	rt_nic_unlock(fds);
	assert_int_equal(discard("model0"), 1);
	fixture_free(f);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* An apply to the NIC under another name waits for the ifindex lock. */
static void lock_is_keyed_by_ifindex_too(void **state)
{
	struct fixture *f = fixture_new();
	struct rt_nic other = f->nic;
	char msg[512] = "";
	int fds[2], status;
	double t0;
	pid_t pid;

	(void)state;
	strcpy(other.id.netdev, "model1");
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (rt_nic_lock(&other, fds, msg, sizeof(msg)))
			_exit(1);
		usleep(600000);
		_exit(0);
	}
	usleep(200000);
	t0 = mono_s();
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	assert_true(mono_s() - t0 > 0.2);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fixture_free(f);
}

/*
 * Whoever must not wait (the agent) fails at once while another process
 * holds the lock, reading and writing nothing, and says lock_busy; a dry
 * run under the lock (the agent's drift check) as well, so that it never
 * reads the state of a half-done apply.
 */
static void nowait_apply_fails_at_once_while_locked(void **state)
{
	struct fixture *f = fixture_new();
	struct rt_apply_opts o = { .lock_wait_ms = 0 };
	char msg[512] = "";
	int fds[2], status, p2c[2], c2p[2];
	struct stat sb;
	char c = 0;
	double t0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p2c), 0);
	assert_int_equal(pipe(c2p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (rt_nic_lock(&f->nic, fds, msg, sizeof(msg)))
			_exit(1);
		if (write(c2p[1], &c, 1) != 1 || read(p2c[0], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	assert_int_equal(read(c2p[0], &c, 1), 1);
	t0 = mono_s();
	assert_int_equal(rt_apply_nic_opts(&model_ops, &f->m, &f->nic, &f->p,
					   &o, &f->res), -1);
	assert_true(mono_s() - t0 < 0.1);
	assert_true(f->res.lock_busy);
	assert_int_equal(f->res.result, RT_RES_ERROR);
	assert_non_null(strstr(f->res.error, "is locked by another rocetune"));
	assert_int_equal(f->m.writes, 0);
	assert_int_equal(f->m.reads, 0);
	o.dry_run = o.dry_run_locked = true;
	assert_int_equal(rt_apply_nic_opts(&model_ops, &f->m, &f->nic, &f->p,
					   &o, &f->res), -1);
	assert_true(f->res.lock_busy);
	assert_int_equal(f->m.reads, 0);
	/* The holder gone: both run, and an unlocked dry run never waited. */
	assert_int_equal(write(p2c[1], &c, 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(rt_apply_nic_opts(&model_ops, &f->m, &f->nic, &f->p,
					   &o, &f->res), 0);
	assert_false(f->res.lock_busy);
	assert_int_equal(f->res.result, RT_RES_DRY_RUN);
	o.dry_run = o.dry_run_locked = false;
	assert_int_equal(rt_apply_nic_opts(&model_ops, &f->m, &f->nic, &f->p,
					   &o, &f->res), 0);
	assert_int_equal(f->res.result, RT_RES_APPLIED);
	/* Unlocked emptied: no stale pid for the next holder's message. */
	snprintf(msg, sizeof(msg), "%s/%s.lock", getenv("ROCETUNE_RUN_DIR"),
		 f->nic.id.netdev);
	assert_int_equal(stat(msg, &sb), 0);
	assert_int_equal(sb.st_size, 0);
	close(p2c[0]);
	close(p2c[1]);
	close(c2p[0]);
	close(c2p[1]);
	fixture_free(f);
}

/* The run directory gets its one mode whatever the umask. */
static void run_dir_mode_ignores_the_umask(void **state)
{
	struct fixture *f = fixture_new();
	char sub[128], msg[256] = "";
	struct stat sb;
	mode_t old;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/sub", rundir);
	setenv("ROCETUNE_RUN_DIR", sub, 1);
	old = umask(077);
	assert_int_equal(rt_apply_nic(&model_ops, &f->m, &f->nic, &f->p, false,
				      &f->res), 0);
	umask(old);
	assert_int_equal(stat(sub, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0755);
	assert_int_equal(rmdir(sub), -1);	/* holds the lock files */
	setenv("ROCETUNE_RUN_DIR", rundir, 1);
	/* A symbolic link is refused. */
	assert_int_equal(system("rm -rf \"$ROCETUNE_RUN_DIR/sub\""), 0);
	assert_int_equal(symlink("/tmp", sub), 0);
	setenv("ROCETUNE_RUN_DIR", sub, 1);
	assert_int_equal(rt_run_dir_create(msg, sizeof(msg)), -ENOTDIR);
	assert_non_null(strstr(msg, "symbolic link"));
	setenv("ROCETUNE_RUN_DIR", rundir, 1);
	unlink(sub);
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(apply_then_zero_writes),
		cmocka_unit_test(writes_in_safe_order),
		cmocka_unit_test(dry_run_writes_nothing),
		cmocka_unit_test(failure_at_each_write_rolls_back),
		cmocka_unit_test(ignored_write_is_caught_and_rolled_back),
		cmocka_unit_test(restore_failure_is_reported),
		cmocka_unit_test(nic_vanishing_mid_apply),
		cmocka_unit_test(crash_is_recovered_from_the_journal),
		cmocka_unit_test(nic_without_maxrate_is_invalid),
		cmocka_unit_test(vendor_width_and_missing_key),
		cmocka_unit_test(ets_sum_checked_on_the_merged_state),
		cmocka_unit_test(rxe_mapping_and_ranges),
		cmocka_unit_test(rxe_out_of_range),
		cmocka_unit_test(rxe_min_above_max),
		cmocka_unit_test(rxe_apply_order_and_rollback),
		cmocka_unit_test(rxe_disable_keeps_accounting),
		cmocka_unit_test(dscp_remap_deletes_then_adds),
		cmocka_unit_test(dscp_remap_on_mlx5_is_one_add),
		cmocka_unit_test(dscp_remap_failure_rolls_back),
		cmocka_unit_test(dscp_duplicate_is_drift),
		cmocka_unit_test(dscp_duplicate_is_restored),
		cmocka_unit_test(bnxt_pfc_needs_ets_first),
		cmocka_unit_test(pfc_and_buffer_ordered_by_direction),
		cmocka_unit_test(pfc_move_with_buffer_is_split),
		cmocka_unit_test(damaged_journal_blocks_until_discarded),
		cmocka_unit_test(foreign_ifindex_journal_is_kept_until_discarded),
		cmocka_unit_test(journal_of_another_device_is_refused),
		cmocka_unit_test(renamed_nic_recovers_its_journal),
		cmocka_unit_test(rename_mid_apply_stops_and_keeps_the_journal),
		cmocka_unit_test(failed_recovery_is_counted_and_retried),
		cmocka_unit_test(discard_leaves_a_running_apply_alone),
		cmocka_unit_test(lock_is_keyed_by_ifindex_too),
		cmocka_unit_test(nowait_apply_fails_at_once_while_locked),
		cmocka_unit_test(run_dir_mode_ignores_the_umask),
	};

	return cmocka_run_group_tests_name("apply", tests, setup_rundir,
					   teardown_rundir);
}
