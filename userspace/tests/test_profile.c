// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the profile parser (lib/rt_pkeys.c, rt_pdiag.c,
 * rt_pval.c, rt_pread.c, rt_pcheck.c, rt_pload.c; cmocka): every key's
 * accepted and rejected forms, the rules between keys, matching,
 * directories, and the profile corpora of selftests/profiles/ and
 * profiles/ (the tests run with the current directory userspace/).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rt_counters.h"
#include "rt_nic.h"
#include "rt_profile.h"
#include "rt_rxecc.h"

#define BAD_CORPUS	"../selftests/profiles/bad"
#define GOOD_CORPUS	"../selftests/profiles/good"
#define SHIPPED		"../profiles"
#define BAD_CORPUS_MIN	60

static struct rt_diag diag;
static struct rt_profile prof;

static int parse_n(const char *text, size_t len, struct rt_profile *p)
{
	FILE *f;
	int ret;

	memset(&diag, 0, sizeof(diag));
	f = len ? fmemopen((void *)text, len, "r") : fopen("/dev/null", "r");
	assert_non_null(f);
	ret = rt_profile_parse_fp(f, "t.conf", p, &diag);
	fclose(f);
	return ret;
}

static int parse(const char *text)
{
	return parse_n(text, strlen(text), &prof);
}

/* One diagnostic names @path:@line: and contains @sub. */
static bool has_diag(const struct rt_diag *d, const char *path,
		     unsigned int line, const char *sub)
{
	char prefix[RT_PROF_PATH_LEN + 16];
	unsigned int i;

	snprintf(prefix, sizeof(prefix), "%s:%u:", path, line);
	for (i = 0; i < d->n && i < RT_DIAG_MAX; i++)
		if (!strncmp(d->msg[i], prefix, strlen(prefix)) &&
		    strstr(d->msg[i], sub))
			return true;
	return false;
}

#define expect_ok(text) _expect_ok(text, __FILE__, __LINE__)
static void _expect_ok(const char *text, const char *file, int line)
{
	int ret = parse(text);

	if (ret || diag.n) {
		rt_diag_print(&diag, stderr);
		_fail(file, line);
	}
}

/* Parsing fails, with an error on @line containing @sub. */
#define expect_err(text, line, sub) _expect_err(text, line, sub, __FILE__, __LINE__)
static void _expect_err(const char *text, unsigned int eline, const char *sub,
			const char *file, int line)
{
	int ret = parse(text);

	if (ret != -EINVAL || !has_diag(&diag, "t.conf", eline, sub)) {
		fprintf(stderr, "# ret %d, wanted line %u '%s' in:\n", ret,
			eline, sub);
		rt_diag_print(&diag, stderr);
		_fail(file, line);
	}
}

/* One error exactly: the rules do not cascade. */
#define expect_one_err(text, line, sub) do {		\
	expect_err(text, line, sub);			\
	assert_int_equal(diag.n, 1);			\
} while (0)

#define L "[Match]\n[Lossless]\n"	/* the key is on line 3 */
#define Q "[Match]\n[DCQCN]\n"

/* ---- keys and tables ---- */

static void pkey_tables(void **state)
{
	unsigned int k, j;

	(void)state;
	for (k = 0; k < RT_PK_NUM; k++) {
		assert_non_null(rt_pkey_name(k));
		assert_non_null(rt_pkey_section(k));
		assert_int_equal(rt_pkey_lookup(rt_pkey_section(k),
						rt_pkey_name(k)), k);
		for (j = 0; j < k; j++)
			assert_false(!strcmp(rt_pkey_name(j), rt_pkey_name(k)) &&
				     !strcmp(rt_pkey_section(j),
					     rt_pkey_section(k)));
	}
	assert_null(rt_pkey_name(RT_PK_NUM));
	assert_null(rt_pkey_section(RT_PK_NUM));
	assert_string_equal(rt_pkey_section(RT_PK_MATCH_PCI_ADDRESS), "Match");
	assert_string_equal(rt_pkey_section(RT_PK_PFC_STORM_TIMEOUT_MS),
			    "Lossless");
	assert_string_equal(rt_pkey_section(RT_PK_DCQCN), "DCQCN");
	assert_string_equal(rt_pkey_name(RT_PK_DCQCN), "CNPDSCP");
	assert_string_equal(rt_pkey_name(RT_PK_DCQCN + RT_DCQCN_ENABLE),
			    "Enable");
	assert_string_equal(rt_dcqcn_keys[RT_DCQCN_G].key, "G");
	assert_string_equal(rt_dcqcn_keys[RT_DCQCN_DCE_TCP_RTT_US].key,
			    "DceTcpRttUs");
	assert_int_equal(rt_dcqcn_keys[RT_DCQCN_DCE_TCP_RTT_US].max, 131071);
	assert_int_equal(rt_pkey_lookup("DCQCN", "MaxRateMbps"),
			 RT_PK_DCQCN + RT_DCQCN_MAX_RATE_MBPS);
	assert_int_equal(rt_pkey_lookup("Lossless", "MaxRateMbps"),
			 RT_PK_MAX_RATE_MBPS);
	assert_int_equal(rt_pkey_lookup(NULL, "Trust"), RT_PK_TRUST);
	assert_int_equal(rt_pkey_lookup("Match", "Trust"), -1);
	assert_int_equal(rt_pkey_lookup(NULL, "trust"), -1);
}

/* ---- file structure ---- */

static void minimal_profile(void **state)
{
	unsigned int i;

	(void)state;
	expect_ok("[Match]\n");
	for (i = 0; i < RT_PK_NUM; i++)
		assert_false(rt_profile_has(&prof, i));
	for (i = 0; i < RT_NDSCP; i++)
		assert_int_equal(prof.dscp_prio[i], -1);
	for (i = 0; i < RT_NTC; i++)
		assert_int_equal(prof.tsa[i], RT_TSA_ETS);
	assert_string_equal(prof.path, "t.conf");
	assert_string_equal(prof.name, "t.conf");
	/* Comments, blank lines, blanks around everything, no final newline. */
	expect_ok("# a comment\n; another\n\n  # indented\n \t[Match]\t\n"
		  "Name = eth0 \n[Lossless]\nTrust =dscp");
	assert_int_equal(prof.line[RT_PK_MATCH_NAME], 6);
	assert_string_equal(prof.match[RT_PK_MATCH_NAME][0], "eth0");
	assert_int_equal(prof.trust, RT_TRUST_DSCP);
	assert_int_equal(prof.line[RT_PK_TRUST], 8);
	/* Sections may repeat; CRLF and a UTF-8 BOM are fine. */
	expect_ok("\xef\xbb\xbf[Match]\r\nName=a\r\n[Lossless]\r\nPFC=3\r\n"
		  "[Match]\r\nDriver=mlx5_core\r\n");
	assert_int_equal(prof.pfc_en, 0x08);
	assert_string_equal(prof.match[RT_PK_MATCH_DRIVER][0], "mlx5_core");
}

static void missing_match(void **state)
{
	(void)state;
	expect_one_err("", 1, "no [Match] section");
	expect_one_err("# only a comment\n", 1, "no [Match] section");
	expect_one_err("[Lossless]\nTrust=dscp\n", 1, "no [Match] section");
	expect_one_err("[match]\n", 1, "unknown section");
}

static void syntax_errors(void **state)
{
	char text[400];

	(void)state;
	expect_one_err("[Match]\ngarbage\n", 2,
		       "'garbage': neither Key=value nor [Section]");
	expect_one_err("[Match]\n[Lossless]\nTrust: dscp\n", 3,
		       "no '=' before the first ':'");
	expect_one_err("[Match]\n[Lossless\n", 2, "malformed section header");
	expect_one_err("[Match] x\n", 1, "malformed section header");
	expect_one_err("[Match]\n[[Lossless]]\n", 2,
		       "malformed section header");
	expect_one_err("[Match]\n=dscp\n", 2, "no key before '='");
	expect_one_err(L "Trust=dscp ; the RoCE class\n", 3,
		       "';' inside a line");
	/*
	 * Two such lines are two errors, whatever their length (libinih,
	 * once given the line of 250 characters cut, added "syntax error"
	 * on the second).
	 */
	memset(text, 'x', 250);
	strcpy(text + 250, "\n[Match]\ngarbage\n");
	assert_int_equal(parse(text), -EINVAL);
	assert_true(has_diag(&diag, "t.conf", 1, "neither Key=value"));
	assert_true(has_diag(&diag, "t.conf", 3, "'garbage': neither Key=value"));
	assert_int_equal(diag.n, 2);
	/* An indented line is a key of its own, not a continuation. */
	expect_ok(L "Trust=pcp\n    Trust=dscp\n");
	assert_int_equal(prof.trust, RT_TRUST_DSCP);
	assert_int_equal(prof.line[RT_PK_TRUST], 4);
}

static void sections_and_keys(void **state)
{
	(void)state;
	/* An unknown section is one error, its keys are not more. */
	expect_one_err("[Match]\n[PFC]\nEnable=1\nFoo=2\n", 2,
		       "[PFC]: unknown section ([Match], [Lossless], [DCQCN], [Agent], [Watchdog], [Tune] or [Verify]");
	expect_one_err("[Match]\n[]\n", 2, "unknown section");
	expect_one_err("Trust=dscp\n[Match]\n", 1,
		       "Trust=dscp: key outside a section (it belongs in [Lossless])");
	expect_one_err("Foo=1\n[Match]\n", 1, "key outside a section");
	expect_one_err("[Match]\nTrust=dscp\n", 2,
		       "[Match] Trust=dscp: key in the wrong section (it belongs in [Lossless])");
	expect_one_err("[Match]\n[Lossless]\nCNPDSCP=48\n", 3,
		       "it belongs in [DCQCN]");
	expect_one_err("[Match]\n[DCQCN]\nName=eth0\n", 3,
		       "it belongs in [Match]");
	expect_one_err(L "trust=dscp\n", 3,
		       "unknown key (did you mean Trust?");
	expect_one_err(L "Foo=1\n", 3, "unknown key (Trust, PFC,");
	expect_one_err(Q "Foo=1\n", 3, "unknown key (see the [DCQCN] table");
	expect_one_err("[Match]\nName=\n", 2, "[Match] Name=: needs a value");
	expect_one_err(L "Trust=\n", 3, "Trust=: needs a value (dscp or pcp)");
	expect_one_err(Q "G=\n", 3, "G=: needs a value (decimal 0..1023)");
	expect_one_err(Q "Enable=\n", 3,
		       "needs a value (yes/no/true/false/on/off/1/0)");
	expect_one_err(L "TSA=  \n", 3, "needs a value (TC:ets|strict|vendor)");
}

static void all_errors_reported(void **state)
{
	(void)state;
	assert_int_equal(parse("junk\n[Match]\nName=\n[Lossless]\nTrust=x\n"
			       "PFC=9\n[Nope]\n[DCQCN]\nG=1024\nBogus\n"),
			 -EINVAL);
	assert_int_equal(diag.n, 7);
	assert_true(has_diag(&diag, "t.conf", 1, "neither Key=value"));
	assert_true(has_diag(&diag, "t.conf", 3, "needs a value"));
	assert_true(has_diag(&diag, "t.conf", 5, "not a trust mode"));
	assert_true(has_diag(&diag, "t.conf", 6, "priority '9' is out of range"));
	assert_true(has_diag(&diag, "t.conf", 7, "unknown section"));
	assert_true(has_diag(&diag, "t.conf", 9, "out of range (decimal 0..1023"));
	assert_true(has_diag(&diag, "t.conf", 10, "neither Key=value"));
}

static void bad_lines(void **state)
{
	char *big;

	(void)state;
	big = malloc(RT_PROF_LINE_MAX + 64);
	assert_non_null(big);
	/* A line of RT_PROF_LINE_MAX characters is fine, one more is not. */
	strcpy(big, "[Match]\nName=");
	memset(big + 13, 'x', RT_PROF_LINE_MAX - 5);
	strcpy(big + 13 + RT_PROF_LINE_MAX - 5, "\n");
	expect_one_err(big, 2, "too long (at most 63 characters)");
	strcpy(big, "[Match]\nName=");
	memset(big + 13, 'x', RT_PROF_LINE_MAX - 4);
	strcpy(big + 13 + RT_PROF_LINE_MAX - 4, "\n[Lossless]\nTrust=x\n");
	expect_err(big, 2, "line too long (at most 2048 characters)");
	/* The lines after it are still counted right. */
	assert_true(has_diag(&diag, "t.conf", 4, "not a trust mode"));
	assert_int_equal(diag.n, 2);
	free(big);

	expect_one_err(L "Trust=d\x01scp\n", 3,
		       "control character 0x01 in column 8");
	expect_one_err(L "Trust=dscp\x7f\n", 3, "control character 0x7f");
	assert_int_equal(parse_n("[Match]\nName=a\0b\n", 17, &prof), -EINVAL);
	assert_true(has_diag(&diag, "t.conf", 2, "control character 0x00"));
	expect_one_err(L "Trust=d\rscp\n", 3, "control character 0x0d");
	/* Beyond the ASCII range is not a control character. */
	expect_one_err(L "Trust=d\xc3\xa9scp\n", 3, "not a trust mode");
}

/* ---- [Match] ---- */

static void match_keys(void **state)
{
	char line[1024];
	int n;

	(void)state;
	expect_ok("[Match]\nName=ens* eth[0-3]\nDriver=mlx5_core\n"
		  "RdmaDevice=mlx5_?\nPciAddress=0000:3b:00.*\n");
	assert_int_equal(prof.nmatch[RT_PK_MATCH_NAME], 2);
	assert_string_equal(prof.match[RT_PK_MATCH_NAME][1], "eth[0-3]");
	assert_int_equal(prof.nmatch[RT_PK_MATCH_DRIVER], 1);
	assert_string_equal(prof.match[RT_PK_MATCH_PCI_ADDRESS][0],
			    "0000:3b:00.*");
	/* Later wins: the whole list is replaced. */
	expect_ok("[Match]\nName=a b c\nName=d\n");
	assert_int_equal(prof.nmatch[RT_PK_MATCH_NAME], 1);
	assert_string_equal(prof.match[RT_PK_MATCH_NAME][0], "d");
	assert_int_equal(prof.line[RT_PK_MATCH_NAME], 3);

	expect_ok("[Match]\nName=a b c d e f g h\n");
	assert_int_equal(prof.nmatch[RT_PK_MATCH_NAME], RT_PROF_MAX_GLOBS);
	expect_one_err("[Match]\nName=a b c d e f g h i\n", 2,
		       "too many globs (at most 8)");
	n = snprintf(line, sizeof(line), "[Match]\nDriver=%063d\n", 0);
	assert_true(n > 0);
	expect_ok(line);
	snprintf(line, sizeof(line), "[Match]\nDriver=%064d\n", 0);
	expect_one_err(line, 2, "too long (at most 63 characters)");
	expect_one_err("[Match]\nName=eth0 !eth1\n", 2,
		       "'!eth1': negation is not supported");
}

static void set_nic(struct rt_nic_id *nic, const char *netdev,
		    const char *driver, const char *rdma, const char *bus)
{
	memset(nic, 0, sizeof(*nic));
	snprintf(nic->netdev, sizeof(nic->netdev), "%s", netdev);
	snprintf(nic->driver, sizeof(nic->driver), "%s", driver);
	snprintf(nic->rdma_dev, sizeof(nic->rdma_dev), "%s", rdma);
	snprintf(nic->bus_info, sizeof(nic->bus_info), "%s", bus);
}

static void matching(void **state)
{
	struct rt_nic_id a, b, c, empty;

	(void)state;
	set_nic(&a, "ens1f0np0", "mlx5_core", "mlx5_0", "0000:3b:00.0");
	set_nic(&b, "eth2", "bnxt_en", "bnxt_re0", "0000:af:00.1");
	set_nic(&c, "rxe-eth", "", "rxe0", "");
	set_nic(&empty, "", "", "", "");

	/* An empty [Match] matches every NIC, even one we know nothing of. */
	expect_ok("[Match]\n");
	assert_true(rt_profile_match(&prof, &a));
	assert_true(rt_profile_match(&prof, &c));
	assert_true(rt_profile_match(&prof, &empty));

	/* Any glob of a key matches. */
	expect_ok("[Match]\nName=eth* ens*\n");
	assert_true(rt_profile_match(&prof, &a));
	assert_true(rt_profile_match(&prof, &b));
	assert_false(rt_profile_match(&prof, &c));

	/* Every key given must match. */
	expect_ok("[Match]\nName=eth* ens*\nDriver=mlx5_core\n");
	assert_true(rt_profile_match(&prof, &a));
	assert_false(rt_profile_match(&prof, &b));

	expect_ok("[Match]\nRdmaDevice=mlx5_[0-3]\nPciAddress=0000:3b:*\n");
	assert_true(rt_profile_match(&prof, &a));
	assert_false(rt_profile_match(&prof, &b));

	/* An empty NIC field never matches a key, not even "*". */
	expect_ok("[Match]\nDriver=*\n");
	assert_true(rt_profile_match(&prof, &a));
	assert_false(rt_profile_match(&prof, &c));
	expect_ok("[Match]\nPciAddress=*\n");
	assert_false(rt_profile_match(&prof, &c));
	assert_false(rt_profile_match(&prof, &empty));

	/* fnmatch() without flags: '*' crosses '.', ':' and '/'. */
	expect_ok("[Match]\nPciAddress=0000:*.1\n");
	assert_true(rt_profile_match(&prof, &b));
	assert_false(rt_profile_match(&prof, &a));
	/* Case matters. */
	expect_ok("[Match]\nDriver=MLX5_CORE\n");
	assert_false(rt_profile_match(&prof, &a));
}

/* ---- [Lossless] ---- */

static void trust_key(void **state)
{
	(void)state;
	expect_ok(L "Trust=dscp\n");
	assert_int_equal(prof.trust, RT_TRUST_DSCP);
	expect_ok(L "Trust=pcp\n");
	assert_int_equal(prof.trust, RT_TRUST_PCP);
	expect_one_err(L "Trust=DSCP\n", 3,
		       "[Lossless] Trust=DSCP: not a trust mode (dscp or pcp)");
	expect_one_err(L "Trust=none\n", 3, "not a trust mode");
	expect_one_err(L "Trust=dscp pcp\n", 3, "not a trust mode");
	/* Later wins. */
	expect_ok(L "Trust=pcp\nTrust=dscp\n");
	assert_int_equal(prof.trust, RT_TRUST_DSCP);
	assert_int_equal(prof.line[RT_PK_TRUST], 4);
}

static void pfc_key(void **state)
{
	(void)state;
	expect_ok(L "PFC=3\n");
	assert_int_equal(prof.pfc_en, 0x08);
	expect_ok(L "PFC=3,4\n");
	assert_int_equal(prof.pfc_en, 0x18);
	expect_ok(L "PFC=3, 4 ,5\n");
	assert_int_equal(prof.pfc_en, 0x38);
	expect_ok(L "PFC=0 1 2 3 4 5 6 7 3\n");
	assert_int_equal(prof.pfc_en, 0xff);
	expect_ok(L "PFC=3\nPFC=none\n");
	assert_int_equal(prof.pfc_en, 0);
	assert_true(rt_profile_has(&prof, RT_PK_PFC));
	expect_one_err(L "PFC=8\n", 3, "priority '8' is out of range (priorities 0..7");
	expect_one_err(L "PFC=03\n", 3, "priority '03' has a leading zero");
	expect_one_err(L "PFC=-1\n", 3, "priority '-1' has a sign");
	expect_one_err(L "PFC=3,,4\n", 3, "empty priority between commas");
	expect_one_err(L "PFC=,3\n", 3, "empty priority between commas");
	expect_one_err(L "PFC=3,\n", 3, "empty priority between commas");
	expect_one_err(L "PFC=none 3\n", 3,
		       "priority 'none' cannot be combined with others");
	expect_one_err(L "PFC=all\n", 3, "priority 'all' is not a decimal number");
	/* Each bad priority is its own error. */
	assert_int_equal(parse(L "PFC=9 x 3\n"), -EINVAL);
	assert_int_equal(diag.n, 2);
}

static void dscp_to_priority(void **state)
{
	unsigned int i;

	(void)state;
	expect_ok(L "Trust=dscp\nDSCPToPriority=26:3 48:6\n");
	assert_int_equal(prof.dscp_prio[26], 3);
	assert_int_equal(prof.dscp_prio[48], 6);
	assert_int_equal(prof.dscp_prio[0], -1);
	assert_int_equal(prof.dscp_prio[63], -1);
	/* Ranges, later pairs win, and Trust= may come after. */
	expect_ok(L "DSCPToPriority=0-63:0 26:3\t 46-47:5\nTrust=dscp\n");
	for (i = 0; i < RT_NDSCP; i++)
		assert_int_equal(prof.dscp_prio[i],
				 i == 26 ? 3 : i == 46 || i == 47 ? 5 : 0);
	expect_ok(L "Trust=dscp\nDSCPToPriority=7-7:1\n");
	assert_int_equal(prof.dscp_prio[7], 1);
	/* The key given again replaces the whole map. */
	expect_ok(L "Trust=dscp\nDSCPToPriority=10:1\nDSCPToPriority=26:3\n");
	assert_int_equal(prof.dscp_prio[10], -1);
	assert_int_equal(prof.dscp_prio[26], 3);
	assert_int_equal(prof.line[RT_PK_DSCP_TO_PRIORITY], 5);

	expect_one_err(L "Trust=dscp\nDSCPToPriority=26-3:1 48:6\n", 4,
		       "'26-3:1': range 26-3 is empty");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=64:3\n", 4,
		       "'64:3': DSCP '64' is out of range (DSCP:PRIO or LO-HI:PRIO, DSCP 0..63)");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=0-64:3\n", 4,
		       "DSCP '64' is out of range");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=26:8\n", 4,
		       "'26:8': '8' is out of range (DSCP:PRIO or LO-HI:PRIO, priority 0..7)");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=026:3\n", 4,
		       "DSCP '026' has a leading zero");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=26:03\n", 4,
		       "'03' has a leading zero");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=26\n", 4,
		       "'26': not a pair (DSCP:PRIO or LO-HI:PRIO)");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=26:3:1\n", 4,
		       "not a pair");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=:3\n", 4, "not a pair");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=26:\n", 4, "not a pair");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=26:3,48:6\n", 4,
		       "pairs are separated by blanks, not commas");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=af31:3\n", 4,
		       "DSCP 'af31' is not a decimal number");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=-3:1\n", 4,
		       "DSCP '-3' has a sign");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=3-:1\n", 4,
		       "DSCP '' is not a decimal number");

	/* The rule between keys. */
	expect_one_err(L "DSCPToPriority=26:3\n", 3,
		       "[Lossless] DSCPToPriority=26:3: needs Trust=dscp in the same profile (Trust= is not given)");
	expect_one_err(L "Trust=pcp\nDSCPToPriority=26:3\n", 4,
		       "needs Trust=dscp in the same profile (Trust=pcp is on line 3)");
	expect_one_err(L "Trust=dscp\nDSCPToPriority=26:3\nTrust=pcp\n", 4,
		       "(Trust=pcp is on line 5)");
	/* A bad Trust= is one error, not two. */
	expect_one_err(L "Trust=dcsp\nDSCPToPriority=26:3\n", 3,
		       "not a trust mode");
}

static void priority_to_tc(void **state)
{
	unsigned int i;

	(void)state;
	expect_ok(L "PriorityToTC=3:3 6:6\n");
	for (i = 0; i < RT_NPRIO; i++)
		assert_int_equal(prof.prio_tc[i], i == 3 ? 3 : i == 6 ? 6 : 0);
	expect_ok(L "PriorityToTC=0-7:1 3:3\n");
	assert_int_equal(prof.prio_tc[0], 1);
	assert_int_equal(prof.prio_tc[7], 1);
	assert_int_equal(prof.prio_tc[3], 3);
	expect_one_err(L "PriorityToTC=8:0\n", 3,
		       "priority '8' is out of range (PRIO:TC or LO-HI:TC, priority 0..7)");
	expect_one_err(L "PriorityToTC=3:8\n", 3, "'8' is out of range (PRIO:TC or LO-HI:TC, TC 0..7)");
	expect_one_err(L "PriorityToTC=5-4:1\n", 3, "range 5-4 is empty");
	expect_one_err(L "PriorityToTC=3=3\n", 3, "not a pair");
}

static void ets(void **state)
{
	(void)state;
	expect_ok(L "ETSBandwidth=0:50 3:50\n");
	assert_int_equal(prof.ets_bw[0], 50);
	assert_int_equal(prof.ets_bw[3], 50);
	assert_int_equal(prof.ets_bw[1], 0);
	expect_ok(L "ETSBandwidth=0:100\n");
	expect_ok(L "ETSBandwidth=0-3:25\n");
	expect_one_err(L "ETSBandwidth=0:50 3:40\n", 3,
		       "the bandwidth of the ets TCs sums to 90% (it must be 100%; without TSA= every TC is ets)");
	expect_one_err(L "ETSBandwidth=0:60 3:60\n", 3, "sums to 120%");
	expect_one_err(L "ETSBandwidth=0:101\n", 3,
		       "'101' is out of range (TC:PERCENT, percent 0..100)");
	expect_one_err(L "ETSBandwidth=8:50\n", 3, "TC '8' is out of range");

	expect_ok(L "TSA=6:strict 7:vendor\n");
	assert_int_equal(prof.tsa[6], RT_TSA_STRICT);
	assert_int_equal(prof.tsa[7], RT_TSA_VENDOR);
	assert_int_equal(prof.tsa[0], RT_TSA_ETS);
	expect_ok(L "TSA=0-7:strict 0:ets\n");
	assert_int_equal(prof.tsa[0], RT_TSA_ETS);
	assert_int_equal(prof.tsa[1], RT_TSA_STRICT);
	expect_one_err(L "TSA=3:cbs\n", 3,
		       "'3:cbs': cbs is not supported: no RoCE NIC implements");
	expect_one_err(L "TSA=3:fifo\n", 3,
		       "'3:fifo': 'fifo' is not allowed (TC:ets|strict|vendor");
	expect_one_err(L "TSA=3:2\n", 3, "'2' is not allowed");

	/* Only ets TCs share the bandwidth. */
	expect_ok(L "TSA=6:strict\nETSBandwidth=0:50 3:50\n");
	expect_one_err(L "TSA=6:strict\nETSBandwidth=0:50 3:50 6:10\n", 4,
		       "TC 6 has 10% but TSA= on line 3 makes it strict (only ets TCs get bandwidth)");
	expect_one_err(L "ETSBandwidth=0:50 3:50 7:10\nTSA=7:vendor\n", 3,
		       "TC 7 has 10% but TSA= on line 4 makes it vendor");
	expect_one_err(L "TSA=6:strict\nETSBandwidth=0:50 3:40\n", 4,
		       "sums to 90% (it must be 100%; TCs not in TSA= are ets)");
	/* No ets TC at all: nothing to sum. */
	expect_ok(L "TSA=0-7:strict\nETSBandwidth=0:0\n");
	/* A bad TSA= or ETSBandwidth= is one error, not more. */
	expect_one_err(L "TSA=6:bogus\nETSBandwidth=0:50 3:50 6:10\n", 3,
		       "'bogus' is not allowed");
	expect_one_err(L "ETSBandwidth=0:50 3:50\nETSBandwidth=0:150\n", 4,
		       "out of range");
}

static void maxrate(void **state)
{
	(void)state;
	expect_ok(L "MaxRateMbps=0:unlimited 3:1000000 4:0 5:25000\n");
	assert_int_equal(prof.maxrate_mbps[0], 0);
	assert_int_equal(prof.maxrate_mbps[3], 1000000);
	assert_int_equal(prof.maxrate_mbps[5], 25000);
	expect_one_err(L "MaxRateMbps=3:1000001\n", 3,
		       "'1000001' is out of range (TC:MBPS, Mb/s 0..1000000 or unlimited");
	expect_one_err(L "MaxRateMbps=3:none\n", 3, "'none' is not a decimal number");
	expect_one_err(L "MaxRateMbps=3:10G\n", 3, "is not a decimal number");
}

static void buffers(void **state)
{
	(void)state;
	expect_ok(L "BufferSizeBytes=0:4294967295 1:0 3:262144\n"
		  "PriorityToBuffer=3:1 0-2:0 4-7:0\n");
	assert_int_equal(prof.buffer_size[0], 4294967295u);
	assert_int_equal(prof.buffer_size[3], 262144);
	assert_int_equal(prof.prio_buffer[3], 1);
	expect_one_err(L "BufferSizeBytes=0:4294967296\n", 3,
		       "'4294967296' is out of range (BUF:BYTES, bytes 0..4294967295)");
	expect_one_err(L "BufferSizeBytes=8:1024\n", 3,
		       "buffer '8' is out of range");
	expect_one_err(L "BufferSizeBytes=0:99999999999999999999999\n", 3,
		       "is out of range");
	expect_one_err(L "PriorityToBuffer=3:8\n", 3,
		       "'8' is out of range (PRIO:BUF, buffer 0..7)");
}

static void cable_and_storm(void **state)
{
	(void)state;
	expect_ok(L "CableLengthMeters=1\n");
	assert_int_equal(prof.cable_length_m, 1);
	expect_ok(L "CableLengthMeters=999\n");
	assert_int_equal(prof.cable_length_m, 999);
	expect_one_err(L "CableLengthMeters=0\n", 3,
		       "out of range (decimal 1..999, meters, under 1000)");
	expect_one_err(L "CableLengthMeters=1000\n", 3, "out of range");
	expect_one_err(L "CableLengthMeters=010\n", 3, "leading zero");
	expect_one_err(L "CableLengthMeters=5m\n", 3, "not a decimal number");

	expect_ok(L "PFCStormTimeoutMs=auto\n");
	assert_int_equal(prof.pfc_storm_tout, RT_PFC_STORM_AUTO);
	expect_ok(L "PFCStormTimeoutMs=off\n");
	assert_int_equal(prof.pfc_storm_tout, RT_PFC_STORM_OFF);
	assert_true(rt_profile_has(&prof, RT_PK_PFC_STORM_TIMEOUT_MS));
	expect_ok(L "PFCStormTimeoutMs=80\n");
	assert_int_equal(prof.pfc_storm_tout, 80);
	expect_ok(L "PFCStormTimeoutMs=8000\n");
	assert_int_equal(prof.pfc_storm_tout, 8000);
	expect_one_err(L "PFCStormTimeoutMs=79\n", 3,
		       "out of range (decimal 80..8000, auto or off)");
	expect_one_err(L "PFCStormTimeoutMs=8001\n", 3, "out of range");
	expect_one_err(L "PFCStormTimeoutMs=0\n", 3, "out of range");
	expect_one_err(L "PFCStormTimeoutMs=AUTO\n", 3, "not a decimal number");
}

/* ---- [DCQCN] ---- */

static void dcqcn_numbers(void **state)
{
	char text[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < RT_DCQCN_NUM; i++) {
		const struct rt_dcqcn_key *k = &rt_dcqcn_keys[i];

		if (k->boolean)
			continue;
		snprintf(text, sizeof(text), Q "%s=%u\n", k->key, k->min);
		expect_ok(text);
		assert_int_equal(prof.dcqcn[i], k->min);
		assert_int_equal(prof.line[RT_PK_DCQCN + i], 3);
		snprintf(text, sizeof(text), Q "%s=%u\n", k->key, k->max);
		expect_ok(text);
		assert_int_equal(prof.dcqcn[i], k->max);
		snprintf(text, sizeof(text), Q "%s=%llu\n", k->key,
			 (unsigned long long)k->max + 1);
		expect_one_err(text, 3, "out of range (decimal");
		if (k->min) {
			snprintf(text, sizeof(text), Q "%s=%u\n", k->key,
				 k->min - 1);
			expect_one_err(text, 3, "out of range (decimal");
		}
		snprintf(text, sizeof(text), Q "%s=0%u\n", k->key, k->min + 1);
		expect_one_err(text, 3, "leading zero (decimal");
		snprintf(text, sizeof(text), Q "%s=-1\n", k->key);
		expect_one_err(text, 3, "no sign allowed");
		snprintf(text, sizeof(text), Q "%s=+1\n", k->key);
		expect_one_err(text, 3, "no sign allowed");
		snprintf(text, sizeof(text), Q "%s=0x1\n", k->key);
		expect_one_err(text, 3, "not a decimal number");
		snprintf(text, sizeof(text), Q "%s=1.5\n", k->key);
		expect_one_err(text, 3, "not a decimal number");
		snprintf(text, sizeof(text), Q "%s=1 2\n", k->key);
		expect_one_err(text, 3, "not a decimal number");
		snprintf(text, sizeof(text), Q "%s=99999999999999999999999\n",
			 k->key);
		expect_one_err(text, 3, "out of range");
	}
	expect_one_err(Q "CNPDSCP=64\n", 3,
		       "[DCQCN] CNPDSCP=64: out of range (decimal 0..63)");
	expect_one_err(Q "Threshold=0\n", 3, "out of range (decimal 1..31)");
	expect_one_err(Q "G=1024\n", 3, "out of range (decimal 0..1023, in 1/1024)");
	expect_one_err(Q "GD=16\n", 3, "out of range (decimal 0..15)");
	expect_one_err(Q "MinDecreaseFactorPercent=0\n", 3,
		       "out of range (decimal 1..100)");
	expect_one_err(Q "DceTcpRttUs=131072\n", 3,
		       "out of range (decimal 1..131071)");
	expect_one_err(Q "MaxRateMbps=4294967296\n", 3,
		       "out of range (decimal 0..4294967295, 0: line rate)");
	expect_one_err(Q "RateOnFirstCNPMbps=4294967296\n", 3, "0: off");
	/* The same name in [Lossless] is another key. */
	expect_ok("[Match]\n[DCQCN]\nMaxRateMbps=0\n[Lossless]\n"
		  "MaxRateMbps=3:unlimited\n");
	assert_true(rt_profile_has(&prof, RT_PK_DCQCN + RT_DCQCN_MAX_RATE_MBPS));
	assert_true(rt_profile_has(&prof, RT_PK_MAX_RATE_MBPS));
	/* Later wins. */
	expect_ok(Q "CNPDSCP=46\nCNPDSCP=48\n");
	assert_int_equal(prof.dcqcn[RT_DCQCN_CNP_DSCP], 48);
	assert_int_equal(prof.line[RT_PK_DCQCN + RT_DCQCN_CNP_DSCP], 4);
}

static void dcqcn_booleans(void **state)
{
	static const char *const yes[] = { "yes", "true", "on", "1", "YES",
					   "True" };
	static const char *const no[] = { "no", "false", "off", "0", "No",
					  "OFF" };
	static const char *const bad[] = { "2", "y", "n", "yess", "enable",
					   "01", "-1" };
	char text[256];
	unsigned int i, j;

	(void)state;
	for (i = 0; i < RT_DCQCN_NUM; i++) {
		if (!rt_dcqcn_keys[i].boolean)
			continue;
		for (j = 0; j < 6; j++) {
			snprintf(text, sizeof(text), Q "%s=%s\n",
				 rt_dcqcn_keys[i].key, yes[j]);
			expect_ok(text);
			assert_int_equal(prof.dcqcn[i], 1);
			snprintf(text, sizeof(text), Q "%s=%s\n",
				 rt_dcqcn_keys[i].key, no[j]);
			expect_ok(text);
			assert_int_equal(prof.dcqcn[i], 0);
			assert_true(rt_profile_has(&prof, RT_PK_DCQCN + i));
		}
		for (j = 0; j < 7; j++) {
			snprintf(text, sizeof(text), Q "%s=%s\n",
				 rt_dcqcn_keys[i].key, bad[j]);
			expect_one_err(text, 3,
				       "not a boolean (yes/no/true/false/on/off/1/0)");
		}
	}
}

static void dcqcn_rates(void **state)
{
	(void)state;
	expect_ok(Q "MinRateMbps=100\nMaxRateMbps=100\n");
	expect_ok(Q "MinRateMbps=100\nMaxRateMbps=0\n");
	expect_one_err(Q "MinRateMbps=200\nMaxRateMbps=100\n", 3,
		       "[DCQCN] MinRateMbps=200: above MaxRateMbps=100 on line 4");
	expect_one_err(Q "MinRateMbps=200\nMaxRateMbps=1x\n", 4,
		       "not a decimal number");
}

/* ---- diagnostics ---- */

static void diag_limits(void **state)
{
	struct rt_diag *d = calloc(1, sizeof(*d));
	char *buf = NULL;
	size_t len = 0;
	unsigned int i;
	FILE *f;

	(void)state;
	assert_non_null(d);
	for (i = 0; i < RT_DIAG_MAX + 2; i++)
		rt_diag_add(d, "e%u", i);
	assert_int_equal(d->n, RT_DIAG_MAX + 2);
	assert_string_equal(d->msg[RT_DIAG_MAX - 1], "e127");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	rt_diag_print(d, f);
	fclose(f);
	assert_non_null(strstr(buf, "e0\ne1\n"));
	assert_null(strstr(buf, "e128"));
	assert_non_null(strstr(buf, "... and 2 more errors\n"));
	free(buf);
	free(d);

	/* A long value is cut in the message, the explanation is kept. */
	expect_one_err(L "Trust=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
		       3, "xxx...: not a trust mode (dscp or pcp)");
}

/* ---- files and directories ---- */

static char tmpdir[64];

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/rt_profile_test.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	assert_int_equal(nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void parse_file(void **state)
{
	char path[256];
	int ret;

	(void)state;
	make_tmpdir();
	snprintf(path, sizeof(path), "%s/dir.conf", tmpdir);
	assert_int_equal(mkdir(path, 0700), 0);
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_parse_file(path, &prof, &diag), -EISDIR);
	assert_int_equal(diag.n, 1);

	snprintf(path, sizeof(path), "%s/none.conf", tmpdir);
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_parse_file(path, &prof, &diag), -ENOENT);
	assert_non_null(strstr(diag.msg[0], "none.conf: cannot open"));

	write_file("10-x.conf", "[Match]\nName=eth0\n[Lossless]\nPFC=9\n");
	snprintf(path, sizeof(path), "%s/10-x.conf", tmpdir);
	memset(&diag, 0, sizeof(diag));
	ret = rt_profile_parse_file(path, &prof, &diag);
	assert_int_equal(ret, -EINVAL);
	assert_true(has_diag(&diag, path, 4, "PFC=9"));
	assert_string_equal(prof.name, "10-x.conf");
	assert_string_equal(prof.path, path);

	/* Writable by everyone: refused, before it is read. */
	write_file("20-ww.conf", "[Match]\nName=eth0\n");
	snprintf(path, sizeof(path), "%s/20-ww.conf", tmpdir);
	assert_int_equal(chmod(path, 0666), 0);
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_parse_file(path, &prof, &diag), -EPERM);
	assert_int_equal(diag.n, 1);
	assert_non_null(strstr(diag.msg[0], "20-ww.conf: writable by everyone (mode 0666): refused"));
	assert_int_equal(chmod(path, 0664), 0);
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_parse_file(path, &prof, &diag), 0);

	/* Owned by another user (root can give it away): refused. */
	if (!geteuid()) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		memset(&diag, 0, sizeof(diag));
		assert_int_equal(rt_profile_parse_file(path, &prof, &diag),
				 -EPERM);
		assert_non_null(strstr(diag.msg[0], "20-ww.conf: owned by uid 65534, not by root: refused"));
		assert_int_equal(chown(path, 0, 0), 0);
	}

	/* Not a regular file: /dev/zero would never end. */
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_parse_file("/dev/zero", &prof, &diag),
			 -EINVAL);
	assert_string_equal(diag.msg[0], "/dev/zero: not a regular file: refused");
	rm_tmpdir();
}

/* mkdir -p and write @text to tmpdir/@rel. */
static void write_deep(const char *rel, const char *text)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	for (p = path + strlen(tmpdir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		assert_true(!mkdir(path, 0755) || errno == EEXIST);
		*p = '/';
	}
	write_file(rel, text);
}

/*
 * A host with 300 RoCE NICs (a fake sysfs): every one is listed, sorted
 * by netdev name (the list was cut at 256, silently).
 */
static void nic_list_unbounded(void **state)
{
	struct rt_nic *nics;
	char rel[256], name[32], msg[256] = "";
	int i, n;

	(void)state;
	make_tmpdir();
	for (i = 0; i < 300; i++) {
		snprintf(rel, sizeof(rel),
			 "class/infiniband/fake%d/ports/1/link_layer", i);
		write_deep(rel, "Ethernet\n");
		snprintf(rel, sizeof(rel),
			 "class/infiniband/fake%d/ports/1/gid_attrs/ndevs/0", i);
		snprintf(name, sizeof(name), "fk%03d\n", i);
		write_deep(rel, name);
	}
	assert_int_equal(setenv("ROCETUNE_SYSFS", tmpdir, 1), 0);
	n = rt_nic_list(&nics, msg, sizeof(msg));
	unsetenv("ROCETUNE_SYSFS");
	assert_int_equal(n, 300);
	assert_string_equal(nics[0].id.netdev, "fk000");
	assert_string_equal(nics[299].id.netdev, "fk299");
	assert_string_equal(nics[299].id.rdma_dev, "fake299");
	free(nics);
	rm_tmpdir();
}

/* A stream that never ends (stdin from /dev/zero): bounded, and said. */
static void parse_endless(void **state)
{
	FILE *f = fopen("/dev/zero", "re");

	(void)state;
	assert_non_null(f);
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_parse_fp(f, "-", &prof, &diag), -EFBIG);
	assert_int_equal(diag.n, 1);
	assert_string_equal(diag.msg[0], "-: longer than 1048576 bytes: not a profile");
	fclose(f);
}

static void load_dir(void **state)
{
	struct rt_profile_set set;
	struct rt_nic_id a, b, c;
	const struct rt_profile *p;
	char sub[256];

	(void)state;
	set_nic(&a, "ens1f0np0", "mlx5_core", "mlx5_0", "0000:3b:00.0");
	set_nic(&b, "eth2", "bnxt_en", "bnxt_re0", "0000:af:00.1");
	set_nic(&c, "eth9", "ice", "irdma0", "0000:5e:00.0");
	make_tmpdir();
	/* Lexical order, strcmp: "10" < "5" < "50"; the first match wins. */
	write_file("50-mlx.conf", "[Match]\nDriver=mlx5_core\n");
	write_file("10-ens.conf", "[Match]\nName=ens*\n");
	write_file("5-eth2.conf", "[Match]\nName=eth2\n");
	write_file("90-all.conf", "[Match]\n");
	/* Not profiles: */
	write_file("README", "not a profile\n");
	write_file("40-x.conf.bak", "junk\n");
	write_file(".hidden.conf", "junk\n");
	write_file(".conf", "junk\n");
	snprintf(sub, sizeof(sub), "%s/30-dir.conf", tmpdir);
	assert_int_equal(mkdir(sub, 0700), 0);

	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_load_dir(tmpdir, &set, &diag), 0);
	assert_int_equal(diag.n, 0);
	assert_int_equal(set.n, 4);
	assert_int_equal(set.nfiles, 4);
	assert_string_equal(set.p[0]->name, "10-ens.conf");
	assert_string_equal(set.p[1]->name, "5-eth2.conf");
	assert_string_equal(set.p[2]->name, "50-mlx.conf");
	assert_string_equal(set.p[3]->name, "90-all.conf");
	p = rt_profile_find(&set, &a);
	assert_non_null(p);
	assert_string_equal(p->name, "10-ens.conf");
	p = rt_profile_find(&set, &b);
	assert_non_null(p);
	assert_string_equal(p->name, "5-eth2.conf");
	p = rt_profile_find(&set, &c);
	assert_non_null(p);
	assert_string_equal(p->name, "90-all.conf");
	rt_profile_set_free(&set);
	assert_int_equal(set.n, 0);

	/* Without the catch-all, a NIC may have no profile. */
	snprintf(sub, sizeof(sub), "%s/90-all.conf", tmpdir);
	assert_int_equal(unlink(sub), 0);
	/* A symlink to a profile counts; errors are collected, all files read. */
	snprintf(sub, sizeof(sub), "%s/60-link.conf", tmpdir);
	assert_int_equal(symlink("50-mlx.conf", sub), 0);
	write_file("20-bad.conf", "[Match]\nName=eth*\n[Lossless]\nTrust=x\n");
	write_file("70-bad.conf", "[Lossless]\nPFC=3\n");
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_load_dir(tmpdir, &set, &diag), -EINVAL);
	assert_int_equal(diag.n, 2);
	snprintf(sub, sizeof(sub), "%s/20-bad.conf", tmpdir);
	assert_true(has_diag(&diag, sub, 4, "not a trust mode"));
	snprintf(sub, sizeof(sub), "%s/70-bad.conf", tmpdir);
	assert_true(has_diag(&diag, sub, 1, "no [Match] section"));
	/* Only the valid ones are in the set; every file read is counted. */
	assert_int_equal(set.n, 4);
	assert_int_equal(set.nfiles, 6);
	assert_string_equal(set.p[0]->name, "10-ens.conf");
	assert_string_equal(set.p[1]->name, "5-eth2.conf");
	assert_string_equal(set.p[2]->name, "50-mlx.conf");
	assert_string_equal(set.p[3]->name, "60-link.conf");
	assert_null(rt_profile_find(&set, &c));
	rt_profile_set_free(&set);

	/* A dangling symlink is an error of its own. */
	snprintf(sub, sizeof(sub), "%s/80-dangling.conf", tmpdir);
	assert_int_equal(symlink("nowhere.conf", sub), 0);
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_load_dir(tmpdir, &set, &diag), -EINVAL);
	assert_int_equal(diag.n, 3);
	assert_non_null(strstr(diag.msg[0], "80-dangling.conf: cannot read"));
	rt_profile_set_free(&set);

	/* The directory is not a directory. */
	snprintf(sub, sizeof(sub), "%s/README", tmpdir);
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_load_dir(sub, &set, &diag), -ENOTDIR);
	assert_int_equal(set.n, 0);
	assert_non_null(strstr(diag.msg[0], "cannot open the profile directory"));
	rm_tmpdir();

	/* A missing directory is an empty set. */
	memset(&diag, 0, sizeof(diag));
	set.nfiles = 99;
	assert_int_equal(rt_profile_load_dir(tmpdir, &set, &diag), 0);
	assert_int_equal(set.n, 0);
	assert_int_equal(set.nfiles, 0);
	assert_int_equal(diag.n, 0);
	assert_null(rt_profile_find(&set, &a));
}

/* Who named the directory decides whether its absence is an error. */
static void profile_dir_explicit(void **state)
{
	char *old = getenv("ROCETUNE_PROFILE_DIR");
	char *save = old ? strdup(old) : NULL;

	(void)state;
	unsetenv("ROCETUNE_PROFILE_DIR");
	assert_false(rt_profile_dir_explicit());
	assert_string_equal(rt_profile_dir(), "/etc/rocetune");
	setenv("ROCETUNE_PROFILE_DIR", "", 1);
	assert_false(rt_profile_dir_explicit());
	setenv("ROCETUNE_PROFILE_DIR", "/nowhere", 1);
	assert_true(rt_profile_dir_explicit());
	assert_string_equal(rt_profile_dir(), "/nowhere");
	if (save)
		setenv("ROCETUNE_PROFILE_DIR", save, 1);
	else
		unsetenv("ROCETUNE_PROFILE_DIR");
	free(save);
}

/*
 * profile check's range check of a software RoCE NIC: a profile that
 * parses (MinRateMbps=10 is a valid DCQCN value) but that rocetune.ko
 * would refuse (its floor is 12 Mb/s, kmod/rocetune_qp_nl_set.c), with
 * the file, line and key of the message diff and apply give.
 */
static void rxe_check_profile(void **state)
{
	(void)state;
	assert_int_equal(parse("[Match]\n[DCQCN]\nMinRateMbps=10\nG=20\nMaxRateMbps=0\n"), 0);
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_rxe_check_profile(&prof, "rxe0", &diag), 2);
	assert_int_equal(diag.n, 2);
	assert_true(has_diag(&diag, "t.conf", 3,
			     "[DCQCN] MinRateMbps: 10 is out of range for rxe0: rocetune.ko's rp-min-rate-mbps takes 12..1000000 Mb/s"));
	assert_true(has_diag(&diag, "t.conf", 5,
			     "[DCQCN] MaxRateMbps: 0 (line rate) is out of range for rxe0"));
	/* In range: nothing. */
	assert_int_equal(parse("[Match]\n[DCQCN]\nMinRateMbps=12\nG=20\n"), 0);
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_rxe_check_profile(&prof, "rxe0", &diag), 0);
	assert_int_equal(diag.n, 0);
}

static void load_dir_too_many(void **state)
{
	struct rt_profile_set set;
	char name[32], path[256];
	unsigned int i;

	(void)state;
	make_tmpdir();
	for (i = 0; i < RT_PROF_MAX_FILES + 2; i++) {
		snprintf(name, sizeof(name), "%03u.conf", i);
		write_file(name, "[Match]\n");
	}
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_load_dir(tmpdir, &set, &diag), -EINVAL);
	assert_int_equal(set.n, RT_PROF_MAX_FILES);
	assert_string_equal(set.p[RT_PROF_MAX_FILES - 1]->name, "063.conf");
	assert_int_equal(diag.n, 2);
	snprintf(path, sizeof(path), "%s/064.conf: ignored: more than 64", tmpdir);
	assert_non_null(strstr(diag.msg[0], path));
	rt_profile_set_free(&set);
	rm_tmpdir();
}

static void profile_dir_env(void **state)
{
	(void)state;
	assert_int_equal(unsetenv("ROCETUNE_PROFILE_DIR"), 0);
	assert_string_equal(rt_profile_dir(), "/etc/rocetune");
	assert_int_equal(setenv("ROCETUNE_PROFILE_DIR", "", 1), 0);
	assert_string_equal(rt_profile_dir(), "/etc/rocetune");
	assert_int_equal(setenv("ROCETUNE_PROFILE_DIR", "/tmp/p", 1), 0);
	assert_string_equal(rt_profile_dir(), "/tmp/p");
	assert_int_equal(unsetenv("ROCETUNE_PROFILE_DIR"), 0);
}

/* ---- the corpora ---- */

static int conf_filter(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return n > 5 && de->d_name[0] != '.' &&
	       !strcmp(de->d_name + n - 5, ".conf");
}

/*
 * Every file of the malformed corpus starts with "# expect: LINE TEXT":
 * parsing it fails, and one message names PATH:LINE: and contains TEXT.
 */
static void corpus_bad(void **state)
{
	struct rt_profile *p = &prof;
	struct rt_diag *d = &diag;
	char path[512], first[512], *text, *nl;
	struct dirent **names;
	unsigned int line, failed = 0;
	int n, i, ret, off;
	FILE *f;

	(void)state;
	n = scandir(BAD_CORPUS, &names, conf_filter, alphasort);
	assert_true(n >= 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), BAD_CORPUS "/%s", names[i]->d_name);
		free(names[i]);
		f = fopen(path, "r");
		assert_non_null(f);
		if (!fgets(first, sizeof(first), f))
			first[0] = '\0';
		fclose(f);
		nl = strchr(first, '\n');
		if (nl)
			*nl = '\0';
		off = 0;
		if (sscanf(first, "# expect: %u %n", &line, &off) != 1 ||
		    !off || !first[off]) {
			fprintf(stderr, "# %s: no '# expect: LINE TEXT' line\n",
				path);
			failed++;
			continue;
		}
		text = first + off;
		memset(d, 0, sizeof(*d));
		ret = rt_profile_parse_file(path, p, d);
		if (ret != -EINVAL || !has_diag(d, path, line, text)) {
			fprintf(stderr, "# %s: ret %d, wanted line %u '%s':\n",
				path, ret, line, text);
			rt_diag_print(d, stderr);
			failed++;
		}
	}
	free(names);
	fprintf(stderr, "# %d malformed profiles, %u failed\n", n, failed);
	assert_int_equal(failed, 0);
	assert_true(n >= BAD_CORPUS_MIN);
}

static unsigned int check_good(const char *dir)
{
	struct rt_profile *p = &prof;
	struct rt_diag *d = &diag;
	struct dirent **names;
	unsigned int failed = 0;
	char path[512];
	int n, i, ret;

	n = scandir(dir, &names, conf_filter, alphasort);
	assert_true(n >= 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		free(names[i]);
		memset(d, 0, sizeof(*d));
		ret = rt_profile_parse_file(path, p, d);
		if (ret || d->n) {
			fprintf(stderr, "# %s: ret %d\n", path, ret);
			rt_diag_print(d, stderr);
			failed++;
		}
	}
	free(names);
	if (!n) {
		fprintf(stderr, "# %s: no profiles\n", dir);
		failed++;
	}
	return failed;
}

/* ---- [Agent] and [Watchdog] (rocetuned) ---- */

static void agent_keys(void **state)
{
	(void)state;
	/* Defaults when not given. */
	expect_ok("[Match]\n");
	assert_int_equal(prof.on_drift, RT_DRIFT_REAPPLY);
	assert_int_equal(prof.max_reapplies, RT_AGENT_DEF_MAX_REAPPLIES);
	assert_int_equal(prof.reapply_window_s, RT_AGENT_DEF_REAPPLY_WINDOW_S);
	assert_int_equal(prof.poll_interval_s, RT_AGENT_DEF_POLL_INTERVAL_S);
	assert_int_equal(prof.wd_action, RT_WD_ALERT);
	assert_int_equal(prof.wd_storm_ms, 0);
	assert_int_equal(prof.wd_restore_after_ms, RT_WD_DEF_RESTORE_AFTER_MS);

	expect_ok("[Match]\n[Agent]\nOnDrift=report\nMaxReapplies=0\n"
		  "ReapplyWindowSec=86400\nPollIntervalSec=1\n");
	assert_int_equal(prof.on_drift, RT_DRIFT_REPORT);
	assert_int_equal(prof.max_reapplies, 0);
	assert_int_equal(prof.reapply_window_s, 86400);
	assert_int_equal(prof.poll_interval_s, 1);
	assert_int_equal(prof.line[RT_PK_AGENT_POLL_INTERVAL_SEC], 6);
	assert_string_equal(rt_on_drift_name(prof.on_drift), "report");

	expect_ok("[Match]\n[Watchdog]\nAction=timeout\nStormMs=10\n"
		  "RestoreAfterMs=0\nTimeoutMs=8000\n");
	assert_int_equal(prof.wd_action, RT_WD_TIMEOUT);
	assert_int_equal(prof.wd_storm_ms, 10);
	assert_int_equal(prof.wd_restore_after_ms, 0);
	assert_int_equal(prof.wd_timeout_ms, 8000);
	assert_string_equal(rt_wd_action_name(prof.wd_action), "timeout");
	expect_ok("[Match]\n[Watchdog]\nAction=disable-pfc\n");
	assert_string_equal(rt_wd_action_name(prof.wd_action), "disable-pfc");
	assert_string_equal(rt_pkey_section(RT_PK_WD_ACTION), "Watchdog");
	assert_string_equal(rt_pkey_section(RT_PK_AGENT_ON_DRIFT), "Agent");
	assert_int_equal(rt_pkey_lookup("Watchdog", "TimeoutMs"),
			 RT_PK_WD_TIMEOUT_MS);

	expect_one_err("[Match]\n[Agent]\nOnDrift=fix\n", 3,
		       "[Agent] OnDrift=fix: not a drift policy (reapply or report)");
	expect_one_err("[Match]\n[Agent]\nMaxReapplies=1001\n", 3,
		       "out of range (decimal 0..1000");
	expect_one_err("[Match]\n[Agent]\nReapplyWindowSec=0\n", 3,
		       "out of range (decimal 1..86400");
	expect_one_err("[Match]\n[Agent]\nPollIntervalSec=30s\n", 3,
		       "not a decimal number");
	expect_one_err("[Match]\n[Watchdog]\nAction=pause\n", 3,
		       "not a storm action (alert, timeout or disable-pfc)");
	expect_one_err("[Match]\n[Watchdog]\nStormMs=9\n", 3,
		       "out of range (decimal 10..600000");
	expect_one_err("[Match]\n[Watchdog]\nTimeoutMs=79\nAction=timeout\n",
		       3, "out of range (decimal 80..8000");
	expect_one_err("[Match]\n[Watchdog]\nTimeoutMs=100\n", 3,
		       "only used by Action=timeout (Action= is not given");
	expect_one_err("[Match]\n[Watchdog]\nAction=alert\nTimeoutMs=100\n",
		       4, "only used by Action=timeout (Action=alert is on line 3)");
	expect_one_err("[Match]\n[Agent]\nAction=alert\n", 3,
		       "key in the wrong section (it belongs in [Watchdog])");
	expect_one_err("[Match]\n[Watchdog]\nOnDrift=report\n", 3,
		       "it belongs in [Agent]");
	expect_one_err("[Match]\n[Watchdog]\nAction=\n", 3,
		       "needs a value (alert, timeout or disable-pfc)");
}

/* ---- [Tune] (rocetuned's closed loop) ---- */

#define TUNE_RULE "[Match]\n[DCQCN]\nAIRateMbps=5\n[Tune]\n"	/* keys from line 5 */
#define TUNE_REST "Metric=ecn\nDirection=decrease\nStep=1\nAbove=1000\n" \
		  "Below=100\nMin=1\nMax=10\n"

static void tune_keys(void **state)
{
	(void)state;
	/* Defaults; an empty [Tune] is no rule. */
	expect_ok("[Match]\n[Tune]\n");
	assert_false(rt_profile_has(&prof, RT_PK_TUNE_PARAMETER));
	assert_int_equal(prof.tune_cooldown_ms, RT_TUNE_DEF_COOLDOWN_MS);
	assert_int_equal(prof.tune_interval_ms, RT_TUNE_DEF_INTERVAL_MS);
	assert_int_equal(prof.tune_guard, RT_TM_NONE);
	assert_int_equal(prof.tune_max_writes_h,
			 RT_TUNE_DEF_MAX_WRITES_PER_HOUR);
	assert_int_equal(prof.metrics_top_qps, 0);

	expect_ok(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST
		  "CooldownMs=1000\nIntervalMs=100\nGuard=out-of-sequence\n"
		  "GuardTolerance=0\nMaxWritesPerHour=600\n"
		  "[Agent]\nMetricsTopQPs=1000\n");
	assert_int_equal(prof.line[RT_PK_TUNE_PARAMETER], 5);
	assert_int_equal(prof.tune_param, RT_DCQCN_AI_RATE_MBPS);
	assert_int_equal(prof.tune_metric, RT_TM_ECN);
	assert_int_equal(prof.tune_dir, RT_TUNE_DECREASE);
	assert_int_equal(prof.tune_step, 1);
	assert_int_equal(prof.tune_above, 1000);
	assert_int_equal(prof.tune_below, 100);
	assert_int_equal(prof.tune_min, 1);
	assert_int_equal(prof.tune_max, 10);
	assert_int_equal(prof.tune_cooldown_ms, 1000);
	assert_int_equal(prof.tune_interval_ms, 100);
	assert_int_equal(prof.tune_max_writes_h, 600);
	assert_int_equal(prof.tune_guard,
			 RT_TM_CNT + ROCETUNE_A_CNT_OUT_OF_SEQUENCE);
	assert_int_equal(prof.metrics_top_qps, 1000);
	assert_string_equal(rt_pkey_section(RT_PK_TUNE_GUARD), "Tune");
	assert_string_equal(rt_pkey_section(RT_PK_AGENT_METRICS_TOP_QPS),
			    "Agent");

	/* Metric names, both ways. */
	assert_int_equal(rt_tune_metric_parse("cnp"), RT_TM_CNP);
	assert_int_equal(rt_tune_metric_parse("pause"), RT_TM_PAUSE);
	assert_int_equal(rt_tune_metric_parse("tx-pause"), RT_TM_TX_PAUSE);
	assert_int_equal(rt_tune_metric_parse("tx-cnp-pkts"),
			 RT_TM_CNT + ROCETUNE_A_CNT_TX_CNP_PKTS);
	assert_int_equal(rt_tune_metric_parse("tx_cnp_pkts"), RT_TM_NONE);
	assert_int_equal(rt_tune_metric_parse(""), RT_TM_NONE);
	assert_string_equal(rt_tune_metric_name(RT_TM_RX_PAUSE), "rx-pause");
	assert_string_equal(rt_tune_metric_name(RT_TM_CNT +
						ROCETUNE_A_CNT_LOCAL_ACK_TIMEOUTS),
			    "local-ack-timeouts");
	assert_null(rt_tune_metric_name(RT_TM_NONE));
	assert_null(rt_tune_metric_name(RT_TM_CNT + ROCETUNE_A_CNT_MAX + 1));

	/* Each key alone, wrong (and the rule is incomplete too). */
	expect_err("[Match]\n[Tune]\nParameter=Enable\n", 3,
		       "[Tune] Parameter=Enable: not tunable: it turns DCQCN on or off; a rule moves only a rate or a timer");
	expect_err("[Match]\n[Tune]\nParameter=aiRateMbps\n", 3,
		       "not a [DCQCN] key");
	expect_err("[Match]\n[Tune]\nMetric=CNP\n", 3, "not a metric");
	expect_err("[Match]\n[Tune]\nGuard=pfc\n", 3, "not a metric");
	expect_err("[Match]\n[Tune]\nDirection=down\n", 3,
		       "not a direction (increase or decrease)");
	expect_err("[Match]\n[Tune]\nStep=0\n", 3,
		       "out of range (decimal 1..4294967295");
	expect_err("[Match]\n[Tune]\nAbove=1000000000001\n", 3,
		       "out of range (decimal 0..1000000000000");
	expect_err("[Match]\n[Tune]\nCooldownMs=-1\n", 3,
		       "no sign allowed");
	expect_err("[Match]\n[Tune]\nIntervalMs=99\n", 3,
		       "out of range (decimal 100..3600000");
	expect_one_err("[Match]\n[Agent]\nMetricsTopQPs=1001\n", 3,
		       "out of range (decimal 0..1000");
	expect_err("[Match]\n[Tune]\nStep=\n", 3,
		       "needs a value (decimal 1..4294967295)");

	/* The rule as a whole. */
	expect_err(TUNE_RULE "Parameter=AIRateMbps\n", 4,
		   "[Tune]: no Metric= (a rule needs");
	expect_err(TUNE_RULE "Parameter=AIRateMbps\n", 4, "[Tune]: no Max=");
	assert_int_equal(diag.n, 7);
	expect_one_err(TUNE_RULE "Parameter=MinRateMbps\n" TUNE_REST, 5,
		       "needs MinRateMbps= in [DCQCN] (the value the rule starts from");
	expect_one_err(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST
		       "Below=1000\n", 13,
		       "[Tune] Below=1000: not below Above=1000 on line 9");
	expect_one_err(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST
		       "Below=2000\n", 13, "(hysteresis: act above Above=");
	expect_one_err(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST
		       "Min=10\nMax=5\n", 13,
		       "[Tune] Min=10: not below Max=5 on line 14");
	expect_one_err(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST
		       "Min=6\n", 3,
		       "[DCQCN] AIRateMbps=5: outside [Tune] Min=6..Max=10");
	expect_one_err(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST
		       "Step=10\n", 13, "larger than Max - Min = 9");
	expect_ok(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST "Step=9\n");
	expect_one_err("[Match]\n[DCQCN]\nDceTcpRttUs=4\n[Tune]\n"
		       "Parameter=DceTcpRttUs\n" TUNE_REST "Max=131072\n", 13,
		       "[Tune] Max=131072: outside the range of DceTcpRttUs (1..131071)");
	expect_one_err("[Match]\n[DCQCN]\nDceTcpRttUs=4\n[Tune]\n"
		       "Parameter=DceTcpRttUs\n" TUNE_REST "Min=0\n", 13,
		       "[Tune] Min=0: outside the range of DceTcpRttUs (1..131071)");
	expect_one_err(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST
		       "GuardTolerance=5\n", 13,
		       "only used with Guard= (Guard= is not given)");
	/* A bad key makes the rule incomplete, not a cascade of errors. */
	expect_one_err(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST
		       "Min=x\n", 13, "[Tune] Min=x: not a decimal number");
	/* A later key wins, and the rule is judged with it. */
	expect_ok(TUNE_RULE "Parameter=AIRateMbps\n" TUNE_REST
		  "Below=2000\nBelow=999\n");
	assert_int_equal(prof.tune_below, 999);
}

/*
 * The guardrails of a [Tune] rule (issue 26, defect 3): only a rate or a
 * timer, within the bounds the profile itself sets, hysteresis that can
 * go back, a cool-down that bounds the writes, a budget.
 */
#define TUNE_AI "[Match]\n[DCQCN]\nAIRateMbps=5\n[Tune]\nParameter=AIRateMbps\n"
#define TUNE_HI "Metric=cnp\nDirection=increase\nAbove=1000\nBelow=100\n"

static void tune_guardrails(void **state)
{
	static const char *const refused[] = {
		"CNPDSCP", "CNPPriority", "ByteResetBytes", "Threshold",
		"InitialAlpha", "G", "GD", "MinDecreaseFactorPercent",
		"ClampTargetRate", "ClampTargetRateAfterTimeInc", "Enable",
	};
	static const char *const tunable[] = {
		"MinTimeBetweenCNPsUs", "RateReduceMonitorPeriodUs",
		"AIRateMbps", "HAIRateMbps", "TimeResetUs", "DceTcpRttUs",
		"RateOnFirstCNPMbps",
	};
	char text[512], want[128];
	unsigned int i;

	(void)state;
	/* Anything that is no rate or timer, each with its reason. */
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		snprintf(text, sizeof(text), "[Match]\n[Tune]\nParameter=%s\n",
			 refused[i]);
		snprintf(want, sizeof(want),
			 "[Tune] Parameter=%s: not tunable: ", refused[i]);
		expect_err(text, 3, want);
		expect_err(text, 3, "a rule moves only a rate or a timer (MinRateMbps, MaxRateMbps, AIRateMbps, HAIRateMbps, RateOnFirstCNPMbps, MinTimeBetweenCNPsUs, RateReduceMonitorPeriodUs, TimeResetUs or DceTcpRttUs)");
	}
	expect_one_err("[Match]\n[DCQCN]\nCNPPriority=6\n[Tune]\n"
		       "Parameter=CNPPriority\n" TUNE_HI
		       "Step=1\nMin=3\nMax=6\n", 5,
		       "it moves the CNPs to another priority, and so another traffic class");
	expect_one_err("[Match]\n[DCQCN]\nCNPDSCP=48\n[Tune]\n"
		       "Parameter=CNPDSCP\n" TUNE_HI
		       "Step=8\nMin=26\nMax=48\n", 5,
		       "it moves the CNPs to another DSCP, and so another traffic class");
	/* Every rate and timer is tunable. */
	for (i = 0; i < ARRAY_SIZE(tunable); i++) {
		snprintf(text, sizeof(text),
			 "[Match]\n[DCQCN]\n%s=10\n[Tune]\nParameter=%s\n"
			 TUNE_HI "Step=1\nMin=1\nMax=20\n",
			 tunable[i], tunable[i]);
		expect_ok(text);
	}

	/*
	 * MinRateMbps <= MaxRateMbps: a rule of either stays within the
	 * other all the way, and needs it in the profile to be checked.
	 */
	expect_one_err("[Match]\n[DCQCN]\nMaxRateMbps=25000\nMinRateMbps=100\n"
		       "[Tune]\nParameter=MinRateMbps\n" TUNE_HI
		       "Step=1000\nMin=100\nMax=50000\n", 13,
		       "[Tune] Max=50000: above [DCQCN] MaxRateMbps=25000 on line 3 (MinRateMbps <= MaxRateMbps: the rule would take MinRateMbps past it)");
	expect_ok("[Match]\n[DCQCN]\nMaxRateMbps=25000\nMinRateMbps=100\n"
		  "[Tune]\nParameter=MinRateMbps\n" TUNE_HI
		  "Step=1000\nMin=100\nMax=25000\n");
	/* MaxRateMbps=0 is line rate: no bound. */
	expect_ok("[Match]\n[DCQCN]\nMaxRateMbps=0\nMinRateMbps=100\n"
		  "[Tune]\nParameter=MinRateMbps\n" TUNE_HI
		  "Step=1000\nMin=100\nMax=50000\n");
	expect_one_err("[Match]\n[DCQCN]\nMinRateMbps=100\n"
		       "[Tune]\nParameter=MinRateMbps\n" TUNE_HI
		       "Step=1000\nMin=100\nMax=50000\n", 5,
		       "[Tune] Parameter=MinRateMbps: needs MaxRateMbps= in [DCQCN] too (MinRateMbps <= MaxRateMbps: the rule's Max= is checked against it)");
	expect_one_err("[Match]\n[DCQCN]\nMaxRateMbps=25000\nMinRateMbps=1000\n"
		       "[Tune]\nParameter=MaxRateMbps\n" TUNE_HI
		       "Step=1000\nMin=500\nMax=25000\n", 12,
		       "[Tune] Min=500: below [DCQCN] MinRateMbps=1000 on line 4 (MinRateMbps <= MaxRateMbps: the rule would take MaxRateMbps under it)");
	expect_ok("[Match]\n[DCQCN]\nMaxRateMbps=25000\nMinRateMbps=1000\n"
		  "[Tune]\nParameter=MaxRateMbps\n" TUNE_HI
		  "Step=1000\nMin=1000\nMax=25000\n");
	expect_one_err("[Match]\n[DCQCN]\nMaxRateMbps=25000\n"
		       "[Tune]\nParameter=MaxRateMbps\n" TUNE_HI
		       "Step=1000\nMin=1000\nMax=25000\n", 5,
		       "needs MinRateMbps= in [DCQCN] too (MinRateMbps <= MaxRateMbps: the rule's Min= is checked against it)");
	/* A 0 that is a mode (line rate, off) is not reached by a rule. */
	expect_err("[Match]\n[DCQCN]\nMaxRateMbps=25000\nMinRateMbps=0\n"
		   "[Tune]\nParameter=MaxRateMbps\n" TUNE_HI
		   "Step=1000\nMin=0\nMax=25000\n", 12,
		   "[Tune] Min=0: MaxRateMbps=0 is no rate but line rate: a rule may not switch to it (at least 1)");
	expect_one_err("[Match]\n[DCQCN]\nRateOnFirstCNPMbps=100\n"
		       "[Tune]\nParameter=RateOnFirstCNPMbps\n" TUNE_HI
		       "Step=10\nMin=0\nMax=1000\n", 11,
		       "RateOnFirstCNPMbps=0 is no rate but off: a rule may not switch to it");
	/* The profile's own pair, without a rule: as before. */
	expect_one_err("[Match]\n[DCQCN]\nMinRateMbps=200\nMaxRateMbps=100\n", 3,
		       "[DCQCN] MinRateMbps=200: above MaxRateMbps=100 on line 4 (MinRateMbps <= MaxRateMbps unless MaxRateMbps=0)");
	expect_ok("[Match]\n[DCQCN]\nMinRateMbps=200\nMaxRateMbps=0\n");

	/* Below=0: the metric is never below it, the rule never goes back. */
	expect_one_err(TUNE_AI "Metric=ecn\nDirection=decrease\nAbove=1000\n"
		       "Below=0\nStep=1\nMin=1\nMax=10\n", 9,
		       "[Tune] Below=0: no rate is below 0, so the rule would never step back (a one-way ratchet): at least 1 events/s");
	expect_ok(TUNE_AI "Metric=ecn\nDirection=decrease\nAbove=1000\n"
		  "Below=1\nStep=1\nMin=1\nMax=10\n");
	/* CooldownMs= at least 1000: at most 3600 writes an hour. */
	expect_one_err(TUNE_AI TUNE_HI "Step=1\nMin=1\nMax=10\nCooldownMs=0\n",
		       13, "[Tune] CooldownMs=0: at least 1000 ms between two writes (at most 3600 an hour");
	expect_one_err(TUNE_AI TUNE_HI "Step=1\nMin=1\nMax=10\nCooldownMs=999\n",
		       13, "[Tune] CooldownMs=999: at least 1000 ms");
	expect_ok(TUNE_AI TUNE_HI "Step=1\nMin=1\nMax=10\nCooldownMs=1000\n");
	/* MaxWritesPerHour=: room for a step and its revert, bounded. */
	expect_one_err(TUNE_AI TUNE_HI "Step=1\nMin=1\nMax=10\nMaxWritesPerHour=1\n",
		       13, "[Tune] MaxWritesPerHour=1: out of range (decimal 2..600");
	expect_one_err(TUNE_AI TUNE_HI "Step=1\nMin=1\nMax=10\nMaxWritesPerHour=601\n",
		       13, "out of range (decimal 2..600");
	expect_err("[Match]\n[Tune]\nMaxWritesPerHour=\n", 3,
		       "needs a value (decimal 2..600)");
	expect_ok(TUNE_AI TUNE_HI "Step=1\nMin=1\nMax=10\nMaxWritesPerHour=2\n");
	assert_int_equal(prof.tune_max_writes_h, 2);
}

static void corpus_good(void **state)
{
	struct rt_profile_set set;
	unsigned int k, keys = 0;
	uint64_t seen[(RT_PK_NUM + 63) / 64] = { 0 };

	(void)state;
	assert_int_equal(check_good(GOOD_CORPUS), 0);
	assert_int_equal(check_good(SHIPPED), 0);

	/* Together the good profiles give every key. */
	memset(&diag, 0, sizeof(diag));
	assert_int_equal(rt_profile_load_dir(GOOD_CORPUS, &set, &diag), 0);
	for (unsigned int i = 0; i < set.n; i++)
		for (k = 0; k < RT_PK_NUM; k++)
			if (rt_profile_has(set.p[i], k))
				seen[k / 64] |= 1ull << (k % 64);
	for (k = 0; k < RT_PK_NUM; k++) {
		if (seen[k / 64] & (1ull << (k % 64)))
			keys++;
		else
			fprintf(stderr, "# no good profile gives %s\n",
				rt_pkey_name(k));
	}
	assert_int_equal(keys, RT_PK_NUM);
	rt_profile_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pkey_tables),
		cmocka_unit_test(profile_dir_explicit),
		cmocka_unit_test(rxe_check_profile),
		cmocka_unit_test(minimal_profile),
		cmocka_unit_test(missing_match),
		cmocka_unit_test(syntax_errors),
		cmocka_unit_test(sections_and_keys),
		cmocka_unit_test(all_errors_reported),
		cmocka_unit_test(bad_lines),
		cmocka_unit_test(match_keys),
		cmocka_unit_test(matching),
		cmocka_unit_test(trust_key),
		cmocka_unit_test(pfc_key),
		cmocka_unit_test(dscp_to_priority),
		cmocka_unit_test(priority_to_tc),
		cmocka_unit_test(ets),
		cmocka_unit_test(maxrate),
		cmocka_unit_test(buffers),
		cmocka_unit_test(cable_and_storm),
		cmocka_unit_test(dcqcn_numbers),
		cmocka_unit_test(dcqcn_booleans),
		cmocka_unit_test(dcqcn_rates),
		cmocka_unit_test(diag_limits),
		cmocka_unit_test(parse_file),
		cmocka_unit_test(parse_endless),
		cmocka_unit_test(nic_list_unbounded),
		cmocka_unit_test(load_dir),
		cmocka_unit_test(load_dir_too_many),
		cmocka_unit_test(profile_dir_env),
		cmocka_unit_test(agent_keys),
		cmocka_unit_test(tune_keys),
		cmocka_unit_test(tune_guardrails),
		cmocka_unit_test(corpus_bad),
		cmocka_unit_test(corpus_good),
	};

	return cmocka_run_group_tests_name("rt_profile", tests, NULL, NULL);
}
