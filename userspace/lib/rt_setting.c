// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the settings of a NIC's state (see
 * rt_setting.h): comparing, finding and adding them, and their names and
 * values as the apply reports them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rt_util.h"
#include "rt_setting.h"

/*
 * The PFC storm timeout "auto" is a fixed timeout in the driver (mlx5:
 * 100 ms), which is what reads back after setting it.
 */
#define RT_PFC_STORM_AUTO_MS	100

static uint64_t rt_storm_norm(uint64_t v)
{
	return v == RT_PFC_STORM_AUTO ? RT_PFC_STORM_AUTO_MS : v;
}

unsigned int rt_dscp_mask(const struct rt_setting *s)
{
	if (s->absent)
		return 0;
	if (s->n >= 2)
		return (unsigned int)s->v[1] & 0xff;
	return s->v[0] < 8 ? 1u << s->v[0] : 0;
}

bool rt_setting_equal(const struct rt_setting *a, const struct rt_setting *b)
{
	unsigned int i;

	/* A DSCP is its set of entries: a duplicated one differs. */
	if (a->kind == RT_SK_DSCP && b->kind == RT_SK_DSCP)
		return a->key == b->key && a->absent == b->absent &&
		       rt_dscp_mask(a) == rt_dscp_mask(b);

	if (a->kind == RT_SK_PFC_STORM && b->kind == RT_SK_PFC_STORM)
		return a->n == b->n && a->n == 1 &&
		       rt_storm_norm(a->v[0]) == rt_storm_norm(b->v[0]);

	if (a->kind != b->kind || a->key != b->key || a->absent != b->absent)
		return false;
	if (a->absent)
		return true;
	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->v[i] != b->v[i])
			return false;
	return true;
}

const struct rt_setting *rt_state_find(const struct rt_state *st,
				       enum rt_set_kind kind, unsigned int key)
{
	unsigned int i;

	for (i = 0; i < st->n; i++)
		if (st->s[i].kind == kind && st->s[i].key == key)
			return &st->s[i];
	return NULL;
}

struct rt_setting *rt_state_add(struct rt_state *st, enum rt_set_kind kind,
				unsigned int key)
{
	struct rt_setting *s;

	if (st->n >= RT_SET_MAX)
		return NULL;
	s = &st->s[st->n++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->key = key;
	return s;
}

static const char *rt_cc_key_name(unsigned int key)
{
	if (key < RT_DCQCN_NUM)
		return rt_dcqcn_keys[key].key;
	if (key == RT_CC_KEY_CNP_PRIO_MODE)
		return "cnp-prio-mode";
	return "?";
}

void rt_setting_name(const struct rt_setting *s, char *buf, size_t len)
{
	switch (s->kind) {
	case RT_SK_ETS:
		rt_fmt(buf, len, "ets");
		break;
	case RT_SK_PFC:
		rt_fmt(buf, len, "pfc");
		break;
	case RT_SK_MAXRATE:
		rt_fmt(buf, len, "maxrate");
		break;
	case RT_SK_BUFFER:
		rt_fmt(buf, len, "buffer");
		break;
	case RT_SK_DSCP:
		rt_fmt(buf, len, "dscp %u", s->key);
		break;
	case RT_SK_APPTRUST:
		rt_fmt(buf, len, "apptrust");
		break;
	case RT_SK_PFC_STORM:
		rt_fmt(buf, len, "pfc-storm-timeout");
		break;
	case RT_SK_CC:
		rt_fmt(buf, len, "dcqcn %s", rt_cc_key_name(s->key));
		break;
	}
}

static const char *rt_tsa_name(uint64_t tsa)
{
	switch (tsa) {
	case RT_TSA_STRICT:
		return "strict";
	case RT_TSA_CBS:
		return "cbs";
	case RT_TSA_ETS:
		return "ets";
	case RT_TSA_VENDOR:
		return "vendor";
	}
	return "?";
}

/* Append "[prefix]a,b,c" of @n values from @v (formatted by @fmt). */
static size_t rt_fmt_list(char *buf, size_t len, size_t off,
			  const char *prefix, const uint64_t *v,
			  unsigned int n, bool tsa)
{
	unsigned int i;

	off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s",
				prefix);
	for (i = 0; i < n; i++) {
		if (tsa)
			off += (size_t)snprintf(buf + off,
						off < len ? len - off : 0,
						"%s%s", i ? "," : "",
						rt_tsa_name(v[i]));
		else
			off += (size_t)snprintf(buf + off,
						off < len ? len - off : 0,
						"%s%" PRIu64, i ? "," : "",
						v[i]);
	}
	return off;
}

static void rt_fmt_prios(char *buf, size_t len, uint64_t map)
{
	size_t off = 0;
	unsigned int i;

	if (!map) {
		rt_fmt(buf, len, "none");
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < RT_NPRIO; i++)
		if (map & (1u << i))
			off += (size_t)snprintf(buf + off,
						off < len ? len - off : 0,
						"%s%u", off ? "," : "", i);
}

static const char *rt_sel_name(uint64_t sel)
{
	switch (sel) {
	case 1:
		return "ethtype";
	case 2:
		return "stream";
	case 3:
		return "dgram";
	case 4:
		return "any";
	case 5:
		return "dscp";
	case 255:
		return "pcp";
	}
	return "?";
}

void rt_setting_value(const struct rt_setting *s, char *buf, size_t len)
{
	char prios[32];
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	switch (s->kind) {
	case RT_SK_ETS:
		off = rt_fmt_list(buf, len, off, "prio-tc ", s->v, 8, false);
		off = rt_fmt_list(buf, len, off, " tsa ", s->v + 8, 8, true);
		rt_fmt_list(buf, len, off, " bw ", s->v + 16, 8, false);
		break;
	case RT_SK_PFC:
		rt_fmt_prios(prios, sizeof(prios), s->v[0]);
		rt_fmt(buf, len, "prio-pfc %s delay %" PRIu64, prios, s->v[1]);
		break;
	case RT_SK_MAXRATE:
		for (i = 0; i < RT_NTC; i++)
			off += (size_t)snprintf(buf + off,
						off < len ? len - off : 0,
						"%s%" PRIu64, i ? "," : "tc-maxrate-kbps ",
						s->v[i]);
		break;
	case RT_SK_BUFFER:
		off = rt_fmt_list(buf, len, off, "prio-buffer ", s->v, 8,
				  false);
		rt_fmt_list(buf, len, off, " buffer-size ", s->v + 8, 8, false);
		break;
	case RT_SK_DSCP:
		if (s->absent) {
			rt_fmt(buf, len, "none");
		} else if (__builtin_popcount(rt_dscp_mask(s)) > 1) {
			rt_fmt_prios(prios, sizeof(prios), rt_dscp_mask(s));
			rt_fmt(buf, len, "prio %s (one entry each)", prios);
		} else {
			rt_fmt(buf, len, "prio %" PRIu64, s->v[0]);
		}
		break;
	case RT_SK_APPTRUST:
		for (i = 0; i < s->n; i++)
			off += (size_t)snprintf(buf + off,
						off < len ? len - off : 0,
						"%s%s", i ? " " : "",
						rt_sel_name(s->v[i]));
		break;
	case RT_SK_PFC_STORM:
		if (s->v[0] == RT_PFC_STORM_OFF)
			rt_fmt(buf, len, "off");
		else if (s->v[0] == RT_PFC_STORM_AUTO)
			rt_fmt(buf, len, "auto");
		else
			rt_fmt(buf, len, "%" PRIu64 " ms", s->v[0]);
		break;
	case RT_SK_CC:
		if (s->key == RT_DCQCN_ENABLE && s->n == RT_RXE_EN_N)
			rt_fmt(buf, len, "accounting %s np %s rp %s",
			       s->v[RT_RXE_EN_ACCT] ? "on" : "off",
			       s->v[RT_RXE_EN_NP] ? "on" : "off",
			       s->v[RT_RXE_EN_RP] ? "on" : "off");
		else
			rt_fmt(buf, len, "%" PRIu64, s->v[0]);
		break;
	}
}
