// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: argument parsing helpers.
 */
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_util.h"

int rt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int base = 10;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)s[2]))
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int rt_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int err;

	err = rt_parse_u64(s, min, max, &v);
	if (!err)
		*out = (uint32_t)v;
	return err;
}

int rt_parse_dev_port(const char *s, char *dev, size_t devlen, uint32_t *port)
{
	const char *slash;
	size_t n;
	uint32_t p = 0;

	if (!s || devlen < 2)
		return -EINVAL;
	slash = strchr(s, '/');
	n = slash ? (size_t)(slash - s) : strlen(s);
	if (n == 0 || n >= devlen || n > 63)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (isspace((unsigned char)s[i]))
			return -EINVAL;
	if (slash && rt_parse_u32(slash + 1, 1, 255, &p))
		return -EINVAL;
	memcpy(dev, s, n);
	dev[n] = '\0';
	*port = p;
	return 0;
}

int rt_keyword(const char *arg, const char *keyword)
{
	return arg && keyword && strcmp(arg, keyword) == 0;
}

void rt_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

int rt_check_ifname(const char *ifname, char *msg, size_t len)
{
	if (ifname && *ifname && strlen(ifname) < IF_NAMESIZE)
		return 0;
	rt_fmt(msg, len, "no network interface %s", ifname ? ifname : "(null)");
	return -ENODEV;
}
