/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the profile parser's private header.
 *
 * What the files of the parser share, and nothing else includes:
 *   rt_pkeys.c    the keys: names, sections, the [DCQCN] table
 *   rt_pdiag.c    the diagnostics (FILE:LINE: ...)
 *   rt_pval.c     the value of each key into struct rt_profile
 *   rt_pread.c    the reader: lines, sections, keys
 *   rt_pcheck.c   the keys against each other, once the file is read
 *   rt_pload.c    the loader (files, directories) and the matcher
 * Each calls only files listed above it, so no two of them call each
 * other.  The rest of rocetune uses rt_profile.h, the API of them all.
 */
#ifndef RT_PPARSE_H
#define RT_PPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rt_profile.h"

/* The sections, in the order of enum rt_pkey. */
enum rt_psec {
	RT_SEC_NONE,		/* before the first section */
	RT_SEC_MATCH,
	RT_SEC_LOSSLESS,
	RT_SEC_DCQCN,
	RT_SEC_AGENT,
	RT_SEC_WATCHDOG,
	RT_SEC_TUNE,
	RT_SEC_VERIFY,
	RT_SEC_BAD,		/* after an unknown or malformed header */
};

#define RT_SEC_LIST	"[Match], [Lossless], [DCQCN], [Agent], [Watchdog], [Tune] or [Verify]"

/* ---- rt_pkeys.c ---- */

/* "Match", ..., "Tune" by enum rt_psec; NULL for RT_SEC_NONE. */
extern const char *const rt_sec_names[RT_SEC_BAD];
/* rt_pkey_sec() - the section of key @k. */
enum rt_psec rt_pkey_sec(enum rt_pkey k);
/* rt_sec_keys() - the keys of section @s, for "unknown key (...)". */
const char *rt_sec_keys(enum rt_psec s);

/* ---- the parse state of one file ---- */

struct rt_pstate {
	const char *path;
	FILE *f;
	struct rt_profile *p;
	struct rt_diag *d;
	unsigned int nerr;		/* errors of this file */
	unsigned int lineno;		/* of the line last read */
	int read_errno;
	size_t bytes;			/* read so far */
	enum rt_psec sec;
	bool seen_match;	/* or a bad header that meant it */
	unsigned int tune_line;	/* of the first [Tune] header, 0: none */
	/* The key line last read, for rt_key(). */
	char line[RT_PROF_LINE_MAX + 1];
	const char *key;
	const char *val;
	/* Per key: the last value given (for messages) and whether it failed. */
	char *text[RT_PK_NUM];
	bool bad[RT_PK_NUM];
};

static inline bool rt_isblank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- rt_pdiag.c ---- */

/* A value as shown in a message: at most 64 characters. */
struct rt_shown {
	char s[72];
};

/* rt_show() - @v, or its first 61 characters and "..." in @b. */
const char *rt_show(struct rt_shown *b, const char *v);

/* rt_perr() - "FILE:LINE: message" into st->d, counted in st->nerr. */
void rt_perr(struct rt_pstate *st, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* rt_kerr() - "FILE:LINE: [Section] Key=value: what is wrong (allowed)" */
void rt_kerr(struct rt_pstate *st, unsigned int line, enum rt_pkey k,
	     const char *val, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* ---- rt_pval.c ---- */

/*
 * rt_p_value() - parse @v, the value of key @k on line st->lineno, into
 * st->p.  Returns 0, or -1 when it reported an error.
 */
int rt_p_value(struct rt_pstate *st, enum rt_pkey k, const char *v);

/* rt_allowed() - what @k takes, for "needs a value"; may use @buf. */
const char *rt_allowed(enum rt_pkey k, char *buf, size_t len);

/* ---- rt_pread.c ---- */

/*
 * rt_read_lines() - read st->f to its end, every key into st->p and every
 * error into st->d; a read error or a file too long is left in
 * st->read_errno.
 */
void rt_read_lines(struct rt_pstate *st);

/* ---- rt_pcheck.c ---- */

/* rt_check_profile() - the keys of st->p against each other. */
void rt_check_profile(struct rt_pstate *st);

#endif /* RT_PPARSE_H */
