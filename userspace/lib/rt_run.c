// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the run directory, its locks and the apply
 * engine's journals (see rt_run.h).
 */
#define _GNU_SOURCE		/* secure_getenv() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt_run.h"
#include "rt_util.h"
#include "rt_want.h"

const char *rt_run_dir(void)
{
	const char *s = secure_getenv("ROCETUNE_RUN_DIR");

	return s && *s ? s : "/run/rocetune";
}

int rt_run_dir_create(char *msg, size_t len)
{
	const char *dir = rt_run_dir();
	struct stat sb;
	int err;

	if (!mkdir(dir, RT_RUN_DIR_MODE)) {
		/* mkdir() applies the umask: the mode is the mode */
		if (chmod(dir, RT_RUN_DIR_MODE)) {
			err = -errno;
			rt_fmt(msg, len, "cannot set the mode of %s: %s", dir,
			       strerror(errno));
			return err;
		}
		return 0;
	}
	err = -errno;
	if (err != -EEXIST) {
		rt_fmt(msg, len, "cannot create %s: %s%s", dir, strerror(-err),
		       err == -EACCES ? " (applying a profile needs root)" : "");
		return err;
	}
	if (lstat(dir, &sb)) {
		err = -errno;
		rt_fmt(msg, len, "cannot read %s: %s", dir, strerror(errno));
		return err;
	}
	if (!S_ISDIR(sb.st_mode)) {
		rt_fmt(msg, len, "%s, the run directory, is not a directory%s",
		       dir, S_ISLNK(sb.st_mode) ? " (a symbolic link)" : "");
		return -ENOTDIR;
	}
	return 0;
}

static void rt_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void rt_lock_holder(int fd, char *holder, size_t hlen)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	rt_fmt(holder, hlen, "%s", buf[0] ? buf : "?");
}

int rt_lock_path(const char *path, unsigned int wait_ms, char *holder,
		 size_t hlen)
{
	unsigned int waited = 0;
	int fd, err;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK || waited >= wait_ms) {
			err = errno == EWOULDBLOCK ? -EBUSY : -errno;
			rt_lock_holder(fd, holder, hlen);
			close(fd);
			return err;
		}
		rt_sleep_ms(100);
		waited += 100;
	}
	return fd;
}

void rt_lock_mark(int fd)
{
	if (!ftruncate(fd, 0))
		dprintf(fd, "%d\n", (int)getpid());
}

static int rt_run_file(char *buf, size_t len, const char *name,
		       const char *suffix)
{
	int n = snprintf(buf, len, "%s/%s.%s", rt_run_dir(), name, suffix);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int rt_ifindex_lock_path(char *buf, size_t len, int ifindex)
{
	char name[32];

	snprintf(name, sizeof(name), "ifindex:%d", ifindex);
	return rt_run_file(buf, len, name, "lock");
}

int rt_journal_path(const char *netdev, char *buf, size_t len)
{
	return rt_run_file(buf, len, netdev, "journal");
}

/* Lock @path, waiting up to @wait_ms; @what names it in @msg. */
static int rt_lock_one(const char *path, unsigned int wait_ms,
		       const char *what, char *msg, size_t len)
{
	char holder[32];
	int fd = rt_lock_path(path, wait_ms, holder, sizeof(holder));

	if (fd == -EBUSY && !wait_ms)
		rt_fmt(msg, len,
		       "%s is locked by another rocetune applying a profile (pid %s)",
		       what, holder);
	else if (fd == -EBUSY)
		rt_fmt(msg, len,
		       "%s is locked by another rocetune applying a profile (pid %s); gave up after %u s",
		       what, holder, wait_ms / 1000);
	else if (fd < 0)
		rt_fmt(msg, len, "cannot open %s: %s", path, strerror(-fd));
	return fd;
}

static uint64_t rt_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int rt_nic_lock(const struct rt_nic *nic, int fds[2], char *msg, size_t len)
{
	return rt_nic_lock_wait(nic, fds, RT_LOCK_WAIT_MS, msg, len);
}

int rt_nic_lock_wait(const struct rt_nic *nic, int fds[2],
		     unsigned int wait_ms, char *msg, size_t len)
{
	char path[1024], what[128];
	uint64_t t0 = rt_mono_ms(), spent;
	int err;

	fds[0] = fds[1] = -1;
	err = rt_run_dir_create(msg, len);
	if (err)
		return err;
	if (rt_run_file(path, sizeof(path), nic->id.netdev, "lock")) {
		rt_fmt(msg, len, "%s: name too long", nic->id.netdev);
		return -ENAMETOOLONG;
	}
	fds[0] = rt_lock_one(path, wait_ms, nic->id.netdev, msg, len);
	if (fds[0] < 0)
		return fds[0];
	rt_lock_mark(fds[0]);
	if (nic->ifindex <= 0)
		return 0;
	rt_ifindex_lock_path(path, sizeof(path), nic->ifindex);
	spent = rt_mono_ms() - t0;
	snprintf(what, sizeof(what), "%s's ifindex %d (under another name)",
		 nic->id.netdev, nic->ifindex);
	fds[1] = rt_lock_one(path, spent < wait_ms ?
			     wait_ms - (unsigned int)spent : 0,
			     what, msg, len);
	if (fds[1] < 0) {
		err = fds[1];
		rt_nic_unlock(fds);
		return err;
	}
	rt_lock_mark(fds[1]);
	return 0;
}

/*
 * Empty a lock file while still holding it: the pid in a lock file is only
 * ever its holder's, never a stale one shown for another holder (a
 * flock(1) writes none).  A failure leaves the old pid; nothing else.
 */
static void rt_lock_clear(int fd)
{
	if (fd >= 0 && ftruncate(fd, 0))
		return;
}

void rt_nic_unlock(int fds[2])
{
	rt_lock_clear(fds[1]);
	rt_lock_clear(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);	/* releases the flock */
	if (fds[0] >= 0)
		close(fds[0]);
	fds[0] = fds[1] = -1;
}

/*
 * Is the lock @path held by a process (pid in @holder)?  Probed with a
 * shared lock, released at once; a missing file is no lock.
 */
static bool rt_lock_held(const char *path, char *holder, size_t hlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	if (held)
		rt_lock_holder(fd, holder, hlen);
	close(fd);
	return held;
}

/* Journals: the format -------------------------------------------------- */

/*
 * Every value of a setting is checked against the field the write puts it
 * in (rt_sysio.c casts to it): what does not fit would be silently
 * truncated into another value.
 */
static int rt_setting_check(const struct rt_setting *s, char *msg,
			    size_t len)
{
	static const uint64_t u8 = 0xff, u16 = 0xffff, u32 = 0xffffffffu;
	uint64_t max = 0;
	unsigned int i;

	switch (s->kind) {
	case RT_SK_ETS:
		if (s->key || s->n != 24)
			goto shape;
		for (i = 0; i < 24; i++) {
			uint64_t v = s->v[i];

			if ((i < 8 && v >= RT_NTC) ||
			    (i >= 8 && i < 16 && v != RT_TSA_STRICT &&
			     v != RT_TSA_CBS && v != RT_TSA_ETS &&
			     v != RT_TSA_VENDOR) ||
			    (i >= 16 && v > 100)) {
				rt_fmt(msg, len,
				       "ets value %u is %" PRIu64 ", not a %s",
				       i, v, i < 8 ? "traffic class (0-7)" :
				       i < 16 ? "TSA (0, 1, 2, 255)" :
				       "percentage (0-100)");
				return -ERANGE;
			}
		}
		return 0;
	case RT_SK_PFC:
		if (s->key || s->n != 4)
			goto shape;
		for (i = 0; i < 4; i++) {
			max = i == 1 ? u16 : u8;
			if (s->v[i] > max) {
				rt_fmt(msg, len,
				       "pfc value %u is %" PRIu64 ", above %" PRIu64,
				       i, s->v[i], max);
				return -ERANGE;
			}
		}
		return 0;
	case RT_SK_MAXRATE:
		if (s->key || s->n != 8)
			goto shape;
		return 0;
	case RT_SK_BUFFER:
		if (s->key || s->n != 16)
			goto shape;
		for (i = 0; i < 16; i++) {
			max = i < 8 ? RT_NBUF - 1 : u32;
			if (s->v[i] > max) {
				rt_fmt(msg, len,
				       "buffer value %u is %" PRIu64 ", above %" PRIu64,
				       i, s->v[i], max);
				return -ERANGE;
			}
		}
		return 0;
	case RT_SK_DSCP:
		if (s->key >= RT_NDSCP || s->n < 1 || s->n > 2)
			goto shape;
		if (s->v[0] >= RT_NPRIO || (s->n == 2 && s->v[1] > u8) ||
		    (!s->absent && s->n == 2 &&
		     !(s->v[1] & (1u << s->v[0])))) {
			rt_fmt(msg, len,
			       "dscp %u: priority %" PRIu64 " / entries 0x%" PRIx64 " are no DSCP entry",
			       s->key, s->v[0], s->n == 2 ? s->v[1] : 0);
			return -ERANGE;
		}
		return 0;
	case RT_SK_APPTRUST:
		if (s->key || s->n > 8)
			goto shape;
		for (i = 0; i < s->n; i++)
			if (!((s->v[i] >= 1 && s->v[i] <= 5) ||
			      s->v[i] == 255)) {
				rt_fmt(msg, len,
				       "apptrust selector %" PRIu64 " is none of 1-5, 255",
				       s->v[i]);
				return -ERANGE;
			}
		return 0;
	case RT_SK_PFC_STORM:
		if (s->key || s->n != 1)
			goto shape;
		max = u16;
		break;
	case RT_SK_CC:
		if (s->key >= RT_CC_KEY_MAX)
			goto shape;
		if (s->key == RT_DCQCN_ENABLE && s->n == RT_RXE_EN_N) {
			for (i = 0; i < s->n; i++)
				if (s->v[i] > 1) {
					rt_fmt(msg, len,
					       "dcqcn Enable switch %u is %" PRIu64 ", not 0 or 1",
					       i, s->v[i]);
					return -ERANGE;
				}
			return 0;
		}
		if (s->n != 1)
			goto shape;
		max = u32;
		break;
	default:
		goto shape;
	}
	if (s->v[0] > max) {
		char name[64];

		rt_setting_name(s, name, sizeof(name));
		rt_fmt(msg, len, "%s is %" PRIu64 ", above %" PRIu64, name,
		       s->v[0], max);
		return -ERANGE;
	}
	return 0;
shape:
	rt_fmt(msg, len, "setting kind %d key %u with %u values is none rocetune writes",
	       (int)s->kind, s->key, s->n);
	return -EINVAL;
}

/* A netdev name as the kernel takes one (dev_valid_name()). */
static bool rt_valid_netdev(const char *s)
{
	size_t n = strlen(s);

	return n && n < IFNAMSIZ && strcmp(s, ".") && strcmp(s, "..") &&
	       !strpbrk(s, "/: \t\n\r\v\f");
}

static int rt_num(const char *tok, uint64_t max, uint64_t *v)
{
	return tok ? rt_parse_u64(tok, 0, max, v) : -EINVAL;
}

/* One line "s KIND KEY ABSENT N V..." into @j's snapshot. */
static int rt_journal_setting(struct rt_journal *j, char *rest, char *msg,
			      size_t len)
{
	uint64_t kind, key, absent, n, v;
	struct rt_setting *s, tmp;
	char *save = NULL, *tok;
	unsigned int i;

	if (rt_num(strtok_r(rest, " ", &save), RT_SK_CC, &kind) ||
	    rt_num(strtok_r(NULL, " ", &save), 1023, &key) ||
	    rt_num(strtok_r(NULL, " ", &save), 1, &absent) ||
	    rt_num(strtok_r(NULL, " ", &save), RT_SET_MAXV, &n)) {
		rt_fmt(msg, len, "not \"s KIND KEY ABSENT N VALUES\"");
		return -EINVAL;
	}
	memset(&tmp, 0, sizeof(tmp));
	tmp.kind = (enum rt_set_kind)kind;
	tmp.key = (unsigned int)key;
	tmp.absent = absent;
	tmp.n = (unsigned int)n;
	for (i = 0; i < tmp.n; i++) {
		tok = strtok_r(NULL, " ", &save);
		if (rt_num(tok, UINT64_MAX, &v)) {
			rt_fmt(msg, len, "%s of %u values", tok ?
			       "not a number in the list" : "fewer values than N",
			       tmp.n);
			return -EINVAL;
		}
		tmp.v[i] = v;
	}
	if (strtok_r(NULL, " ", &save)) {
		rt_fmt(msg, len, "more values than N (%u)", tmp.n);
		return -EINVAL;
	}
	if (rt_setting_check(&tmp, msg, len))
		return -ERANGE;
	if (rt_state_find(&j->snap, tmp.kind, tmp.key)) {
		rt_setting_name(&tmp, msg, len);
		rt_fmt(msg + strlen(msg), len - strlen(msg), " twice");
		return -EINVAL;
	}
	s = rt_state_add(&j->snap, tmp.kind, tmp.key);
	if (!s) {
		rt_fmt(msg, len, "more than %d settings", RT_SET_MAX);
		return -EINVAL;
	}
	*s = tmp;
	return 0;
}

static int rt_copy_word(char *dst, size_t dlen, const char *v)
{
	if (!v[0] || strlen(v) >= dlen)
		return -EINVAL;
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

/* One line of the header, "KEY VALUE"; @seen bits catch duplicates. */
static int rt_journal_header(struct rt_journal *j, char *line,
			     unsigned int *seen, char *msg, size_t len)
{
	static const char *const keys[] = {
		"netdev", "ifindex", "pid", "profile", "time", "driver",
		"bus-info", "rdma-device", "failures", "error",
	};
	char *v = strchr(line, ' ');
	unsigned int k;
	uint64_t n;
	int err = 0;

	if (!v) {
		rt_fmt(msg, len, "not \"KEY VALUE\"");
		return -EINVAL;
	}
	*v++ = '\0';
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (!strcmp(line, keys[k]))
			break;
	if (k == sizeof(keys) / sizeof(keys[0])) {
		rt_fmt(msg, len, "unknown key \"%s\"", line);
		return -EINVAL;
	}
	if (*seen & (1u << k)) {
		rt_fmt(msg, len, "\"%s\" twice", line);
		return -EINVAL;
	}
	*seen |= 1u << k;
	switch (k) {
	case 0:
		err = rt_copy_word(j->netdev, sizeof(j->netdev), v);
		if (!err && !rt_valid_netdev(j->netdev))
			err = -EINVAL;
		break;
	case 1:
		err = rt_num(v, INT32_MAX, &n);
		j->ifindex = (int)n;
		err = err ? err : n ? 0 : -ERANGE;
		break;
	case 2:
		err = rt_num(v, INT32_MAX, &n);
		j->pid = (int)n;
		break;
	case 3:
		err = rt_copy_word(j->profile, sizeof(j->profile), v);
		break;
	case 4:
		err = rt_num(v, INT64_MAX, &n);
		j->time = (int64_t)n;
		break;
	case 5:
		err = rt_copy_word(j->driver, sizeof(j->driver), v);
		break;
	case 6:
		err = rt_copy_word(j->bus_info, sizeof(j->bus_info), v);
		break;
	case 7:
		err = rt_copy_word(j->rdma_dev, sizeof(j->rdma_dev), v);
		break;
	case 8:
		err = rt_num(v, UINT32_MAX, &n);
		j->failures = (unsigned int)n;
		break;
	case 9:
		rt_fmt(j->last_error, sizeof(j->last_error), "%s", v);
		break;
	}
	if (err)
		rt_fmt(msg, len, "bad %s \"%.64s\"", keys[k], v);
	return err;
}

static void rt_journal_file_netdev(struct rt_journal *j)
{
	const char *base = strrchr(j->path, '/');
	size_t n;

	base = base ? base + 1 : j->path;
	n = strlen(base);
	if (n > 8 && !strcmp(base + n - 8, ".journal") &&
	    n - 8 < sizeof(j->file_netdev)) {
		memcpy(j->file_netdev, base, n - 8);
		j->file_netdev[n - 8] = '\0';
	}
}

int rt_journal_read(const char *path, struct rt_journal *j)
{
	char *buf = NULL, *line, *next, what[256] = "";
	unsigned int lineno = 0, seen = 0;
	struct stat sb;
	ssize_t got;
	int fd, err = 0;

	memset(j, 0, sizeof(*j));
	rt_fmt(j->path, sizeof(j->path), "%s", path);
	rt_journal_file_netdev(j);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		rt_fmt(j->error, sizeof(j->error), "%s: %s", path,
		       strerror(errno));
		return err;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    sb.st_size > RT_JOURNAL_MAX_BYTES) {
		rt_fmt(what, sizeof(what), "%s", !S_ISREG(sb.st_mode) ?
		       "not a regular file" : "larger than any journal");
		err = -EINVAL;
		goto out;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		err = -ENOMEM;
		rt_fmt(what, sizeof(what), "out of memory");
		goto out;
	}
	got = pread(fd, buf, (size_t)sb.st_size, 0);
	if (got != sb.st_size) {
		err = got < 0 ? -errno : -EIO;
		rt_fmt(what, sizeof(what), "cannot read it: %s",
		       strerror(-err));
		goto out;
	}
	buf[got] = '\0';
	if (!got || buf[got - 1] != '\n' || memchr(buf, '\0', (size_t)got)) {
		rt_fmt(what, sizeof(what), "%s", !got ? "empty" :
		       buf[got - 1] != '\n' ? "cut off in its last line" :
		       "not text");
		err = -EINVAL;
		goto out;
	}
	for (line = buf; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, RT_JOURNAL_MAGIC)) {
				rt_fmt(what, sizeof(what),
				       "line 1: not a rocetune journal (\"%s\" expected)",
				       RT_JOURNAL_MAGIC);
				err = -EINVAL;
				goto out;
			}
			continue;
		}
		if (!strncmp(line, "s ", 2))
			err = rt_journal_setting(j, line + 2, what,
						 sizeof(what));
		else
			err = rt_journal_header(j, line, &seen, what,
						sizeof(what));
		if (err) {
			char tmp[256];

			rt_fmt(tmp, sizeof(tmp), "line %u: %s", lineno, what);
			memcpy(what, tmp, sizeof(what));
			err = -EINVAL;
			goto out;
		}
	}
	if ((seen & 7) != 7) {
		rt_fmt(what, sizeof(what), "no %s line",
		       !(seen & 1) ? "netdev" : !(seen & 2) ? "ifindex" :
		       "pid");
		err = -EINVAL;
	} else if (j->file_netdev[0] && strcmp(j->file_netdev, j->netdev)) {
		rt_fmt(what, sizeof(what), "it names netdev %s, not %s",
		       j->netdev, j->file_netdev);
		err = -EINVAL;
	}
out:
	if (err)
		rt_fmt(j->error, sizeof(j->error), "%s is damaged: %s", path,
		       what);
	j->valid = !err;
	free(buf);
	close(fd);
	return err;
}

/* A message on one line of the journal. */
static void rt_one_line(char *dst, size_t len, const char *src)
{
	size_t i;

	rt_fmt(dst, len, "%s", src);
	for (i = 0; dst[i]; i++)
		if (dst[i] == '\n' || dst[i] == '\r')
			dst[i] = ' ';
}

int rt_journal_write(const struct rt_journal *j, char *msg, size_t len)
{
	char tmp[1100], err_line[512];
	unsigned int i, k;
	FILE *f;
	int fd, err;

	rt_fmt(tmp, sizeof(tmp), "%s.tmp", j->path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		err = -errno;
		rt_fmt(msg, len, "cannot write the journal %s: %s", tmp,
		       strerror(errno));
		if (fd >= 0)
			close(fd);
		return err;
	}
	fprintf(f, "%s\nnetdev %s\nifindex %d\npid %d\ntime %" PRId64 "\n",
		RT_JOURNAL_MAGIC, j->netdev, j->ifindex, j->pid, j->time);
	if (j->profile[0])
		fprintf(f, "profile %s\n", j->profile);
	if (j->driver[0])
		fprintf(f, "driver %s\n", j->driver);
	if (j->bus_info[0])
		fprintf(f, "bus-info %s\n", j->bus_info);
	if (j->rdma_dev[0])
		fprintf(f, "rdma-device %s\n", j->rdma_dev);
	if (j->failures) {
		rt_one_line(err_line, sizeof(err_line), j->last_error);
		fprintf(f, "failures %u\nerror %s\n", j->failures, err_line);
	}
	for (i = 0; i < j->snap.n; i++) {
		const struct rt_setting *s = &j->snap.s[i];

		fprintf(f, "s %d %u %d %u", (int)s->kind, s->key,
			(int)s->absent, s->n);
		for (k = 0; k < s->n; k++)
			fprintf(f, " %" PRIu64, s->v[k]);
		fputc('\n', f);
	}
	if (fflush(f) || fsync(fileno(f))) {
		rt_fmt(msg, len, "cannot write the journal %s: %s", tmp,
		       strerror(errno));
		fclose(f);
		unlink(tmp);
		return -EIO;
	}
	fclose(f);
	if (rename(tmp, j->path)) {
		err = -errno;
		rt_fmt(msg, len, "cannot write the journal %s: %s", j->path,
		       strerror(errno));
		unlink(tmp);
		return err;
	}
	return 0;
}

static int rt_journal_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rt_journal *)a)->path,
		      ((const struct rt_journal *)b)->path);
}

int rt_journal_list(struct rt_journal **v, char *msg, size_t len)
{
	const char *dir = rt_run_dir();
	struct rt_journal *all = NULL, *nv;
	unsigned int n = 0, cap = 0;
	struct dirent *de;
	char path[1024];
	DIR *d;

	*v = NULL;
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		rt_fmt(msg, len, "cannot read %s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l <= 8 || strcmp(de->d_name + l - 8, ".journal"))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			nv = realloc(all, cap * sizeof(*all));
			if (!nv) {
				free(all);
				closedir(d);
				rt_fmt(msg, len, "out of memory");
				return -ENOMEM;
			}
			all = nv;
		}
		rt_fmt(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (rt_journal_read(path, &all[n]) == -ENOENT)
			continue;	/* removed meanwhile */
		n++;
	}
	closedir(d);
	if (n)
		qsort(all, n, sizeof(*all), rt_journal_cmp);
	*v = all;
	return (int)n;
}

/* Journals: which NIC they are of --------------------------------------- */

/* Does valid journal @j fit @nic (same ifindex)?  Else why in @msg. */
static int rt_journal_fits(const struct rt_journal *j,
			   const struct rt_nic *nic, char *msg, size_t len)
{
	static const struct {
		const char *what;
		size_t off;
	} ids[] = {
		{ "driver", offsetof(struct rt_nic_id, driver) },
		{ "bus-info", offsetof(struct rt_nic_id, bus_info) },
		{ "RDMA device", offsetof(struct rt_nic_id, rdma_dev) },
	};
	const char *jv[] = { j->driver, j->bus_info, j->rdma_dev };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		const char *nv = (const char *)&nic->id + ids[i].off;

		if (jv[i][0] && strcmp(jv[i], nv)) {
			rt_fmt(msg, len,
			       "it is of a NIC with %s %s, and %s (ifindex %d) has %s %s: another device",
			       ids[i].what, jv[i], nic->id.netdev,
			       nic->ifindex, ids[i].what, nv[0] ? nv : "none");
			return -EUCLEAN;
		}
	}
	for (i = 0; i < j->snap.n; i++) {
		const struct rt_setting *s = &j->snap.s[i];
		char name[64];

		if (s->kind != RT_SK_CC)
			continue;
		rt_setting_name(s, name, sizeof(name));
		if (nic->cc == RT_CC_NONE ||
		    (nic->cc == RT_CC_RXE ? s->key >= RT_DCQCN_NUM :
		     !rt_cc_file(nic->cc, s->key))) {
			rt_fmt(msg, len, "it holds %s, which %s does not have",
			       name, nic->id.netdev);
			return -EUCLEAN;
		}
	}
	return 0;
}

static void rt_discard_hint(char *msg, size_t len, const char *netdev)
{
	size_t off = strlen(msg);

	rt_fmt(msg + off, len > off ? len - off : 0,
	       "; nothing was written. Inspect it with \"rocetune profile journal show dev %s\", check the NIC, then \"rocetune profile journal discard dev %s\" lets applies go on",
	       netdev, netdev);
}

/* Why journal @j (valid, named @nic's name) is not of @nic. */
static void rt_journal_foreign(const struct rt_journal *j,
			       const struct rt_nic *nic, char *msg, size_t len)
{
	char now[IF_NAMESIZE] = "";

	if (if_indextoname((unsigned int)j->ifindex, now) && strcmp(now,
								    nic->id.netdev))
		rt_fmt(msg, len,
		       "%s was left by an interrupted apply to ifindex %d, which is now named %s (applying to %s restores it); %s is ifindex %d",
		       j->path, j->ifindex, now, now, nic->id.netdev,
		       nic->ifindex);
	else
		rt_fmt(msg, len,
		       "%s was left by an interrupted apply (pid %d) to %s when it was ifindex %d; %s is now ifindex %d, another device (or the device re-created): its old values are not restored onto it",
		       j->path, j->pid, j->netdev, j->ifindex, nic->id.netdev,
		       nic->ifindex);
}

int rt_journal_find(const struct rt_nic *nic, struct rt_journal *j,
		    char *msg, size_t len)
{
	struct rt_journal *v = NULL, *c = NULL;
	char why[512];
	int n, i, found = 0, ret;

	n = rt_journal_list(&v, msg, len);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		bool by_name = !strcmp(v[i].file_netdev, nic->id.netdev) ||
			       (v[i].valid && !strcmp(v[i].netdev,
						      nic->id.netdev));
		bool by_index = v[i].valid && nic->ifindex > 0 &&
				v[i].ifindex == nic->ifindex;

		if (!by_name && !by_index)
			continue;
		if (found++) {
			rt_fmt(msg, len,
			       "both %s and %s name %s (ifindex %d): which to restore is unclear",
			       c->path, v[i].path, nic->id.netdev,
			       nic->ifindex);
			rt_discard_hint(msg, len, nic->id.netdev);
			*j = *c;
			free(v);
			return -EUCLEAN;
		}
		c = &v[i];
	}
	if (!c) {
		free(v);
		return 0;
	}
	*j = *c;
	free(v);
	ret = 1;
	if (!j->valid) {
		rt_fmt(msg, len, "%s", j->error);
		ret = -EUCLEAN;
	} else if (j->ifindex != nic->ifindex) {
		rt_journal_foreign(j, nic, msg, len);
		ret = -EUCLEAN;
	} else if (rt_journal_fits(j, nic, why, sizeof(why))) {
		rt_fmt(msg, len, "%s names %s ifindex %d, but %s", j->path,
		       j->netdev, j->ifindex, why);
		ret = -EUCLEAN;
	}
	if (ret < 0)
		rt_discard_hint(msg, len, nic->id.netdev);
	return ret;
}

/* Journals: state, discard ---------------------------------------------- */

const char *rt_journal_state_name(enum rt_journal_state s)
{
	static const char *const names[] = {
		[RT_JOURNAL_NONE] = "none",
		[RT_JOURNAL_PENDING] = "pending",
		[RT_JOURNAL_BUSY] = "in-progress",
		[RT_JOURNAL_STUCK] = "stuck",
	};

	return s <= RT_JOURNAL_STUCK ? names[s] : "?";
}

/* An apply holds the locks of @netdev or @ifindex: its pid in @holder. */
static bool rt_apply_running(const char *netdev, int ifindex, char *holder,
			     size_t hlen)
{
	char path[1024];

	if (netdev[0] && !rt_run_file(path, sizeof(path), netdev, "lock") &&
	    rt_lock_held(path, holder, hlen))
		return true;
	return ifindex > 0 &&
	       !rt_ifindex_lock_path(path, sizeof(path), ifindex) &&
	       rt_lock_held(path, holder, hlen);
}

static void rt_failed_why(const struct rt_journal *j, char *why, size_t len)
{
	rt_fmt(why, len,
	       "%s: restoring it failed %u time%s (last: %s); applies try again, \"rocetune profile journal discard dev %s\" drops it",
	       j->path, j->failures, j->failures == 1 ? "" : "s",
	       j->last_error[0] ? j->last_error : "?", j->netdev);
}

enum rt_journal_state rt_journal_status(const struct rt_nic *nic, char *why,
					size_t len)
{
	struct rt_journal *j = malloc(sizeof(*j));
	enum rt_journal_state st;
	char msg[1024] = "", holder[32];
	int ret;

	rt_fmt(why, len, "%s", "");
	if (!j)
		return RT_JOURNAL_NONE;
	ret = rt_journal_find(nic, j, msg, sizeof(msg));
	if (!ret) {
		st = RT_JOURNAL_NONE;
	} else if (rt_apply_running(nic->id.netdev, nic->ifindex, holder,
				    sizeof(holder))) {
		st = RT_JOURNAL_BUSY;
		rt_fmt(why, len, "an apply (pid %s) is running", holder);
	} else if (ret < 0) {
		st = RT_JOURNAL_STUCK;
		rt_fmt(why, len, "%s", msg);
	} else if (j->failures) {
		st = RT_JOURNAL_STUCK;
		rt_failed_why(j, why, len);
	} else {
		st = RT_JOURNAL_PENDING;
		rt_fmt(why, len, "%s: the next apply restores it", j->path);
	}
	free(j);
	return st;
}

enum rt_journal_state rt_journal_state_of(const struct rt_journal *j,
					  char *why, size_t len)
{
	char holder[32], now[IF_NAMESIZE] = "";
	unsigned int idx;

	if (rt_apply_running(j->valid ? j->netdev : j->file_netdev,
			     j->valid ? j->ifindex : 0, holder,
			     sizeof(holder))) {
		rt_fmt(why, len, "an apply (pid %s) is running", holder);
		return RT_JOURNAL_BUSY;
	}
	if (!j->valid) {
		rt_fmt(why, len, "%s", j->error);
		return RT_JOURNAL_STUCK;
	}
	if (j->failures) {
		rt_failed_why(j, why, len);
		return RT_JOURNAL_STUCK;
	}
	if (!if_indextoname((unsigned int)j->ifindex, now)) {
		idx = if_nametoindex(j->netdev);
		if (idx)
			rt_fmt(why, len,
			       "ifindex %d is gone and %s is now ifindex %u: applies to %s fail until it is discarded",
			       j->ifindex, j->netdev, idx, j->netdev);
		else
			rt_fmt(why, len,
			       "its NIC (ifindex %d) is gone: a NIC named %s would not apply until it is discarded",
			       j->ifindex, j->netdev);
		return RT_JOURNAL_STUCK;
	}
	if (strcmp(now, j->netdev))
		rt_fmt(why, len, "ifindex %d is now named %s: the next apply to %s restores it",
		       j->ifindex, now, now);
	else
		rt_fmt(why, len, "the next apply to %s restores it", now);
	return RT_JOURNAL_PENDING;
}

bool rt_journal_pending(const char *netdev)
{
	struct rt_journal *v = NULL;
	bool found = false;
	int n, i;

	n = rt_journal_list(&v, NULL, 0);
	for (i = 0; i < n; i++)
		found |= !strcmp(v[i].file_netdev, netdev) ||
			 (v[i].valid && !strcmp(v[i].netdev, netdev));
	free(v);
	return found;
}

int rt_journal_discard(const char *netdev, struct rt_journal **out,
		       unsigned int *nout, char *msg, size_t len)
{
	struct rt_journal *v = NULL;
	int n, i, ifindex = (int)if_nametoindex(netdev), ret = 0;
	unsigned int kept = 0;
	char path[1024], holder[32];

	*out = NULL;
	*nout = 0;
	n = rt_journal_list(&v, msg, len);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		struct rt_journal *j = &v[i];
		int fds[2] = { -1, -1 };

		if (strcmp(j->file_netdev, netdev) &&
		    !(j->valid && (!strcmp(j->netdev, netdev) ||
				   (ifindex > 0 && j->ifindex == ifindex))))
			continue;
		/* The locks its writer held, not waiting: a live apply wins. */
		if (j->file_netdev[0] &&
		    !rt_run_file(path, sizeof(path), j->file_netdev, "lock"))
			fds[0] = rt_lock_path(path, 0, holder, sizeof(holder));
		if (fds[0] >= 0 && j->valid &&
		    !rt_ifindex_lock_path(path, sizeof(path), j->ifindex)) {
			fds[1] = rt_lock_path(path, 0, holder, sizeof(holder));
			if (fds[1] < 0) {
				close(fds[0]);
				fds[0] = fds[1];
			}
		}
		if (fds[0] < 0) {
			rt_fmt(msg, len,
			       "%s is not discarded: %s", j->path,
			       fds[0] == -EBUSY ? "an apply is running" :
			       strerror(-fds[0]));
			if (fds[0] == -EBUSY) {
				size_t off = strlen(msg);

				rt_fmt(msg + off, len - off, " (pid %s)",
				       holder);
			}
			ret = fds[0] == -EBUSY ? -EBUSY : fds[0];
			continue;
		}
		if (unlink(j->path) && errno != ENOENT) {
			ret = -errno;
			rt_fmt(msg, len, "cannot remove %s: %s", j->path,
			       strerror(errno));
		} else {
			if (kept != (unsigned int)i)
				v[kept] = *j;
			kept++;
		}
		rt_nic_unlock(fds);
	}
	if (!kept) {
		free(v);
		v = NULL;
	}
	*out = v;
	*nout = kept;
	return ret ? ret : (int)kept;
}
