/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: one print path for text and JSON.
 *
 * Every value is printed once, through one call that names both its JSON
 * key and its text format:
 *
 *	rt_print_uint(pr, RT_PRINT_ANY, "num_ports", "num-ports %" PRIu64 " ", n);
 *
 * In JSON mode the key and the value are written (numbers as numbers,
 * strings escaped); in text mode the format is applied to the value.
 * RT_PRINT_JSON and RT_PRINT_TEXT restrict a call to one of the two modes.
 * Objects and arrays are only written in JSON mode; text layout is the
 * caller's, through the format strings and rt_print_text().  Closing a
 * top-level JSON container ends the line, so consecutive top-level
 * objects form JSON lines (monitor).
 *
 * The rt_print_kv_*() calls take only the JSON key and derive the text
 * keyword from it (snake_case to kebab-case, "num_ports" -> "num-ports"),
 * so that the two cannot drift apart:
 *
 *	rt_print_kv_uint(pr, "num_ports", n);	-> "num_ports":1 / " num-ports 1"
 *
 * Strings are UTF-8: in JSON a byte that is not part of a valid UTF-8
 * sequence becomes U+FFFD (the output is always valid JSON, whatever a
 * process name holds); in text such a byte and control characters are
 * written as \xNN.
 */
#ifndef RT_PRINT_H
#define RT_PRINT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum rt_print_mode {
	RT_PRINT_TEXT = 1,
	RT_PRINT_JSON = 2,
	RT_PRINT_ANY = RT_PRINT_TEXT | RT_PRINT_JSON,
};

#define RT_PRINT_MAX_DEPTH	16

struct rt_print {
	FILE *f;
	bool json;
	bool pretty;
	int depth;			/* open JSON containers */
	unsigned int count[RT_PRINT_MAX_DEPTH];	/* members written per level */
	int label_width;		/* text column of rt_print_counter() */
	bool line_start;		/* text: nothing written on this line */
};

/* rt_print_init() - print to @f, as JSON when @json, indented when @pretty. */
void rt_print_init(struct rt_print *pr, FILE *f, bool json, bool pretty);

/* Containers; @key is NULL inside arrays and at the top level. JSON only. */
void rt_print_open_object(struct rt_print *pr, const char *key);
void rt_print_close_object(struct rt_print *pr);
void rt_print_open_array(struct rt_print *pr, const char *key);
void rt_print_close_array(struct rt_print *pr);

/*
 * Values.  @key is the JSON key (NULL inside an array), @fmt the text
 * format of the value (NULL prints nothing in text mode); its conversion
 * must match the type: "%" PRIu64 for uint, "%s" for string and bool.
 */
void rt_print_uint(struct rt_print *pr, enum rt_print_mode mode,
		   const char *key, const char *fmt, uint64_t v);
void rt_print_string(struct rt_print *pr, enum rt_print_mode mode,
		     const char *key, const char *fmt, const char *s);
void rt_print_bool(struct rt_print *pr, enum rt_print_mode mode,
		   const char *key, const char *fmt, bool v);

/*
 * rt_print_counter() - a named counter: "key": v in JSON, an aligned
 * "<indent>label<padding> v" line in text (label_width wide).
 */
void rt_print_counter(struct rt_print *pr, const char *key, const char *label,
		      const char *indent, uint64_t v);

/*
 * rt_print_kv_uint() / _string() / _bool() - @key: v in JSON; in text
 * " <keyword> v", the keyword being @key in kebab-case (no leading blank
 * at the start of a line); booleans are "yes" or "no" in text.
 */
void rt_print_kv_uint(struct rt_print *pr, const char *key, uint64_t v);
void rt_print_kv_string(struct rt_print *pr, const char *key, const char *s);
void rt_print_kv_bool(struct rt_print *pr, const char *key, bool v);

/*
 * rt_print_keyword() - the text keyword of JSON key @key into @buf:
 * every '_' becomes '-'.  Truncated to @len - 1 characters.
 */
void rt_print_keyword(char *buf, size_t len, const char *key);

/* rt_print_text() - literal text, text mode only. */
void rt_print_text(struct rt_print *pr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * rt_print_json_string() - write @s as a JSON string literal, escaped;
 * bytes outside valid UTF-8 sequences become \ufffd.
 */
void rt_print_json_string(FILE *f, const char *s);

/*
 * rt_utf8_len() - the length (1..4) of the valid UTF-8 sequence @p starts
 * with (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF), 0 when it does not start with one or @p is at its end.
 */
size_t rt_utf8_len(const char *p);

#endif /* RT_PRINT_H */
