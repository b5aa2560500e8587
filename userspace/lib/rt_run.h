/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the run directory (/run/rocetune, or
 * $ROCETUNE_RUN_DIR), its locks and the journals of the apply engine.
 *
 * One function creates the directory, with one mode (0755, as the systemd
 * units' RuntimeDirectoryMode=).  One lock implementation (an exclusive
 * flock(2) on a file holding the holder's pid) serves the per-NIC locks of
 * the engine and the agent's single-instance lock.
 *
 * An apply to a NIC holds two locks: RUN/NETDEV.lock and
 * RUN/ifindex:N.lock (a netdev name never has a ':'), name first, so a NIC
 * renamed mid-apply is never written by two appliers at once.  Its
 * journal, RUN/NETDEV.journal, records the name, ifindex and identity
 * (driver, bus-info, RDMA device) of the NIC and the old value of every
 * setting the apply writes; an apply finds the journals of its NIC by name
 * and by ifindex.  A journal is checked before it is restored: its format,
 * every value against the width of the field it is written to, and the NIC
 * it names.  A damaged journal, one of another NIC (another ifindex under
 * that name: a NIC removed and re-created after a killed apply), or one
 * whose restore failed, is "stuck": it is kept, applies to that NIC fail
 * with a message naming it, and "rocetune profile journal show|discard"
 * inspects and discards it (Documentation/design.rst).
 */
#ifndef RT_RUN_H
#define RT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_nic.h"
#include "rt_setting.h"

#define RT_RUN_DIR_MODE		0755
#define RT_LOCK_WAIT_MS		10000
#define RT_JOURNAL_MAGIC	"rocetune-journal 1"
#define RT_JOURNAL_MAX_BYTES	(256 * 1024)

/*
 * rt_run_dir() - $ROCETUNE_RUN_DIR when set, else /run/rocetune: the
 * per-NIC lock files and journals, the agent's pid lock, socket and storm
 * records.
 */
const char *rt_run_dir(void);

/*
 * rt_run_dir_create() - create the run directory (mode RT_RUN_DIR_MODE,
 * whatever the umask) unless it exists; it must be a directory, not a
 * symbolic link.  0, or -errno with the reason in @msg.
 */
int rt_run_dir_create(char *msg, size_t len);

/*
 * rt_lock_path() - take an exclusive lock on @path (created 0644),
 * waiting up to @wait_ms.  The fd (close it to unlock), or -EBUSY when
 * another process holds it (its pid, as written by rt_lock_mark(), in
 * @holder, "?" if unknown), or -errno when @path cannot be opened.
 */
int rt_lock_path(const char *path, unsigned int wait_ms, char *holder,
		 size_t hlen);
/* rt_lock_mark() - write this process's pid into the lock file @fd. */
void rt_lock_mark(int fd);

/*
 * rt_nic_lock() - the two locks of an apply to @nic (name, then ifindex),
 * waiting up to RT_LOCK_WAIT_MS in all.  0 with @fds set, or -errno with
 * the reason in @msg.  rt_nic_unlock() releases both.
 */
int rt_nic_lock(const struct rt_nic *nic, int fds[2], char *msg, size_t len);
/*
 * rt_nic_lock_wait() - the same, waiting up to @wait_ms in all (0: not at
 * all, -EBUSY at once when another process holds either lock).
 */
int rt_nic_lock_wait(const struct rt_nic *nic, int fds[2],
		     unsigned int wait_ms, char *msg, size_t len);
void rt_nic_unlock(int fds[2]);

/* A journal, as read from the run directory. */
struct rt_journal {
	char path[1024];
	char file_netdev[64];		/* the NETDEV of NETDEV.journal */
	bool valid;			/* read, well-formed, in range */
	char error[512];		/* !valid: what is wrong, with the line */
	char netdev[64];
	int ifindex;
	int pid;			/* of the apply that wrote it */
	int64_t time;			/* written, unix seconds (0: unknown) */
	char profile[512];
	char driver[64];		/* "" in journals of older versions */
	char bus_info[64];
	char rdma_dev[64];
	unsigned int failures;		/* restores of it that failed */
	char last_error[512];		/* the last failure */
	struct rt_state snap;		/* the values to restore */
};

/* rt_journal_path() - RUN/@netdev.journal into @buf; 0 or -ENAMETOOLONG. */
int rt_journal_path(const char *netdev, char *buf, size_t len);

/*
 * rt_journal_read() - read and check the journal @path into @j.  0 when it
 * is valid; -EINVAL when it is damaged (j->valid false, j->error says
 * where and why; what could be read is kept); other -errno when it cannot
 * be read (j->error).
 */
int rt_journal_read(const char *path, struct rt_journal *j);

/*
 * rt_journal_write() - write @j to j->path durably and atomically (a
 * temporary file, fsync, rename).  0 or -errno with @msg.
 */
int rt_journal_write(const struct rt_journal *j, char *msg, size_t len);

/*
 * rt_journal_list() - every RUN/ *.journal, sorted by file name, read with
 * rt_journal_read(): *@v is allocated (free() it; NULL when none).
 * Returns the number, or -errno with @msg when the directory cannot be
 * read (no directory: 0).
 */
int rt_journal_list(struct rt_journal **v, char *msg, size_t len);

/*
 * rt_journal_find() - the journal an apply to @nic has to deal with first,
 * looked up by name and by ifindex; call it holding rt_nic_lock().
 * 0: none; 1: @j is the NIC's own, valid and fitting it (restore it);
 * -EUCLEAN: a journal blocks the NIC (damaged, of another NIC, more than
 * one): @msg names it, says why and how to discard it; @j is it.
 */
int rt_journal_find(const struct rt_nic *nic, struct rt_journal *j,
		    char *msg, size_t len);

enum rt_journal_state {
	RT_JOURNAL_NONE,		/* no journal for the NIC */
	RT_JOURNAL_PENDING,		/* its own: the next apply restores it */
	RT_JOURNAL_BUSY,		/* an apply to it is running */
	RT_JOURNAL_STUCK,		/* blocks applies until discarded, or
					 * its restore failed */
};

const char *rt_journal_state_name(enum rt_journal_state s);

/*
 * rt_journal_status() - the state of @nic's journal, without taking its
 * locks (for show and status): @why (may be NULL) says what is stuck.
 */
enum rt_journal_state rt_journal_status(const struct rt_nic *nic, char *why,
					size_t len);

/*
 * rt_journal_state_of() - the state of journal @j by itself: BUSY while an
 * apply holds its NIC's lock, STUCK when damaged, its restore failed, or
 * the NIC it names is gone or is another device now, else PENDING; @why
 * says why.
 */
enum rt_journal_state rt_journal_state_of(const struct rt_journal *j,
					  char *why, size_t len);

/* rt_journal_pending() - a journal names @netdev (by file or inside). */
bool rt_journal_pending(const char *netdev);

/*
 * rt_journal_discard() - remove every journal naming @netdev (its file, the
 * name inside, or the ifindex @netdev has now), each under its NIC's
 * locks, not waiting.  The journals removed go to *@v (free() it), their
 * number is returned; -EBUSY when an apply holds one (the others are
 * removed), -errno, with @msg.
 */
int rt_journal_discard(const char *netdev, struct rt_journal **v,
		       unsigned int *n, char *msg, size_t len);

#endif /* RT_RUN_H */
