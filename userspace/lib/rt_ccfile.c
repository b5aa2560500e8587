// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: one vendor congestion-control parameter
 * file (mlx5 debugfs cc_params/NAME, bnxt_re debugfs cc_config/NAME).
 *
 * The drivers parse what is written with kstrtou32(..., 0), where a
 * leading 0 means octal and 0x hex, and print the value in decimal; so
 * values go out as "%u\n" and come back as a strict decimal number.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_ccfile.h"

#define RT_DEBUGFS_DEFAULT	"/sys/kernel/debug"
#define RT_LOCKDOWN_FILE	"/sys/kernel/security/lockdown"
#define RT_CC_MAXLEN		32	/* "4294967295\n" is 11 bytes */

static const char *rt_cc_errname(int err)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);

	return name ? name : "unknown errno";
}

const char *rt_debugfs_root(void)
{
	const char *root = secure_getenv("ROCETUNE_DEBUGFS");

	return root && *root ? root : RT_DEBUGFS_DEFAULT;
}

int rt_ccfile_parse(const char *buf, size_t n, uint32_t *v)
{
	uint64_t val = 0;
	size_t i;

	if (n && buf[n - 1] == '\n')
		n--;
	/* The drivers print "%d"/"%u": a leading 0 would be no decimal. */
	if (!n || (n > 1 && buf[0] == '0'))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -EINVAL;
		val = val * 10 + (uint64_t)(buf[i] - '0');
		if (val > UINT32_MAX)
			return -ERANGE;
	}
	*v = (uint32_t)val;
	return 0;
}

/* The active mode of "none [integrity] confidentiality", or NULL. */
static const char *rt_cc_lockdown_mode(const char *lockdown, char *mode,
				       size_t mlen)
{
	const char *lb, *rb;

	if (!lockdown)
		return NULL;
	lb = strchr(lockdown, '[');
	rb = lb ? strchr(lb, ']') : NULL;
	if (!rb)
		return NULL;
	snprintf(mode, mlen, "%.*s", (int)(rb - lb + 1), lb);
	return mode;
}

void rt_ccfile_format_error(char *msg, size_t len, const char *path,
			    const char *op, int err, const char *lockdown)
{
	static const char why[] =
		"under lockdown debugfs refuses to open a file for writing, "
		"and refuses even to open for reading a file that has write "
		"permission bits, so these congestion-control parameters "
		"cannot be changed at run time";
	int e = err < 0 ? -err : err;
	const char *mode;
	char mbuf[40];

	if (!msg || !len)
		return;
	switch (e) {
	case ENOENT:
		snprintf(msg, len,
			 "%s: no such file: the driver does not expose this parameter here, or the device is gone (%s)",
			 path, rt_cc_errname(e));
		break;
	case EPERM:
		mode = rt_cc_lockdown_mode(lockdown, mbuf, sizeof(mbuf));
		if (mode && strcmp(mode, "[none]"))
			snprintf(msg, len,
				 "%s: %s: %s (%s): the kernel is locked down (%s, as under Secure Boot); %s",
				 path, op, strerror(e), rt_cc_errname(e), mode,
				 why);
		else if (mode)
			snprintf(msg, len,
				 "%s: %s: %s (%s); the kernel is not locked down (%s)",
				 path, op, strerror(e), rt_cc_errname(e), mode);
		else
			snprintf(msg, len,
				 "%s: %s: %s (%s): probably kernel lockdown (as under Secure Boot; " RT_LOCKDOWN_FILE " is not readable); %s",
				 path, op, strerror(e), rt_cc_errname(e), why);
		break;
	case EACCES:
		snprintf(msg, len, "%s: %s: %s (%s): debugfs needs root", path,
			 op, strerror(e), rt_cc_errname(e));
		break;
	default:
		snprintf(msg, len, "%s: %s: %s (%s)", path, op, strerror(e),
			 rt_cc_errname(e));
		break;
	}
}

/* The error @err of @op on @path, explained; returns @err. */
static int rt_cc_fail(int err, const char *path, const char *op, char *msg,
		      size_t len)
{
	char lockdown[128];
	const char *ld = NULL;
	ssize_t n;
	int fd;

	if (!msg || !len)
		return err;
	if (err == -EPERM) {
		fd = open(RT_LOCKDOWN_FILE, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, lockdown, sizeof(lockdown) - 1);
			if (n > 0) {
				lockdown[n] = '\0';
				ld = lockdown;
			}
			close(fd);
		}
	}
	rt_ccfile_format_error(msg, len, path, op, err, ld);
	return err;
}

int rt_ccfile_read(const char *path, uint32_t *v, char *msg, size_t len)
{
	char buf[RT_CC_MAXLEN + 1];
	size_t got = 0;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rt_cc_fail(-errno, path, "open", msg, len);
	while (got < RT_CC_MAXLEN) {
		n = read(fd, buf + got, RT_CC_MAXLEN - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			close(fd);
			return rt_cc_fail(err, path, "read", msg, len);
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	close(fd);

	err = got < RT_CC_MAXLEN ? rt_ccfile_parse(buf, got, v) : -EINVAL;
	if (err && msg && len) {
		size_t i, show = got < 16 ? got : 16;

		/* Quote what was read, blanks and control bytes as '.'. */
		for (i = 0; i < show; i++)
			if (!isgraph((unsigned char)buf[i]))
				buf[i] = '.';
		buf[show] = '\0';
		snprintf(msg, len, "%s: %s: \"%s%s\"", path,
			 err == -ERANGE ? "value does not fit in 32 bits" :
			 "not a decimal number", buf, got > show ? "..." : "");
	}
	return err;
}

int rt_ccfile_write(const char *path, uint32_t v, char *msg, size_t len)
{
	char buf[16];
	ssize_t n;
	int fd, err = 0, blen;

	/* Decimal, no leading zero: the drivers parse base 0. */
	blen = snprintf(buf, sizeof(buf), "%u\n", v);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return rt_cc_fail(-errno, path, "open for writing", msg, len);
	do {
		n = write(fd, buf, (size_t)blen);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if (n != blen)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err)
		return 0;
	if (msg && len) {
		if (n >= 0 && n != blen)
			snprintf(msg, len, "%s: short write of %u (%zd of %d bytes)",
				 path, v, n, blen);
		else if (err == -EINVAL)
			snprintf(msg, len,
				 "%s: the driver refused the value %u: %s (%s)",
				 path, v, strerror(EINVAL), rt_cc_errname(err));
		else if (err == -EOPNOTSUPP)
			snprintf(msg, len,
				 "%s: the driver cannot set this parameter: %s (%s)",
				 path, strerror(EOPNOTSUPP), rt_cc_errname(err));
		else
			rt_cc_fail(err, path, "write", msg, len);
	}
	return err;
}
