// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: tuning profiles, the reader.
 *
 * The reader takes one physical line at a time, so its line count is the
 * line of every key.  It takes leading blanks off every line (an indented
 * line is never the continuation of the previous value), refuses inline
 * ';' comments, "Key: value" lines, control characters and over-long
 * lines, and keeps track of the section, so that an unknown or empty
 * section is an error even when no key follows it.  Each key goes to its
 * value parser (rt_pval.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rt_pparse.h"

/* The Key=value line that rt_read_line() left in st->key and st->val. */
static void rt_key(struct rt_pstate *st)
{
	const char *key = st->key, *v = st->val;
	struct rt_shown b;
	unsigned int k;
	int other = -1;

	st->key = NULL;

	if (!*key) {
		rt_perr(st, st->lineno, "=%s: no key before '=' (Key=value)",
			rt_show(&b, v));
		return;
	}
	for (k = 0; k < RT_PK_NUM; k++) {
		if (strcmp(rt_pkey_name(k), key))
			continue;
		if (st->sec != RT_SEC_NONE && rt_pkey_sec(k) == st->sec)
			break;
		other = (int)k;
	}
	if (st->sec == RT_SEC_BAD)
		return;	/* the section header was reported */
	if (st->sec == RT_SEC_NONE) {
		if (other >= 0)
			rt_perr(st, st->lineno,
				"%s=%s: key outside a section (it belongs in [%s])",
				key, rt_show(&b, v), rt_pkey_section(other));
		else
			rt_perr(st, st->lineno,
				"%s=%s: key outside a section (keys go in " RT_SEC_LIST ")",
				key, rt_show(&b, v));
		return;
	}
	if (k == RT_PK_NUM) {
		if (other >= 0) {
			rt_perr(st, st->lineno,
				"[%s] %s=%s: key in the wrong section (it belongs in [%s])",
				rt_sec_names[st->sec], key, rt_show(&b, v),
				rt_pkey_section(other));
			return;
		}
		for (k = 0; k < RT_PK_NUM; k++)
			if (rt_pkey_sec(k) == st->sec &&
			    !strcasecmp(rt_pkey_name(k), key))
				break;
		if (k < RT_PK_NUM)
			rt_perr(st, st->lineno,
				"[%s] %s=%s: unknown key (did you mean %s? keys are case-sensitive)",
				rt_sec_names[st->sec], key, rt_show(&b, v),
				rt_pkey_name(k));
		else
			rt_perr(st, st->lineno,
				"[%s] %s=%s: unknown key (%s)",
				rt_sec_names[st->sec], key, rt_show(&b, v),
				rt_sec_keys(st->sec));
		return;
	}
	if (!*v) {
		char buf[64];

		rt_kerr(st, st->lineno, k, v, "needs a value (%s)",
			rt_allowed(k, buf, sizeof(buf)));
		st->bad[k] = true;
		return;
	}
	if (rt_p_value(st, k, v)) {
		st->bad[k] = true;
		return;
	}
	/* A key given again: the later one wins, as in systemd. */
	st->bad[k] = false;
	st->p->line[k] = st->lineno;
	free(st->text[k]);
	st->text[k] = strdup(v);
	if (!st->text[k] && !st->read_errno)
		st->read_errno = ENOMEM;
}

/* A "[Section]" line (already trimmed). */
static void rt_section(struct rt_pstate *st, char *s)
{
	size_t n = strlen(s);
	struct rt_shown b;
	unsigned int i;

	st->sec = RT_SEC_BAD;
	/* "[match]" or "[Match] x" is one error, not also "no [Match]". */
	for (i = 0; s[i]; i++)
		if (!strncasecmp(s + i, "match", 5))
			st->seen_match = true;
	if (s[n - 1] != ']' || strchr(s + 1, '[') ||
	    strchr(s, ']') != s + n - 1) {
		rt_perr(st, st->lineno,
			"%s: malformed section header (" RT_SEC_LIST " alone on the line)",
			rt_show(&b, s));
		return;
	}
	s[n - 1] = '\0';
	for (i = RT_SEC_MATCH; i < RT_SEC_BAD; i++) {
		if (!strcmp(s + 1, rt_sec_names[i])) {
			st->sec = i;
			if (i == RT_SEC_MATCH)
				st->seen_match = true;
			if (i == RT_SEC_TUNE && !st->tune_line)
				st->tune_line = st->lineno;
			break;
		}
	}
	if (st->sec == RT_SEC_BAD)
		rt_perr(st, st->lineno,
			"[%s]: unknown section (" RT_SEC_LIST "; section names are case-sensitive)",
			rt_show(&b, s + 1));
	s[n - 1] = ']';
}

/*
 * Read and judge the next physical line: a Key=value line is left in
 * st->key and st->val for rt_key().  Returns false at the end of the
 * file or on a read error (st->read_errno).
 */
static bool rt_read_line(struct rt_pstate *st)
{
	size_t len = 0, i, col = 0;
	bool any = false, toolong = false;
	int c, ctl = -1;
	char *s, *e, *eq;
	struct rt_shown b;

	if (st->read_errno)
		return false;
	for (;;) {
		c = getc(st->f);
		if (c == EOF)
			break;
		/* /dev/zero, a FIFO that never ends: no profile is this long. */
		if (++st->bytes > RT_PROF_SIZE_MAX) {
			st->read_errno = EFBIG;
			return false;
		}
		any = true;
		if (c == '\n')
			break;
		if (len < RT_PROF_LINE_MAX)
			st->line[len++] = (char)c;
		else
			toolong = true;
	}
	if (!any) {
		if (ferror(st->f))
			st->read_errno = errno ? errno : EIO;
		return false;
	}
	st->lineno++;
	st->key = NULL;
	if (toolong) {
		rt_perr(st, st->lineno,
			"line too long (at most %d characters)",
			RT_PROF_LINE_MAX);
		return true;
	}
	if (len && st->line[len - 1] == '\r')
		len--;		/* CRLF */
	for (i = 0; i < len; i++) {
		unsigned char u = (unsigned char)st->line[i];

		if ((u < 0x20 && u != '\t') || u == 0x7f) {
			ctl = u;
			col = i + 1;
			break;
		}
	}
	if (ctl >= 0) {
		rt_perr(st, st->lineno,
			"control character 0x%02x in column %zu (a profile is text)",
			ctl, col);
		return true;
	}
	st->line[len] = '\0';
	s = st->line;
	if (st->lineno == 1 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	while (rt_isblank(*s))
		s++;
	e = s + strlen(s);
	while (e > s && rt_isblank(e[-1]))
		*--e = '\0';

	if (!*s || *s == '#' || *s == ';')
		return true;
	if (*s == '[') {
		rt_section(st, s);
		return true;
	}
	eq = s + strcspn(s, "=:");
	if (!*eq) {
		rt_perr(st, st->lineno,
			"'%s': neither Key=value nor [Section] nor a comment",
			rt_show(&b, s));
		return true;
	}
	if (*eq == ':') {
		rt_perr(st, st->lineno,
			"'%s': no '=' before the first ':' (Key=value)",
			rt_show(&b, s));
		return true;
	}
	if (strchr(s, ';')) {
		rt_perr(st, st->lineno,
			"'%s': ';' inside a line (comments are whole lines starting with '#' or ';')",
			rt_show(&b, s));
		return true;
	}
	/* Key=value: rt_key() reads them from here. */
	*eq = '\0';
	for (e = eq; e > s && rt_isblank(e[-1]); )
		*--e = '\0';
	st->key = s;
	for (st->val = eq + 1; rt_isblank(*st->val); st->val++)
		;
	return true;
}

void rt_read_lines(struct rt_pstate *st)
{
	while (rt_read_line(st))
		if (st->key)
			rt_key(st);
}
