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

/* rt_print_text() - literal text, text mode only. */
void rt_print_text(struct rt_print *pr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* rt_print_json_string() - write @s as a JSON string literal, escaped. */
void rt_print_json_string(FILE *f, const char *s);

#endif /* RT_PRINT_H */
