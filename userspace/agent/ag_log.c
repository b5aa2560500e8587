// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: logging.  One line per message on stderr: with "<N>" syslog
 * priority prefixes when stderr is the journal (systemd sets
 * $JOURNAL_STREAM), else "rocetuned: LEVEL: message".
 */
#include <stdarg.h>
#include <stdio.h>

#include "agent.h"

static bool ag_journal;
static int ag_max_level = AG_INFO;

void ag_log_init(bool journal, int max_level)
{
	ag_journal = journal;
	ag_max_level = max_level;
}

static const char *ag_level_word(int level)
{
	switch (level) {
	case AG_ERR:
		return "error";
	case AG_WARNING:
		return "warning";
	case AG_NOTICE:
		return "notice";
	case AG_INFO:
		return "info";
	default:
		return "debug";
	}
}

void ag_log(int level, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	if (level > ag_max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (ag_journal)
		fprintf(stderr, "<%d>%s\n", level, line);
	else
		fprintf(stderr, "rocetuned: %s: %s\n", ag_level_word(level),
			line);
}
