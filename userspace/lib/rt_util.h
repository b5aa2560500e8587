/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: argument parsing helpers shared by the CLI
 * and the agent.
 */
#ifndef RT_UTIL_H
#define RT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/*
 * rt_parse_u64() - parse an unsigned integer in [min, max].
 * Accepts decimal or 0x-prefixed hexadecimal, nothing else: no sign, no
 * leading or trailing blanks, no trailing garbage, no empty string.
 * Returns 0, or -EINVAL (not a number) or -ERANGE (outside [min, max]).
 */
int rt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int rt_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);

/*
 * rt_parse_dev_port() - split "DEV" or "DEV/PORT" as the rdma tool writes
 * a device port.  DEV must be 1..63 characters without '/' or blanks; PORT
 * (when present) 1..255.  *port is 0 when no port was given.
 * Returns 0 or -EINVAL.
 */
int rt_parse_dev_port(const char *s, char *dev, size_t devlen, uint32_t *port);

/*
 * rt_fmt() - snprintf() into @buf for messages, where truncating a long
 * path is acceptable; @buf may be NULL.
 */
void rt_fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * rt_check_ifname() - 0 when @ifname can name a network interface, else
 * -ENODEV with "no network interface NAME" in @msg (may be NULL).
 */
int rt_check_ifname(const char *ifname, char *msg, size_t len);

/* rt_keyword() - whole-word match of a command-line keyword. */
int rt_keyword(const char *arg, const char *keyword);

#endif /* RT_UTIL_H */
