#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Not a regular selftest: loads rt_fault.ko with fault=warn and passes.
# The harness must still fail it, from the WARN in the kernel log.
source "$(dirname "$0")/../lib.sh"
rt_modload rt_fault selftests/harness/rt_fault.ko fault=warn
rmmod rt_fault
