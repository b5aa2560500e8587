#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Not a regular selftest: loads rt_fault.ko with fault=null, which oopses
# the kernel.  The harness must report a crash instead of hanging.
source "$(dirname "$0")/../lib.sh"
rt_modload rt_fault selftests/harness/rt_fault.ko fault=null
echo "still alive after a NULL dereference"
exit 1
