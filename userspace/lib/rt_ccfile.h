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

/* rt_debugfs_root() - $ROCETUNE_DEBUGFS when set, else /sys/kernel/debug. */
const char *rt_debugfs_root(void);

int rt_ccfile_read(const char *path, uint32_t *v, char *msg, size_t len);
int rt_ccfile_write(const char *path, uint32_t v, char *msg, size_t len);

#endif /* RT_CCFILE_H */
