// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of lib/rt_util.c (cmocka).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rt_util.h"

static void parse_u64_accepts(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(rt_parse_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rt_parse_u64("100", 0, 1000, &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(rt_parse_u64("0x1F", 0, 1000, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(rt_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
}

static void parse_u64_rejects(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(rt_parse_u64("", 0, 10, &v), -EINVAL);
	assert_int_equal(rt_parse_u64(NULL, 0, 10, &v), -EINVAL);
	assert_int_equal(rt_parse_u64("-1", 0, 10, &v), -EINVAL);
	assert_int_equal(rt_parse_u64("+1", 0, 10, &v), -EINVAL);
	assert_int_equal(rt_parse_u64(" 1", 0, 10, &v), -EINVAL);
	assert_int_equal(rt_parse_u64("1 ", 0, 10, &v), -EINVAL);
	assert_int_equal(rt_parse_u64("1k", 0, 10, &v), -EINVAL);
	assert_int_equal(rt_parse_u64("0x", 0, 10, &v), -EINVAL);
	assert_int_equal(rt_parse_u64("11", 0, 10, &v), -ERANGE);
	assert_int_equal(rt_parse_u64("4", 5, 10, &v), -ERANGE);
	assert_int_equal(rt_parse_u64("18446744073709551616", 0, UINT64_MAX, &v),
			 -ERANGE);
	/* A failed parse leaves the output alone. */
	assert_int_equal(v, 7);
}

static void parse_u32_bounds(void **state)
{
	uint32_t v = 0;

	(void)state;
	assert_int_equal(rt_parse_u32("4294967295", 0, UINT32_MAX, &v), 0);
	assert_true(v == UINT32_MAX);
	assert_int_equal(rt_parse_u32("4294967296", 0, UINT32_MAX, &v), -ERANGE);
}

static void dev_port_split(void **state)
{
	char dev[64];
	uint32_t port = 9;

	(void)state;
	assert_int_equal(rt_parse_dev_port("rxe0", dev, sizeof(dev), &port), 0);
	assert_string_equal(dev, "rxe0");
	assert_int_equal(port, 0);
	assert_int_equal(rt_parse_dev_port("mlx5_0/1", dev, sizeof(dev), &port), 0);
	assert_string_equal(dev, "mlx5_0");
	assert_int_equal(port, 1);
}

static void dev_port_rejects(void **state)
{
	char dev[8];
	uint32_t port = 0;

	(void)state;
	assert_int_equal(rt_parse_dev_port("", dev, sizeof(dev), &port), -EINVAL);
	assert_int_equal(rt_parse_dev_port("/1", dev, sizeof(dev), &port), -EINVAL);
	assert_int_equal(rt_parse_dev_port("rxe0/", dev, sizeof(dev), &port), -EINVAL);
	assert_int_equal(rt_parse_dev_port("rxe0/0", dev, sizeof(dev), &port), -EINVAL);
	assert_int_equal(rt_parse_dev_port("rxe0/256", dev, sizeof(dev), &port), -EINVAL);
	assert_int_equal(rt_parse_dev_port("rx e0", dev, sizeof(dev), &port), -EINVAL);
	/* Longer than the caller's buffer. */
	assert_int_equal(rt_parse_dev_port("verylongname", dev, sizeof(dev), &port),
			 -EINVAL);
}

static void keyword_whole_word(void **state)
{
	(void)state;
	assert_true(rt_keyword("show", "show"));
	assert_false(rt_keyword("sh", "show"));
	assert_false(rt_keyword("showx", "show"));
	assert_false(rt_keyword(NULL, "show"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_u64_accepts),
		cmocka_unit_test(parse_u64_rejects),
		cmocka_unit_test(parse_u32_bounds),
		cmocka_unit_test(dev_port_split),
		cmocka_unit_test(dev_port_rejects),
		cmocka_unit_test(keyword_whole_word),
	};

	return cmocka_run_group_tests_name("rt_util", tests, NULL, NULL);
}
