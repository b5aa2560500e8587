// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: tuning profiles, the loader and the
 * matcher.
 *
 * A file is checked before it is read (a regular file, of root or of the
 * user, not writable by everyone), parsed (rt_pread.c: the lines;
 * rt_pval.c: the values; rt_pcheck.c: the keys against each other), and
 * a directory is read in lexical order; the profile of a NIC is the first
 * one whose [Match] matches it.  Documentation/profiles.rst is the
 * reference of every key.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_pparse.h"

static void rt_profile_init(struct rt_profile *p, const char *path)
{
	const char *slash;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	slash = strrchr(p->path, '/');
	p->name = slash ? slash + 1 : p->path;
	for (i = 0; i < RT_NDSCP; i++)
		p->dscp_prio[i] = -1;
	for (i = 0; i < RT_NTC; i++)
		p->tsa[i] = RT_TSA_ETS;
	p->on_drift = RT_DRIFT_REAPPLY;
	p->max_reapplies = RT_AGENT_DEF_MAX_REAPPLIES;
	p->reapply_window_s = RT_AGENT_DEF_REAPPLY_WINDOW_S;
	p->poll_interval_s = RT_AGENT_DEF_POLL_INTERVAL_S;
	p->wd_action = RT_WD_ALERT;
	p->wd_restore_after_ms = RT_WD_DEF_RESTORE_AFTER_MS;
	p->wd_timeout_ms = RT_WD_DEF_TIMEOUT_MS;
	p->tune_dir = RT_TUNE_INCREASE;
	p->tune_cooldown_ms = RT_TUNE_DEF_COOLDOWN_MS;
	p->tune_interval_ms = RT_TUNE_DEF_INTERVAL_MS;
	p->tune_max_writes_h = RT_TUNE_DEF_MAX_WRITES_PER_HOUR;
	p->verify_for_s = RT_VERIFY_DEF_FOR_S;
	p->verify_baseline_s = RT_VERIFY_DEF_BASELINE_S;
	p->verify_interval_ms = RT_VERIFY_DEF_INTERVAL_MS;
}

bool rt_profile_has_verify(const struct rt_profile *p)
{
	unsigned int k;

	for (k = RT_PK_VERIFY_FOR_SEC; k < RT_PK_NUM; k++)
		if (rt_profile_has(p, k))
			return true;
	return false;
}

int rt_profile_parse_fp(FILE *f, const char *path, struct rt_profile *p,
			struct rt_diag *d)
{
	struct rt_pstate *st;
	unsigned int i;
	int ret, err;

	rt_profile_init(p, path);
	st = calloc(1, sizeof(*st));
	if (!st) {
		rt_diag_add(d, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	st->path = path;
	st->f = f;
	st->p = p;
	st->d = d;
	rt_read_lines(st);
	if (st->read_errno == EFBIG) {
		rt_diag_add(d, "%s: longer than %d bytes: not a profile", path,
			    RT_PROF_SIZE_MAX);
		ret = -EFBIG;
		goto out;
	}
	if (st->read_errno) {
		err = st->read_errno;
		rt_diag_add(d, "%s: %s", path, strerror(err));
		ret = -err;
		goto out;
	}
	rt_check_profile(st);
	ret = st->nerr ? -EINVAL : 0;
out:
	for (i = 0; i < RT_PK_NUM; i++)
		free(st->text[i]);
	free(st);
	return ret;
}

/*
 * A profile tells a root agent what to write to a NIC: as sshd does with
 * its files (StrictModes), refuse one that anyone could have written, or
 * that someone else than root (or the user running the tool) owns.  A
 * character device or a FIFO is no profile either (/dev/zero would be
 * read for ever).
 */
static int rt_profile_file_ok(const char *path, const struct stat *sb,
			      struct rt_diag *d)
{
	uid_t me = geteuid();

	if (!S_ISREG(sb->st_mode)) {
		rt_diag_add(d, "%s: not a regular file: refused", path);
		return -EINVAL;
	}
	if (sb->st_uid != 0 && sb->st_uid != me) {
		rt_diag_add(d, "%s: owned by uid %u, not by root%s: refused (chown root %s)",
			    path, (unsigned int)sb->st_uid,
			    me ? " or the user running this" : "", path);
		return -EPERM;
	}
	if (sb->st_mode & S_IWOTH) {
		rt_diag_add(d, "%s: writable by everyone (mode %04o): refused (chmod o-w %s)",
			    path, (unsigned int)(sb->st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

int rt_profile_parse_file(const char *path, struct rt_profile *p,
			  struct rt_diag *d)
{
	struct stat sb;
	FILE *f;
	int ret;

	rt_profile_init(p, path);
	if (strlen(path) >= RT_PROF_PATH_LEN) {
		rt_diag_add(d, "%.64s...: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		rt_diag_add(d, "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fileno(f), &sb)) {
		ret = -errno;
		fclose(f);
		rt_diag_add(d, "%s: cannot stat: %s", path, strerror(-ret));
		return ret;
	}
	if (S_ISDIR(sb.st_mode)) {
		fclose(f);
		rt_diag_add(d, "%s: cannot read: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	ret = rt_profile_file_ok(path, &sb, d);
	if (ret) {
		fclose(f);
		return ret;
	}
	ret = rt_profile_parse_fp(f, path, p, d);
	fclose(f);
	return ret;
}

/* ---- directories ---- */

const char *rt_profile_dir(void)
{
	const char *dir = getenv("ROCETUNE_PROFILE_DIR");

	return dir && *dir ? dir : "/etc/rocetune";
}

bool rt_profile_dir_explicit(void)
{
	const char *dir = getenv("ROCETUNE_PROFILE_DIR");

	return dir && *dir;
}

static int rt_strcmp_p(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rt_profile_set_free(struct rt_profile_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		free(set->p[i]);
	set->n = 0;
}

/* The *.conf names of @dp that are regular files (symlinks followed). */
static int rt_conf_names(DIR *dp, const char *dir, char ***names, size_t *n,
			 struct rt_diag *d, bool *bad)
{
	size_t cap = 0, len;
	struct dirent *de;
	struct stat sb;
	char **nn;

	for (;;) {
		errno = 0;
		de = readdir(dp);
		if (!de) {
			if (errno) {
				int ret = -errno;

				rt_diag_add(d, "%s: cannot read: %s", dir,
					    strerror(-ret));
				return ret;
			}
			return 0;
		}
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= 5 ||
		    strcmp(de->d_name + len - 5, ".conf"))
			continue;
		if (fstatat(dirfd(dp), de->d_name, &sb, 0)) {
			rt_diag_add(d, "%s/%s: cannot read: %s", dir,
				    de->d_name, strerror(errno));
			*bad = true;
			continue;
		}
		if (!S_ISREG(sb.st_mode))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			nn = realloc(*names, cap * sizeof(*nn));
			if (!nn)
				return -ENOMEM;
			*names = nn;
		}
		(*names)[*n] = strdup(de->d_name);
		if (!(*names)[*n])
			return -ENOMEM;
		(*n)++;
	}
}

int rt_profile_load_dir(const char *dir, struct rt_profile_set *set,
			struct rt_diag *d)
{
	char path[RT_PROF_PATH_LEN];
	char **names = NULL;
	struct rt_profile *p;
	bool bad = false;
	size_t n = 0, i;
	DIR *dp;
	int ret;

	memset(set, 0, sizeof(*set));
	dp = opendir(dir);
	if (!dp) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		rt_diag_add(d, "%s: cannot open the profile directory: %s", dir,
			    strerror(-ret));
		return ret;
	}
	ret = rt_conf_names(dp, dir, &names, &n, d, &bad);
	closedir(dp);
	if (ret) {
		if (ret == -ENOMEM)
			rt_diag_add(d, "%s: %s", dir, strerror(ENOMEM));
		goto out;
	}
	qsort(names, n, sizeof(*names), rt_strcmp_p);
	set->nfiles = n < RT_PROF_MAX_FILES ? n : RT_PROF_MAX_FILES;

	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     names[i]) >= sizeof(path)) {
			rt_diag_add(d, "%s/%s: %s", dir, names[i],
				    strerror(ENAMETOOLONG));
			bad = true;
			continue;
		}
		if (i >= RT_PROF_MAX_FILES) {
			rt_diag_add(d, "%s: ignored: more than %d profiles in %s (at most %d)",
				    path, RT_PROF_MAX_FILES, dir,
				    RT_PROF_MAX_FILES);
			bad = true;
			continue;
		}
		p = malloc(sizeof(*p));
		if (!p) {
			rt_diag_add(d, "%s: %s", path, strerror(ENOMEM));
			ret = -ENOMEM;
			goto out;
		}
		if (rt_profile_parse_file(path, p, d)) {
			free(p);
			bad = true;
			continue;
		}
		set->p[set->n++] = p;
	}
	ret = bad ? -EINVAL : 0;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (ret && ret != -EINVAL)
		rt_profile_set_free(set);
	return ret;
}

/* ---- matching ---- */

static const char *rt_nic_field(const struct rt_nic_id *nic, unsigned int k)
{
	switch (k) {
	case RT_PK_MATCH_NAME:
		return nic->netdev;
	case RT_PK_MATCH_DRIVER:
		return nic->driver;
	case RT_PK_MATCH_RDMA_DEVICE:
		return nic->rdma_dev;
	default:
		return nic->bus_info;
	}
}

bool rt_profile_match(const struct rt_profile *p, const struct rt_nic_id *nic)
{
	unsigned int k, i;
	const char *field;

	for (k = 0; k < RT_PK_MATCH_NUM; k++) {
		if (!p->nmatch[k])
			continue;	/* not given: matches */
		field = rt_nic_field(nic, k);
		if (!field[0])
			return false;	/* nothing to compare with */
		for (i = 0; i < p->nmatch[k]; i++)
			if (!fnmatch(p->match[k][i], field, 0))
				break;
		if (i == p->nmatch[k])
			return false;
	}
	return true;
}

const struct rt_profile *rt_profile_find(const struct rt_profile_set *set,
					 const struct rt_nic_id *nic)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (rt_profile_match(set->p[i], nic))
			return set->p[i];
	return NULL;
}
