// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: tuning profiles, the diagnostics.
 *
 * Every error of a profile is one line of struct rt_diag, formatted
 * "FILE:LINE: [Section] Key=value: what is wrong (what is allowed)":
 * rt_perr() and rt_kerr() while a file is parsed, rt_profile_key_err()
 * for the checks that hold a parsed profile against a NIC (rt_want.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_pparse.h"

void rt_diag_add(struct rt_diag *d, const char *fmt, ...)
{
	va_list ap;

	if (d->n < RT_DIAG_MAX) {
		va_start(ap, fmt);
		vsnprintf(d->msg[d->n], RT_DIAG_LEN, fmt, ap);
		va_end(ap);
	}
	d->n++;
}

void rt_diag_print(const struct rt_diag *d, FILE *f)
{
	unsigned int i;

	for (i = 0; i < d->n && i < RT_DIAG_MAX; i++)
		fprintf(f, "%s\n", d->msg[i]);
	if (d->n > RT_DIAG_MAX)
		fprintf(f, "... and %u more errors\n", d->n - RT_DIAG_MAX);
}

const char *rt_show(struct rt_shown *b, const char *v)
{
	size_t n = strlen(v);

	if (n <= 64)
		return v;
	snprintf(b->s, sizeof(b->s), "%.61s...", v);
	return b->s;
}

void rt_perr(struct rt_pstate *st, unsigned int line, const char *fmt, ...)
{
	char msg[RT_DIAG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rt_diag_add(st->d, "%s:%u: %s", st->path, line, msg);
	st->nerr++;
}

/* "FILE:LINE: [Section] Key=value: what is wrong (what is allowed)" */
void rt_kerr(struct rt_pstate *st, unsigned int line, enum rt_pkey k,
	     const char *val, const char *fmt, ...)
{
	char msg[RT_DIAG_LEN];
	struct rt_shown b;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rt_perr(st, line, "[%s] %s=%s: %s", rt_pkey_section(k),
		rt_pkey_name(k), rt_show(&b, val), msg);
}

void rt_profile_key_err(struct rt_diag *d, const struct rt_profile *p,
			enum rt_pkey key, const char *fmt, ...)
{
	char text[RT_DIAG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rt_diag_add(d, "%s:%u: [%s] %s: %s", p->path, p->line[key],
		    rt_pkey_section(key), rt_pkey_name(key), text);
}
