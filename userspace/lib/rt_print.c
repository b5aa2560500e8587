// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: one print path for text and JSON.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt_print.h"

void rt_print_init(struct rt_print *pr, FILE *f, bool json, bool pretty)
{
	memset(pr, 0, sizeof(*pr));
	pr->f = f;
	pr->json = json;
	pr->pretty = json && pretty;
	pr->label_width = 24;
	pr->line_start = true;
}

/* Text mode: write @s, remembering whether the line is still empty. */
static void rt_print_out(struct rt_print *pr, const char *s)
{
	size_t n = strlen(s);

	if (!n)
		return;
	fwrite(s, 1, n, pr->f);
	pr->line_start = s[n - 1] == '\n';
}

static void rt_print_vout(struct rt_print *pr, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void rt_print_vout(struct rt_print *pr, const char *fmt, va_list ap)
{
	char buf[512], *big;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		rt_print_out(pr, buf);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big)
		return;
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	rt_print_out(pr, big);
	free(big);
}

static void rt_print_fmt(struct rt_print *pr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void rt_print_fmt(struct rt_print *pr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rt_print_vout(pr, fmt, ap);
	va_end(ap);
}

size_t rt_utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] < 0x80)
		return p[0] ? 1 : 0;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;		/* continuation, overlong lead, > U+10FFFF */
	/* The second byte's range excludes overlongs, surrogates, > U+10FFFF. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/*
 * Text mode: @s with control characters and bytes outside valid UTF-8
 * as \xNN, in a buffer to free.
 */
static char *rt_print_text_safe(const char *s)
{
	size_t len = strlen(s), i = 0, n;
	char *out = malloc(4 * len + 1), *o = out;

	if (!out)
		return NULL;
	while (s[i]) {
		unsigned char c = (unsigned char)s[i];

		n = rt_utf8_len(s + i);
		if (n == 1 && c >= 0x20 && c != 0x7f) {
			*o++ = s[i++];
		} else if (n > 1) {
			memcpy(o, s + i, n);
			o += n;
			i += n;
		} else {
			o += sprintf(o, "\\x%02x", c);
			i++;
		}
	}
	*o = '\0';
	return out;
}

static bool rt_print_wants(const struct rt_print *pr, enum rt_print_mode mode)
{
	return pr->json ? (mode & RT_PRINT_JSON) : (mode & RT_PRINT_TEXT);
}

static void rt_print_indent(struct rt_print *pr)
{
	int i;

	fputc('\n', pr->f);
	for (i = 0; i < pr->depth; i++)
		fputs("  ", pr->f);
}

void rt_print_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n;

	fputc('"', f);
	for (; *p; p++) {
		if (*p >= 0x80) {
			n = rt_utf8_len((const char *)p);
			if (!n) {
				fputs("\\ufffd", f);
				continue;
			}
			fwrite(p, 1, n, f);
			p += n - 1;
			continue;
		}
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Members written at the current level (nesting deeper than the limit
 * shares the last slot).
 */
static unsigned int *rt_print_count(struct rt_print *pr)
{
	int level = pr->depth < RT_PRINT_MAX_DEPTH ? pr->depth : RT_PRINT_MAX_DEPTH;

	return &pr->count[level - 1];
}

/* Separator, indentation and key before a JSON member or element. */
static void rt_print_member(struct rt_print *pr, const char *key)
{
	if (pr->depth > 0 && (*rt_print_count(pr))++)
		fputc(',', pr->f);
	if (pr->pretty && pr->depth > 0)
		rt_print_indent(pr);
	if (key) {
		rt_print_json_string(pr->f, key);
		fputs(pr->pretty ? ": " : ":", pr->f);
	}
}

static void rt_print_open(struct rt_print *pr, const char *key, char c)
{
	if (!pr->json)
		return;
	rt_print_member(pr, key);
	fputc(c, pr->f);
	pr->depth++;
	*rt_print_count(pr) = 0;
}

static void rt_print_close(struct rt_print *pr, char c)
{
	bool empty;

	if (!pr->json || pr->depth == 0)
		return;
	empty = !*rt_print_count(pr);
	pr->depth--;
	if (pr->pretty && !empty)
		rt_print_indent(pr);
	fputc(c, pr->f);
	if (pr->depth == 0) {
		fputc('\n', pr->f);
		fflush(pr->f);
	}
}

void rt_print_open_object(struct rt_print *pr, const char *key)
{
	rt_print_open(pr, key, '{');
}

void rt_print_close_object(struct rt_print *pr)
{
	rt_print_close(pr, '}');
}

void rt_print_open_array(struct rt_print *pr, const char *key)
{
	rt_print_open(pr, key, '[');
}

void rt_print_close_array(struct rt_print *pr)
{
	rt_print_close(pr, ']');
}

/*
 * The text formats are the callers' (the point of the one print path);
 * the prototypes in rt_print.h say which conversion each one takes.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void rt_print_uint(struct rt_print *pr, enum rt_print_mode mode,
		   const char *key, const char *fmt, uint64_t v)
{
	if (!rt_print_wants(pr, mode))
		return;
	if (pr->json) {
		rt_print_member(pr, key);
		fprintf(pr->f, "%" PRIu64, v);
	} else if (fmt) {
		rt_print_fmt(pr, fmt, v);
	}
}

void rt_print_string(struct rt_print *pr, enum rt_print_mode mode,
		     const char *key, const char *fmt, const char *s)
{
	if (!rt_print_wants(pr, mode))
		return;
	if (pr->json) {
		rt_print_member(pr, key);
		rt_print_json_string(pr->f, s);
	} else if (fmt) {
		char *safe = rt_print_text_safe(s ? s : "");

		rt_print_fmt(pr, fmt, safe ? safe : "?");
		free(safe);
	}
}

void rt_print_bool(struct rt_print *pr, enum rt_print_mode mode,
		   const char *key, const char *fmt, bool v)
{
	if (!rt_print_wants(pr, mode))
		return;
	if (pr->json) {
		rt_print_member(pr, key);
		fputs(v ? "true" : "false", pr->f);
	} else if (fmt) {
		rt_print_fmt(pr, fmt, v ? "yes" : "no");
	}
}

#pragma GCC diagnostic pop

void rt_print_counter(struct rt_print *pr, const char *key, const char *label,
		      const char *indent, uint64_t v)
{
	if (pr->json) {
		rt_print_member(pr, key);
		fprintf(pr->f, "%" PRIu64, v);
		return;
	}
	rt_print_fmt(pr, "%s%-*s %" PRIu64 "\n", indent ? indent : "",
		     pr->label_width, label, v);
}

void rt_print_keyword(char *buf, size_t len, const char *key)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; key && key[i] && i + 1 < len; i++)
		buf[i] = key[i] == '_' ? '-' : key[i];
	buf[i] = '\0';
}

/* " <keyword> " before a text value, without the blank at a line start. */
static void rt_print_kv_text(struct rt_print *pr, const char *key)
{
	char kw[64];

	rt_print_keyword(kw, sizeof(kw), key);
	rt_print_fmt(pr, "%s%s ", pr->line_start ? "" : " ", kw);
}

void rt_print_kv_uint(struct rt_print *pr, const char *key, uint64_t v)
{
	if (!pr->json)
		rt_print_kv_text(pr, key);
	rt_print_uint(pr, RT_PRINT_ANY, key, "%" PRIu64, v);
}

void rt_print_kv_string(struct rt_print *pr, const char *key, const char *s)
{
	if (!pr->json)
		rt_print_kv_text(pr, key);
	rt_print_string(pr, RT_PRINT_ANY, key, "%s", s);
}

void rt_print_kv_bool(struct rt_print *pr, const char *key, bool v)
{
	if (!pr->json)
		rt_print_kv_text(pr, key);
	rt_print_bool(pr, RT_PRINT_ANY, key, "%s", v);
}

void rt_print_text(struct rt_print *pr, const char *fmt, ...)
{
	va_list ap;

	if (pr->json)
		return;
	va_start(ap, fmt);
	rt_print_vout(pr, fmt, ap);
	va_end(ap);
}
