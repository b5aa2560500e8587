/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: vendor congestion-control parameter files
 * (mlx5 debugfs cc_params/NAME, bnxt_re debugfs cc_config/NAME).
 *
 * Values are written in decimal without leading zeros (the drivers parse
 * with base 0, where a leading 0 means octal) and read back as the
 * decimal number the driver prints.  Errors name the file and explain the
 * cause; EPERM explains kernel lockdown (Secure Boot), which refuses even
 * opening these files.  Return 0 or a negative errno; @msg (of @len
 * bytes, may be NULL) holds the message.
 */
#ifndef RT_CCFILE_H
#define RT_CCFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * rt_debugfs_root() - $ROCETUNE_DEBUGFS when set and not empty, else
 * /sys/kernel/debug.
 */
const char *rt_debugfs_root(void);

int rt_ccfile_read(const char *path, uint32_t *v, char *msg, size_t len);
int rt_ccfile_write(const char *path, uint32_t v, char *msg, size_t len);

/*
 * rt_ccfile_parse() - the strict decimal u32 of the @n bytes at @buf:
 * digits only, no leading zero (but "0"), one trailing newline allowed,
 * as the drivers print it.  Returns 0, -EINVAL (not such a number) or
 * -ERANGE (over 32 bits).  Exposed for the unit tests.
 */
int rt_ccfile_parse(const char *buf, size_t n, uint32_t *v);

/*
 * rt_ccfile_format_error() - the message of errno @err (sign ignored)
 * of @op ("open", "write") on @path; @lockdown is the content of
 * /sys/kernel/security/lockdown ("none [integrity] confidentiality"), or
 * NULL when it could not be read.  Exposed for the unit tests.
 */
void rt_ccfile_format_error(char *msg, size_t len, const char *path,
			    const char *op, int err, const char *lockdown);

#endif /* RT_CCFILE_H */
