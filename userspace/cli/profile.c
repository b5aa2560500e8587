// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune profile: declarative tuning of the RoCE NICs.
 *
 *	rocetune profile check [ FILE... ]
 *	rocetune profile show [ dev NETDEV ]
 *	rocetune profile diff [ dev NETDEV ]
 *	rocetune profile apply [ dev NETDEV ] [ dry-run ]
 *		[ --verify | --verify-for DURATION ]
 *	rocetune profile journal { show | discard } ...	(cli/journal.c)
 *
 * Profiles are read from rt_profile_dir(); an invalid profile is never
 * applied (exit 2).  apply exits 0 when every NIC ends as its profile
 * says (or no profile matches it), 1 when one failed; with a watch
 * (rt_verify.h), 3 when one was rolled back because its watch failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rocetune.h"
#include "rt_apply.h"
#include "rt_nic.h"
#include "rt_profile.h"
#include "rt_rxecc.h"
#include "rt_sysio.h"
#include "rt_verify.h"

struct rt_profile_req {
	char dev[RT_NAME_LEN];		/* "" for every NIC */
	bool dry_run;
	bool verify;			/* --verify or --verify-for */
	uint32_t verify_ms;		/* --verify-for; 0: [Verify] ForSec= */
};

static int rt_profile_parse_req(struct rt_cli *cli, struct rt_profile_req *req,
				bool dry_run_ok)
{
	const char *v;

	memset(req, 0, sizeof(*req));
	while (rt_arg_peek(cli)) {
		if (rt_arg_is(cli, "dev")) {
			rt_arg_next(cli);
			v = rt_arg_next(cli);
			if (!v) {
				rt_usage_error("\"dev\" needs a network interface name");
				return RT_EXIT_USAGE;
			}
			if (strlen(v) >= sizeof(req->dev) || !v[0]) {
				rt_usage_error("\"%s\" is not a network interface name",
					       v);
				return RT_EXIT_USAGE;
			}
			snprintf(req->dev, sizeof(req->dev), "%s", v);
		} else if (dry_run_ok && rt_arg_is(cli, "dry-run")) {
			rt_arg_next(cli);
			req->dry_run = true;
		} else if (dry_run_ok && (rt_arg_is(cli, "--verify") ||
					  rt_arg_is(cli, "verify"))) {
			rt_arg_next(cli);
			req->verify = true;
		} else if (dry_run_ok && (rt_arg_is(cli, "--verify-for") ||
					  rt_arg_is(cli, "verify-for"))) {
			rt_arg_next(cli);
			v = rt_arg_next(cli);
			if (!v || rt_parse_duration(v, &req->verify_ms)) {
				rt_usage_error("\"--verify-for\" needs a duration: 30, 30s, 500ms, 2m or 1h (1 ms to 24 h), not \"%s\"",
					       v ? v : "");
				return RT_EXIT_USAGE;
			}
			req->verify = true;
		} else {
			rt_usage_error("unknown argument \"%s\"; try \"rocetune profile help\"",
				       rt_arg_peek(cli));
			return RT_EXIT_USAGE;
		}
	}
	return rt_cli_no_prometheus(cli);
}

static int rt_profile_dir_missing(void);

/*
 * The profiles of the directory; exit 2 (printed) when one is invalid or
 * the ROCETUNE_PROFILE_DIR named is missing.
 */
static int rt_profile_load(struct rt_profile_set *set)
{
	struct rt_diag *d;
	int err;

	if (rt_profile_dir_missing() == 2)
		return RT_EXIT_USAGE;
	d = calloc(1, sizeof(*d));
	if (!d) {
		rt_error("out of memory");
		return RT_EXIT_ERROR;
	}
	err = rt_profile_load_dir(rt_profile_dir(), set, d);
	if (err) {
		rt_diag_print(d, stderr);
		if (err == -EINVAL)
			rt_error("%u error%s in the profiles of %s: nothing applied",
				 d->n, d->n == 1 ? "" : "s", rt_profile_dir());
		else
			rt_error("cannot read the profiles of %s: %s",
				 rt_profile_dir(), strerror(-err));
		free(d);
		rt_profile_set_free(set);
		return RT_EXIT_USAGE;
	}
	free(d);
	return RT_EXIT_OK;
}

/*
 * @name is not a netdev: when it is an RDMA device, @msg says which netdev
 * carries it, the name profiles are applied by.
 */
static void rt_profile_rdma_hint(const char *name, char *msg, size_t len)
{
	struct rt_nic *all = NULL;
	int n, i;

	n = rt_nic_list(&all, NULL, 0);
	for (i = 0; i < n; i++) {
		if (strcmp(all[i].id.rdma_dev, name))
			continue;
		snprintf(msg, len,
			 "%s is an RDMA device, not a network interface: its netdev is %s, which its profile applies to (dev %s)",
			 name, all[i].id.netdev, all[i].id.netdev);
		break;
	}
	free(all);
}

/* The NICs to act on: every RoCE NIC, or the one named. */
static int rt_profile_nics(const struct rt_profile_req *req,
			   struct rt_nic **nics, unsigned int *n)
{
	char msg[512] = "";
	int ret;

	if (req->dev[0]) {
		*nics = calloc(1, sizeof(**nics));
		if (!*nics) {
			rt_error("out of memory");
			return RT_EXIT_ERROR;
		}
		ret = rt_nic_lookup(req->dev, *nics, msg, sizeof(msg));
		*n = 1;
	} else {
		ret = rt_nic_list(nics, msg, sizeof(msg));
		*n = ret > 0 ? (unsigned int)ret : 0;
	}
	if (ret < 0 && req->dev[0])
		rt_profile_rdma_hint(req->dev, msg, sizeof(msg));
	if (ret < 0) {
		rt_error("%s", msg);
		free(*nics);
		*nics = NULL;
		return RT_EXIT_ERROR;
	}
	return RT_EXIT_OK;
}

/*
 * rt_profile_begin() - what every command but check starts with: the
 * request, the profiles (exit 2 when one is invalid) and the NICs.  On
 * success the caller frees @set and *@nics.
 */
static int rt_profile_begin(struct rt_cli *cli, struct rt_profile_req *req,
			    bool dry_run_ok, struct rt_profile_set *set,
			    struct rt_nic **nics, unsigned int *n)
{
	int ret;

	ret = rt_profile_parse_req(cli, req, dry_run_ok);
	if (!ret)
		ret = rt_profile_load(set);
	if (ret)
		return ret;
	ret = rt_profile_nics(req, nics, n);
	if (ret)
		rt_profile_set_free(set);
	return ret;
}

static void rt_print_nic_id(struct rt_print *pr, const struct rt_nic *nic)
{
	rt_print_string(pr, RT_PRINT_ANY, "netdev", "%s:", nic->id.netdev);
	rt_print_string(pr, RT_PRINT_JSON, "rdma_device", NULL,
			nic->id.rdma_dev);
	rt_print_uint(pr, RT_PRINT_JSON, "port", NULL, nic->port);
	rt_print_string(pr, RT_PRINT_JSON, "driver", NULL, nic->id.driver);
	rt_print_string(pr, RT_PRINT_JSON, "bus_info", NULL, nic->id.bus_info);
}

static void rt_print_diag(struct rt_print *pr, const struct rt_diag *d)
{
	unsigned int i, n = d->n < RT_DIAG_MAX ? d->n : RT_DIAG_MAX;

	if (!n)
		return;
	rt_print_open_array(pr, "errors");
	for (i = 0; i < n; i++)
		rt_print_string(pr, RT_PRINT_ANY, NULL, "  %s\n", d->msg[i]);
	rt_print_close_array(pr);
}

/* One setting: old (when @with_old) and new; @differs < 0: not printed. */
static void rt_print_change(struct rt_print *pr, const struct rt_setting *old,
			    const struct rt_setting *want, bool with_old,
			    int differs)
{
	char name[64], a[256], b[256];

	rt_setting_name(want, name, sizeof(name));
	rt_setting_value(want, b, sizeof(b));
	rt_print_open_object(pr, NULL);
	rt_print_string(pr, RT_PRINT_ANY, "setting", "  %s: ", name);
	if (with_old) {
		rt_setting_value(old, a, sizeof(a));
		rt_print_string(pr, RT_PRINT_ANY, "old", "%s -> ", a);
	}
	rt_print_string(pr, RT_PRINT_ANY, "new", "%s\n", b);
	if (differs >= 0)
		rt_print_bool(pr, RT_PRINT_JSON, "differs", NULL, differs);
	rt_print_close_object(pr);
}

/* check ----------------------------------------------------------------- */

/*
 * Is the profile directory there?  A missing ROCETUNE_PROFILE_DIR, which
 * the user named, is an error (2); a missing /etc/rocetune a note: no NIC
 * has a profile.  0 when it exists, 1 for the note, 2 (printed) else.
 */
static int rt_profile_dir_missing(void)
{
	const char *dir = rt_profile_dir();
	struct stat sb;

	if (!stat(dir, &sb))
		return 0;
	if (errno != ENOENT)
		return 0;	/* rt_profile_load_dir() names the error */
	if (rt_profile_dir_explicit()) {
		rt_error("ROCETUNE_PROFILE_DIR=%s: no such directory", dir);
		return 2;
	}
	fprintf(stderr,
		"rocetune: note: there is no profile directory %s: no NIC has a profile, so \"profile apply\" changes nothing\n",
		dir);
	return 1;
}

/*
 * The DCB settings of @p against the rules of @nic's driver
 * (rt_drvcheck()), as diff and apply would hold them, each error naming
 * the NIC.  Only the DCB state is read (no privilege needed); a NIC whose
 * DCB cannot be read is left to diff and apply.
 */
static void rt_profile_check_driver(const struct rt_profile *p,
				    const struct rt_nic *nic,
				    struct rt_sys_ctx *ctx, struct rt_diag *d)
{
	struct rt_nic_state *ns = calloc(1, sizeof(*ns));
	struct rt_state *want = calloc(1, sizeof(*want));
	struct rt_diag *tmp = calloc(1, sizeof(*tmp));
	char msg[512];
	unsigned int i;

	if (!ns || !want || !tmp) {
		rt_diag_add(d, "out of memory");
		goto out;
	}
	if (rt_backend_sys.read(ctx, nic, RT_NEED_DCB, ns, msg, sizeof(msg)) ||
	    !ns->dcb_ok)
		goto out;
	rt_want_build(p, nic, ns, want, tmp);
	memset(tmp, 0, sizeof(*tmp));
	rt_drvcheck(p, nic, ns, want, tmp);
	for (i = 0; i < tmp->n && i < RT_DIAG_MAX; i++)
		rt_diag_add(d, "%s [on %s]", tmp->msg[i], nic->id.netdev);
out:
	free(tmp);
	free(want);
	free(ns);
}

/*
 * Each NIC @p is the profile of (@set: the first match wins, as in
 * apply; NULL: every NIC @p matches): its DCB settings against the NIC's
 * driver, its [DCQCN] values against the ranges of a software RoCE NIC,
 * with the messages diff and apply would give.
 */
static void rt_profile_check_nics(const struct rt_profile *p,
				  const struct rt_profile_set *set,
				  const struct rt_nic *nics, unsigned int n,
				  struct rt_diag *d)
{
	struct rt_sys_ctx ctx = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (set ? rt_profile_find(set, &nics[i].id) != p :
			  !rt_profile_match(p, &nics[i].id))
			continue;
		if (nics[i].cc == RT_CC_RXE)
			rt_rxe_check_profile(p, nics[i].id.rdma_dev, d);
		else if (rt_want_needs(p) & RT_NEED_DCB)
			rt_profile_check_driver(p, &nics[i], &ctx, d);
	}
	rt_sys_ctx_close(&ctx);
}

static int rt_profile_check(struct rt_cli *cli)
{
	struct rt_profile_set set = { 0 };
	struct rt_nic *nics = NULL;
	struct rt_profile *p;
	struct rt_diag *d;
	unsigned int i, nfiles = 0, nnics = 0;
	int ret = RT_EXIT_OK, missing = 0, nn;
	char msg[512] = "";

	if (rt_cli_no_prometheus(cli))
		return RT_EXIT_USAGE;
	d = calloc(1, sizeof(*d));
	p = calloc(1, sizeof(*p));
	if (!d || !p) {
		free(d);
		free(p);
		rt_error("out of memory");
		return RT_EXIT_ERROR;
	}
	/* The NICs, for their ranges; none (or no sysfs) checks only files. */
	nn = rt_nic_list(&nics, msg, sizeof(msg));
	if (nn > 0)
		nnics = (unsigned int)nn;
	else
		nics = NULL;
	if (rt_arg_peek(cli)) {
		while (rt_arg_peek(cli)) {
			if (!rt_profile_parse_file(rt_arg_next(cli), p, d))
				rt_profile_check_nics(p, NULL, nics, nnics, d);
			nfiles++;
		}
	} else {
		missing = rt_profile_dir_missing();
		if (missing == 2) {
			ret = RT_EXIT_USAGE;
			goto out;
		}
		rt_profile_load_dir(rt_profile_dir(), &set, d);
		nfiles = set.nfiles;
		for (i = 0; i < set.n; i++)
			rt_profile_check_nics(set.p[i], &set, nics, nnics, d);
	}
	rt_print_open_object(&cli->pr, NULL);
	rt_print_uint(&cli->pr, RT_PRINT_JSON, "files", NULL, nfiles);
	if (missing)
		rt_print_bool(&cli->pr, RT_PRINT_JSON, "no_directory", NULL,
			      true);
	rt_print_uint(&cli->pr, RT_PRINT_JSON, "error_count", NULL, d->n);
	rt_print_open_array(&cli->pr, "errors");
	for (i = 0; i < d->n && i < RT_DIAG_MAX; i++)
		rt_print_string(&cli->pr, RT_PRINT_JSON, NULL, NULL,
				d->msg[i]);
	rt_print_close_array(&cli->pr);
	rt_print_close_object(&cli->pr);
	if (!cli->json)
		rt_diag_print(d, stderr);
	if (d->n) {
		if (!cli->json)
			rt_error("%u error%s; an invalid profile is never applied",
				 d->n, d->n == 1 ? "" : "s");
		ret = RT_EXIT_USAGE;
	} else if (!cli->json && !missing) {
		printf("%u profile%s OK\n", nfiles, nfiles == 1 ? "" : "s");
	}
out:
	rt_profile_set_free(&set);
	free(nics);
	free(d);
	free(p);
	return ret;
}

/* show and diff --------------------------------------------------------- */

/* Read @nic and build what @p wants; 0, or -1 with the errors in @d. */
static int rt_profile_want(struct rt_sys_ctx *ctx, const struct rt_nic *nic,
			   const struct rt_profile *p,
			   struct rt_nic_state *ns, struct rt_state *want,
			   struct rt_diag *d)
{
	char msg[512] = "";
	int err;

	memset(ns, 0, sizeof(*ns));
	err = rt_backend_sys.read(ctx, nic, rt_want_needs(p), ns, msg,
				  sizeof(msg));
	if (err) {
		rt_diag_add(d, "%s", msg);
		return -1;
	}
	return rt_want_build(p, nic, ns, want, d) ? -1 : 0;
}

static int rt_profile_show_diff(struct rt_cli *cli, bool diff)
{
	struct rt_profile_set set = { 0 };
	struct rt_profile_req req;
	struct rt_sys_ctx ctx = { 0 };
	struct rt_nic_state *ns = NULL;
	struct rt_state *want = NULL;
	struct rt_diag *d = NULL;
	struct rt_nic *nics = NULL;
	unsigned int n, i, j, ndiff;
	bool differs = false, failed = false;
	enum rt_journal_state js;
	char why[1024];
	int ret;

	ret = rt_profile_begin(cli, &req, false, &set, &nics, &n);
	if (ret)
		return diff && ret == RT_EXIT_ERROR ? RT_EXIT_USAGE : ret;
	ns = calloc(1, sizeof(*ns));
	want = calloc(1, sizeof(*want));
	d = calloc(1, sizeof(*d));
	if (!ns || !want || !d) {
		rt_error("out of memory");
		ret = RT_EXIT_ERROR;
		goto out;
	}
	rt_print_open_array(&cli->pr, NULL);
	for (i = 0; i < n; i++) {
		const struct rt_profile *p = rt_profile_find(&set, &nics[i].id);

		rt_print_open_object(&cli->pr, NULL);
		rt_print_nic_id(&cli->pr, &nics[i]);
		if (!p) {
			rt_print_text(&cli->pr, " no profile matches\n");
			rt_print_close_object(&cli->pr);
			continue;
		}
		rt_print_string(&cli->pr, RT_PRINT_ANY, "profile",
				" profile %s", p->path);
		js = rt_journal_status(&nics[i], why, sizeof(why));
		if (js != RT_JOURNAL_NONE) {
			rt_print_bool(&cli->pr, RT_PRINT_JSON,
				      "interrupted_apply", NULL, true);
			rt_print_string(&cli->pr, RT_PRINT_JSON, "journal",
					NULL, rt_journal_state_name(js));
			if (js == RT_JOURNAL_STUCK)
				rt_print_text(&cli->pr,
					      " (a journal blocks applies: %s)",
					      why);
			else
				rt_print_text(&cli->pr,
					      " (an interrupted apply left a journal: the next apply restores it first)");
		}
		rt_print_text(&cli->pr, "\n");
		memset(d, 0, sizeof(*d));
		if (rt_profile_want(&ctx, &nics[i], p, ns, want, d)) {
			rt_print_diag(&cli->pr, d);
			rt_print_close_object(&cli->pr);
			failed = true;
			continue;
		}
		ndiff = 0;
		rt_print_open_array(&cli->pr, "settings");
		for (j = 0; j < want->n; j++) {
			const struct rt_setting *c;
			bool same;

			c = rt_state_find(&ns->st, want->s[j].kind,
					  want->s[j].key);
			same = c && rt_setting_equal(c, &want->s[j]);
			ndiff += !same;
			if (diff && same && !cli->json)
				continue;
			rt_print_change(&cli->pr, c ? c : &want->s[j],
					&want->s[j], diff && c,
					diff ? !same : -1);
		}
		rt_print_close_array(&cli->pr);
		if (diff) {
			const char *base = strrchr(p->path, '/');

			rt_print_bool(&cli->pr, RT_PRINT_JSON, "in_sync", NULL,
				      !ndiff);
			if (!ndiff)
				rt_print_text(&cli->pr, "  %s: in sync with %s\n",
					      nics[i].id.netdev,
					      base ? base + 1 : p->path);
			differs |= ndiff > 0;
		}
		rt_print_close_object(&cli->pr);
	}
	rt_print_close_array(&cli->pr);
	/* diff: like diff(1), 0 in sync, 1 differs, 2 trouble. */
	if (failed)
		ret = diff ? RT_EXIT_USAGE : RT_EXIT_ERROR;
	else if (diff && differs)
		ret = RT_EXIT_ERROR;
out:
	rt_sys_ctx_close(&ctx);
	rt_profile_set_free(&set);
	free(nics);
	free(ns);
	free(want);
	free(d);
	if (diff && ret == RT_EXIT_ERROR && !differs)
		ret = RT_EXIT_USAGE;	/* out of memory */
	return ret;
}

static int rt_profile_show(struct rt_cli *cli)
{
	return rt_profile_show_diff(cli, false);
}

static int rt_profile_diff(struct rt_cli *cli)
{
	return rt_profile_show_diff(cli, true);
}

/* apply ----------------------------------------------------------------- */

static void rt_print_result(struct rt_print *pr, const struct rt_nic *nic,
			    const struct rt_profile *p,
			    const struct rt_apply_result *res)
{
	unsigned int i;

	rt_print_open_object(pr, NULL);
	rt_print_nic_id(pr, nic);
	if (p)
		rt_print_string(pr, RT_PRINT_ANY, "profile", " profile %s:",
				p->path);
	rt_print_string(pr, RT_PRINT_ANY, "result", " %s",
			rt_result_name(res->result));
	rt_print_uint(pr, RT_PRINT_ANY, "writes", " (%" PRIu64 " writes",
		      res->writes);
	if (res->restore_writes)
		rt_print_uint(pr, RT_PRINT_ANY, "restore_writes",
			      ", %" PRIu64 " restoring", res->restore_writes);
	else
		rt_print_uint(pr, RT_PRINT_JSON, "restore_writes", NULL, 0);
	rt_print_text(pr, ")\n");
	rt_print_bool(pr, RT_PRINT_JSON, "recovered", NULL, res->recovered);
	if (res->recovered)
		rt_print_uint(pr, RT_PRINT_ANY, "recovered_writes",
			      "  an interrupted apply was undone first (%" PRIu64 " writes)\n",
			      res->recovered_writes);
	if (res->error[0])
		rt_print_string(pr, RT_PRINT_ANY, "error", "  error: %s\n",
				res->error);
	if (res->state[0])
		rt_print_string(pr, RT_PRINT_ANY, "state", "  state: %s\n",
				res->state);
	if (res->warning[0])
		rt_print_string(pr, RT_PRINT_ANY, "warning", "  warning: %s\n",
				res->warning);
	rt_print_diag(pr, &res->diag);
	rt_print_open_array(pr, "changes");
	for (i = 0; i < res->nchanges; i++)
		rt_print_change(pr, &res->changes[i].old,
				&res->changes[i].want, true, -1);
	rt_print_close_array(pr);
}

/* The watch's outcome, in the NIC's object (text: two lines and guards). */
static void rt_print_verify(struct rt_print *pr, const struct rt_verify *v)
{
	unsigned int i;

	rt_print_bool(pr, RT_PRINT_JSON, "verified", NULL, v->verified);
	rt_print_bool(pr, RT_PRINT_JSON, "rolled_back_by_verify", NULL,
		      v->tripped);
	rt_print_string(pr, RT_PRINT_ANY, "reason", "  verify: %s\n",
			v->reason);
	rt_print_open_array(pr, "guards");
	for (i = 0; i < RT_GUARD_NUM; i++) {
		const struct rt_guard *g = &v->g[i];

		if (!g->on)
			continue;
		rt_print_open_object(pr, NULL);
		rt_print_string(pr, RT_PRINT_ANY, "name", "    guard %s:",
				g->name);
		rt_print_uint(pr, RT_PRINT_ANY, "baseline",
			      " baseline %" PRIu64, (uint64_t)(g->baseline + 0.5));
		rt_print_uint(pr, RT_PRINT_ANY, "observed",
			      " observed %" PRIu64, (uint64_t)(g->observed + 0.5));
		rt_print_uint(pr, RT_PRINT_ANY, "limit", " limit %" PRIu64,
			      (uint64_t)(g->limit + 0.5));
		rt_print_bool(pr, RT_PRINT_JSON, "ok", NULL, g->ok);
		rt_print_text(pr, " %s\n", g->ok ? "ok" : "TRIPPED");
		rt_print_close_object(pr);
	}
	rt_print_close_array(pr);
}

static int rt_profile_apply(struct rt_cli *cli)
{
	struct rt_profile_set set = { 0 };
	struct rt_apply_result *res = NULL;
	struct rt_sys_ctx ctx = { 0 };
	struct rt_profile_req req;
	struct rt_nic *nics = NULL;
	struct rt_verify *v = NULL;
	unsigned int n, i;
	int ret;

	ret = rt_profile_begin(cli, &req, true, &set, &nics, &n);
	if (ret)
		return ret;
	res = calloc(1, sizeof(*res));
	if (!res) {
		rt_error("out of memory");
		ret = RT_EXIT_ERROR;
		goto out;
	}
	if (req.verify && req.dry_run) {
		rt_usage_error("a dry run writes nothing: there is nothing to verify (drop \"dry-run\" or \"--verify\")");
		ret = RT_EXIT_USAGE;
		goto out;
	}
	for (i = 0; req.verify && !req.verify_ms && i < n; i++) {
		const struct rt_profile *p = rt_profile_find(&set, &nics[i].id);

		if (p && !rt_profile_has_verify(p)) {
			rt_usage_error("%s: --verify takes its duration and guards from the profile's [Verify], and %s has none (give one, or --verify-for DURATION)",
				       nics[i].id.netdev, p->path);
			ret = RT_EXIT_USAGE;
			goto out;
		}
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		rt_error("out of memory");
		ret = RT_EXIT_ERROR;
		goto out;
	}
	rt_print_open_array(&cli->pr, NULL);
	for (i = 0; i < n; i++) {
		const struct rt_profile *p = rt_profile_find(&set, &nics[i].id);
		struct rt_apply_opts o = {
			.dry_run = req.dry_run,
			.lock_wait_ms = RT_LOCK_WAIT_MS,
		};
		int r, code;

		memset(res, 0, sizeof(*res));
		if (p && req.verify) {
			rt_verify_init(v, p, req.verify_ms, NULL, NULL);
			o.verify = &v->hook;
		}
		if (!p) {
			res->result = RT_RES_NO_PROFILE;
			r = 0;
		} else {
			r = rt_apply_nic_opts(&rt_backend_sys, &ctx, &nics[i],
					      p, &o, res);
		}
		if (o.verify && !r && !v->started) {
			v->verified = true;
			snprintf(v->reason, sizeof(v->reason), "%s",
				 "nothing changed: nothing to watch");
		}
		code = rt_verify_exit(r, res, o.verify ? v : NULL);
		if (code == RT_EXIT_ERROR || (code && ret != RT_EXIT_ERROR))
			ret = code;
		rt_print_result(&cli->pr, &nics[i], p, res);
		if (o.verify)
			rt_print_verify(&cli->pr, v);
		rt_print_close_object(&cli->pr);
		if (o.verify)
			rt_verify_fini(v);
	}
	rt_print_close_array(&cli->pr);
out:
	rt_sys_ctx_close(&ctx);
	rt_profile_set_free(&set);
	free(nics);
	free(res);
	free(v);
	return ret;
}

static int rt_profile_help(struct rt_cli *cli)
{
	(void)cli;
	printf("Usage: rocetune profile check [ FILE... ]\n"
	       "       rocetune profile show [ dev NETDEV ]\n"
	       "       rocetune profile diff [ dev NETDEV ]\n"
	       "       rocetune profile apply [ dev NETDEV ] [ dry-run ]\n"
	       "                              [ --verify | --verify-for DURATION ]\n"
	       "       rocetune profile journal { show [ dev NETDEV ] | discard dev NETDEV }\n"
	       "       rocetune profile help\n"
	       "Profiles: %s/*.conf (ROCETUNE_PROFILE_DIR overrides)\n",
	       rt_profile_dir());
	return RT_EXIT_OK;
}

static const struct rt_cmd rt_profile_cmds[] = {
	{ "show",	rt_profile_show },
	{ "check",	rt_profile_check },
	{ "diff",	rt_profile_diff },
	{ "apply",	rt_profile_apply },
	{ "journal",	rt_profile_journal },	/* cli/journal.c */
	{ "help",	rt_profile_help },
	{ NULL,		NULL },
};

int rt_cmd_profile(struct rt_cli *cli)
{
	cli->object = "profile";
	return rt_cli_dispatch(cli, rt_profile_cmds);
}
