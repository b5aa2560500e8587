// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: one print path for text and JSON.
 */
#include <stdarg.h>
#include <string.h>

#include "rt_print.h"

void rt_print_init(struct rt_print *pr, FILE *f, bool json, bool pretty)
{
	memset(pr, 0, sizeof(*pr));
	pr->f = f;
	pr->json = json;
	pr->pretty = json && pretty;
	pr->label_width = 24;
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

	fputc('"', f);
	for (; *p; p++) {
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
		fprintf(pr->f, fmt, v);
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
		fprintf(pr->f, fmt, s ? s : "");
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
		fprintf(pr->f, fmt, v ? "yes" : "no");
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
	fprintf(pr->f, "%s%-*s %" PRIu64 "\n", indent ? indent : "",
		pr->label_width, label, v);
}

void rt_print_text(struct rt_print *pr, const char *fmt, ...)
{
	va_list ap;

	if (pr->json)
		return;
	va_start(ap, fmt);
	vfprintf(pr->f, fmt, ap);
	va_end(ap);
}
