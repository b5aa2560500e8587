// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: command-line tool.  The netlink objects (dev, port, qp,
 * config, monitor) arrive with the kernel module's family; this is the
 * option parsing and dispatch skeleton they plug into.
 */
#include <stdio.h>
#include <string.h>

#include "rt_util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rocetune [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       rocetune -V\n"
		"where  OBJECT := { help }\n"
		"       OPTIONS := { -V[ersion] | -h[elp] }\n");
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (rt_keyword(argv[i], "-V") || rt_keyword(argv[i], "-Version")) {
			printf("rocetune %s\n", ROCETUNE_VERSION);
			return 0;
		}
		if (rt_keyword(argv[i], "-h") || rt_keyword(argv[i], "-help")) {
			usage(stdout);
			return 0;
		}
		fprintf(stderr, "rocetune: unknown option \"%s\"; try \"rocetune -h\"\n",
			argv[i]);
		return 1;
	}
	if (i == argc || rt_keyword(argv[i], "help")) {
		usage(i == argc ? stderr : stdout);
		return i == argc ? 1 : 0;
	}
	fprintf(stderr, "rocetune: unknown object \"%s\"; try \"rocetune help\"\n",
		argv[i]);
	return 1;
}
