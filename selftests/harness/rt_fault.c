// SPDX-License-Identifier: GPL-2.0-only
/*
 * rt_fault: a test module that misbehaves on purpose, so that the VM
 * harness can prove it catches kernel faults (selftests/harness/).
 *
 * fault=warn  WARN() at load, then load normally
 * fault=null  dereference a NULL pointer at load (an oops)
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/module.h>
#include <linux/string.h>

static char *fault = "none";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "none, warn or null");

/* The address fault=null writes to: a parameter, so the compiler cannot see it is 0. */
static unsigned long fault_addr;
module_param(fault_addr, ulong, 0444);
MODULE_PARM_DESC(fault_addr, "address written by fault=null (default 0)");

static int __init rt_fault_init(void)
{
	if (!strcmp(fault, "warn")) {
		WARN(1, "rt_fault: deliberate warning\n");
	} else if (!strcmp(fault, "null")) {
		pr_info("dereferencing NULL on purpose\n");
		WRITE_ONCE(*(int *)fault_addr, 1);
	} else if (strcmp(fault, "none")) {
		return -EINVAL;
	}
	return 0;
}

static void __exit rt_fault_exit(void)
{
}

module_init(rt_fault_init);
module_exit(rt_fault_exit);

MODULE_DESCRIPTION("rocetune harness self-test: deliberate kernel faults");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
