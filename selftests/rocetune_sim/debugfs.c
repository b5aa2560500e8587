// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune_sim debugfs: the test knobs of each device, under
 * /sys/kernel/debug/rocetune_sim/<ID>/ (Documentation/rocetune_sim.rst):
 *
 *   counters/<name>   read or set a counter ("N"), or add to it ("+N")
 *   grow              "NAME RATE MS": NAME grows by RATE/s for MS ms
 *   pfc_storm         "PRIO RATE MS": a received pause storm on PRIO
 *   fail_next_set     errno that the next set operation returns
 *   set_count         set operations that reached the device
 *   fail_set          "SKIP ERRNO": the set after the next SKIP fails
 *   ignore_set        "SKIP": the set after the next SKIP is ignored
 *   cc_lockdown       cc files refuse to open as under kernel lockdown
 *   pfc_link_flap     PFC changes flap the link (Y/N)
 *   link_flaps        link flaps so far
 *   hw_refresh_ms     RDMA hw counters refresh every MS ms (0: live)
 *   hw_stats_delay_ms each read of the RDMA hw counters sleeps MS ms first
 *   max_tc, max_lltc  bnxt_re: the TC and lossless TC counts of the "firmware"
 *   cc_params/<name>  mlx5 DCQCN parameters
 *   cc_config/<name>  bnxt_re congestion control parameters
 *
 * and the congestion control files also where the real drivers have them,
 * /sys/kernel/debug/{mlx5,bnxt_re}/<bus-info>/{cc_params,cc_config}.
 */

#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/ethtool.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rsim.h"

static struct dentry *rsim_ddir;

/*
 * The real drivers' top directories ("mlx5", "bnxt_re") that this module
 * created because they did not exist; NULL where a real driver's
 * directory was there first: the devices appear in that one, which is
 * never removed here.  Changed only while devices are created, under the
 * bus's device list lock, and on module exit.
 */
static struct dentry *rsim_drv_dirs[RSIM_NUM_PERSONALITIES];

/* Copy a short command from user space, NUL-terminated. */
static int rsim_copy_cmd(char *kbuf, size_t size, const char __user *ubuf,
			 size_t count)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(kbuf, ubuf, count))
		return -EFAULT;
	kbuf[count] = '\0';
	return 0;
}

static ssize_t rsim_cnt_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct rsim_cnt_file *cf = file->private_data;
	struct rsim_dev *rsim = cf->rsim;
	char buf[32];
	u64 val;
	int len;

	spin_lock(&rsim->stats_lock);
	rsim_grow_advance(rsim, jiffies);
	val = rsim->cnt[cf->idx];
	spin_unlock(&rsim->stats_lock);
	len = scnprintf(buf, sizeof(buf), "%llu\n", val);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t rsim_cnt_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct rsim_cnt_file *cf = file->private_data;
	struct rsim_dev *rsim = cf->rsim;
	u64 mask = rsim_cnt_mask(rsim, cf->idx);
	bool add = false;
	char buf[32], *p = buf;
	u64 val;
	int err;

	err = rsim_copy_cmd(buf, sizeof(buf), ubuf, count);
	if (err)
		return err;
	if (*p == '+') {
		add = true;
		p++;
	}
	err = kstrtou64(p, 0, &val);
	if (err)
		return err;

	spin_lock(&rsim->stats_lock);
	if (add)
		val += rsim->cnt[cf->idx];
	rsim->cnt[cf->idx] = val & mask;
	spin_unlock(&rsim->stats_lock);
	return count;
}

static const struct file_operations rsim_cnt_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rsim_cnt_read,
	.write = rsim_cnt_write,
	.llseek = default_llseek,
};

/* Counter growth ----------------------------------------------------- */

static void rsim_grow_work(struct work_struct *work)
{
	struct rsim_dev *rsim = container_of(to_delayed_work(work),
					     struct rsim_dev, grow_work);
	bool left;

	spin_lock(&rsim->stats_lock);
	left = rsim_grow_advance(rsim, jiffies);
	spin_unlock(&rsim->stats_lock);
	if (left)
		schedule_delayed_work(&rsim->grow_work,
				      msecs_to_jiffies(RSIM_TICK_MS));
}

/* Start (or with @rate 0 stop) the growth of counter @idx. */
static int rsim_grow_start(struct rsim_dev *rsim, unsigned int idx, u64 rate,
			   u32 ms)
{
	struct rsim_grow *g, *slot = NULL;
	unsigned long now = jiffies;
	unsigned int i;

	spin_lock(&rsim->stats_lock);
	rsim_grow_advance(rsim, now);
	for (i = 0; i < RSIM_MAX_GROW; i++) {
		g = &rsim->grow[i];
		if (g->active && g->idx == idx) {
			slot = g;
			break;
		}
		if (!g->active && !slot)
			slot = g;
	}
	if (!slot) {
		spin_unlock(&rsim->stats_lock);
		return -ENOSPC;
	}
	slot->active = rate != 0;
	slot->idx = idx;
	slot->rate = rate;
	slot->rem = 0;
	slot->last = now;
	slot->end = ms ? now + msecs_to_jiffies(ms) : 0;
	if (slot->end == 0 && ms)
		slot->end = 1;
	spin_unlock(&rsim->stats_lock);

	mod_delayed_work(system_wq, &rsim->grow_work,
			 msecs_to_jiffies(RSIM_TICK_MS));
	return 0;
}

static ssize_t rsim_grow_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct rsim_dev *rsim = file->private_data;
	unsigned long now = jiffies;
	size_t size = 64 * RSIM_MAX_GROW + 1;
	unsigned int i;
	ssize_t ret;
	char *buf;
	int len = 0;

	buf = kzalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	spin_lock(&rsim->stats_lock);
	rsim_grow_advance(rsim, now);
	for (i = 0; i < RSIM_MAX_GROW; i++) {
		struct rsim_grow *g = &rsim->grow[i];

		if (!g->active)
			continue;
		len += scnprintf(buf + len, size - len, "%s %llu %u\n",
				 rsim_cnt_name(rsim, g->idx), g->rate,
				 g->end ? jiffies_to_msecs(g->end - now) : 0);
	}
	spin_unlock(&rsim->stats_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
	kfree(buf);
	return ret;
}

static ssize_t rsim_grow_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct rsim_dev *rsim = file->private_data;
	char buf[80], name[ETH_GSTRING_LEN];
	int idx, err;
	u64 rate;
	u32 ms;

	err = rsim_copy_cmd(buf, sizeof(buf), ubuf, count);
	if (err)
		return err;
	if (sscanf(buf, "%31s %llu %u", name, &rate, &ms) != 3)
		return -EINVAL;
	idx = rsim_cnt_lookup(rsim, name);
	if (idx < 0)
		return idx;
	err = rsim_grow_start(rsim, idx, rate, ms);
	return err ? err : count;
}

static const struct file_operations rsim_grow_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rsim_grow_read,
	.write = rsim_grow_write,
	.llseek = default_llseek,
};

/*
 * "PRIO RATE MS": the port receives RATE pause frames per second on PRIO
 * for MS ms and is paused all that time (rx_prioN_pause_duration grows by
 * one microsecond per microsecond).  RATE 0 ends a storm.
 */
static ssize_t rsim_storm_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct rsim_dev *rsim = file->private_data;
	unsigned int prio;
	char buf[64];
	u64 rate;
	int err;
	u32 ms;

	err = rsim_copy_cmd(buf, sizeof(buf), ubuf, count);
	if (err)
		return err;
	if (sscanf(buf, "%u %llu %u", &prio, &rate, &ms) != 3 ||
	    prio >= RSIM_NUM_PRIO)
		return -EINVAL;
	err = rsim_grow_start(rsim, RSIM_C_RX_PAUSE + prio, rate, ms);
	if (err)
		return err;
	err = rsim_grow_start(rsim, RSIM_C_RX_PAUSE_DUR + prio,
			      rate ? USEC_PER_SEC : 0, ms);
	return err ? err : count;
}

static const struct file_operations rsim_storm_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rsim_storm_write,
	.llseek = default_llseek,
};

/* Simple knobs --------------------------------------------------------- */

static int rsim_fail_get(void *data, u64 *val)
{
	struct rsim_dev *rsim = data;

	*val = atomic_read(&rsim->fail_next_set);
	return 0;
}

/* Takes an errno, positive or negative; 0 disarms. */
static int rsim_fail_set(void *data, u64 val)
{
	struct rsim_dev *rsim = data;
	s64 err = (s64)val;

	if (err < 0)
		err = -err;
	if (err > MAX_ERRNO)
		return -EINVAL;
	atomic_set(&rsim->fail_next_set, (int)err);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(rsim_fail_fops, rsim_fail_get, rsim_fail_set,
				"%lld\n");

static int rsim_set_count_get(void *data, u64 *val)
{
	struct rsim_dev *rsim = data;

	*val = atomic64_read(&rsim->set_count);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rsim_set_count_fops, rsim_set_count_get, NULL,
			 "%llu\n");

/* "SKIP ERRNO": the set operations left to pass and the errno; "0 0": off */
static ssize_t rsim_fail_set_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct rsim_dev *rsim = file->private_data;
	char buf[32];
	u32 skip;
	int len;
	int err;

	spin_lock(&rsim->set_lock);
	skip = rsim->fail_set_skip;
	err = rsim->fail_set_err;
	spin_unlock(&rsim->set_lock);
	len = scnprintf(buf, sizeof(buf), "%u %d\n", err ? skip : 0, err);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* Takes "SKIP ERRNO", the errno positive or negative; ERRNO 0 disarms. */
static ssize_t rsim_fail_set_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct rsim_dev *rsim = file->private_data;
	int skip, err;
	char buf[32];

	err = rsim_copy_cmd(buf, sizeof(buf), ubuf, count);
	if (err)
		return err;
	if (sscanf(buf, "%d %d", &skip, &err) != 2 || skip < 0 ||
	    err < -MAX_ERRNO || err > MAX_ERRNO)
		return -EINVAL;

	spin_lock(&rsim->set_lock);
	rsim->fail_set_err = abs(err);
	rsim->fail_set_skip = err ? skip : 0;
	spin_unlock(&rsim->set_lock);
	return count;
}

static const struct file_operations rsim_fail_set_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rsim_fail_set_read,
	.write = rsim_fail_set_write,
	.llseek = default_llseek,
};

/* The set operations left to pass before one is ignored; -1: off. */
static int rsim_ignore_get(void *data, u64 *val)
{
	struct rsim_dev *rsim = data;

	spin_lock(&rsim->set_lock);
	*val = (s64)rsim->ignore_set_skip;
	spin_unlock(&rsim->set_lock);
	return 0;
}

static int rsim_ignore_set(void *data, u64 val)
{
	struct rsim_dev *rsim = data;
	s64 skip = (s64)val;

	if (skip < -1 || skip > INT_MAX)
		return -EINVAL;
	spin_lock(&rsim->set_lock);
	rsim->ignore_set_skip = (int)skip;
	spin_unlock(&rsim->set_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(rsim_ignore_fops, rsim_ignore_get,
				rsim_ignore_set, "%lld\n");

static int rsim_flaps_get(void *data, u64 *val)
{
	struct rsim_dev *rsim = data;

	*val = atomic_read(&rsim->link_flaps);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rsim_flaps_fops, rsim_flaps_get, NULL, "%llu\n");

static int rsim_personality_show(struct seq_file *m, void *v)
{
	struct rsim_dev *rsim = m->private;

	seq_printf(m, "%s\n", rsim->info->name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rsim_personality);

/* Congestion control parameters ---------------------------------------- */

struct rsim_cc_param {
	const char *name;
	u8 bits;
	u32 def;
	bool no_read;		/* reading fails with EINVAL */
	bool no_write;		/* writing fails with EOPNOTSUPP */
};

struct rsim_cc_table {
	const char *drv;	/* the real driver's top debugfs directory */
	const char *dir;
	umode_t mode;
	const struct rsim_cc_param *params;
	unsigned int num;
};

/* Names and field widths of mlx5 cc_params; defaults of NVIDIA's docs. */
static const struct rsim_cc_param rsim_mlx5_cc[] = {
	{ "rp_clamp_tgt_rate", 1, 0 },
	{ "rp_clamp_tgt_rate_ati", 1, 1 },
	{ "rp_time_reset", 32, 300 },
	{ "rp_byte_reset", 32, 32767 },
	{ "rp_threshold", 32, 1 },
	{ "rp_ai_rate", 32, 5 },
	{ "rp_max_rate", 32, 0 },
	{ "rp_hai_rate", 32, 50 },
	{ "rp_min_dec_fac", 32, 50 },
	{ "rp_min_rate", 32, 1 },
	{ "rp_rate_to_set_on_first_cnp", 32, 0 },
	{ "rp_dce_tcp_g", 32, 1019 },
	{ "rp_dce_tcp_rtt", 32, 1 },
	{ "rp_rate_reduce_monitor_period", 32, 4 },
	{ "rp_initial_alpha_value", 32, 1023 },
	{ "rp_gd", 32, 11 },
	{ "np_min_time_between_cnps", 32, 4 },
	{ "np_cnp_dscp", 6, 48 },
	{ "np_cnp_prio_mode", 1, 1 },
	{ "np_cnp_prio", 3, 6 },
	{ "rtt_resp_dscp_valid", 1, 0 },
	{ "rtt_resp_dscp", 6, 0 },
};

/*
 * Names of the upstream bnxt_re cc_config files (Gen P5 "gen0 ext0"); the
 * widths and defaults are approximations of the firmware's.  tx_queue can
 * neither be read nor written there.
 */
static const struct rsim_cc_param rsim_bnxt_re_cc[] = {
	{ "enable_cc", 1, 1 },
	{ "run_avg_weight_g", 8, 8 },
	{ "num_phase_per_state", 8, 16 },
	{ "init_cr", 16, 0x2710 },
	{ "init_tr", 16, 0x2710 },
	{ "tos_ecn", 2, 1 },
	{ "tos_dscp", 6, 0 },
	{ "alt_vlan_pcp", 3, 0 },
	{ "alt_vlan_dscp", 6, 0 },
	{ "rtt", 16, 45 },
	{ "cc_mode", 1, 1 },
	{ "tcp_cp", 16, 0 },
	{ "tx_queue", 16, 0, true, true },
	{ "inactivity_cp", 16, 0 },
};

/*
 * mlx5's last two files, rtt_resp_dscp_valid and rtt_resp_dscp, came in
 * 6.3 (commit 66fb1d5df6ac "IB/mlx5: Extend debug control for CC
 * parameters"): 6.1's cong.c mlx5_ib_dbg_cc_name[] has the 20 others.
 * Kbuild finds them in the kernel's mlx5_ifc.h (RSIM_MLX5_RTT_RESP).
 */
#ifdef RSIM_MLX5_RTT_RESP
#define RSIM_MLX5_CC_NUM	ARRAY_SIZE(rsim_mlx5_cc)
#else
#define RSIM_MLX5_CC_NUM	(ARRAY_SIZE(rsim_mlx5_cc) - 2)
#endif

static const struct rsim_cc_table rsim_cc_tables[RSIM_NUM_PERSONALITIES] = {
	[RSIM_MLX5] = { "mlx5", "cc_params", 0600, rsim_mlx5_cc,
			RSIM_MLX5_CC_NUM },
	[RSIM_BNXT_RE] = { "bnxt_re", "cc_config", 0400, rsim_bnxt_re_cc,
			   ARRAY_SIZE(rsim_bnxt_re_cc) },
};

static_assert(ARRAY_SIZE(rsim_mlx5_cc) <= RSIM_CC_MAX);
static_assert(ARRAY_SIZE(rsim_bnxt_re_cc) <= RSIM_CC_MAX);

static const struct rsim_cc_param *rsim_cc_param(const struct rsim_dev *rsim,
						 unsigned int i)
{
	return &rsim_cc_tables[rsim->pers].params[i];
}

static int rsim_cc_index(const struct rsim_dev *rsim, const char *name)
{
	const struct rsim_cc_table *t = &rsim_cc_tables[rsim->pers];
	unsigned int i;

	for (i = 0; i < t->num; i++)
		if (!strcmp(name, t->params[i].name))
			return i;
	return -1;
}

static ssize_t rsim_cc_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct rsim_cnt_file *cf = file->private_data;
	struct rsim_dev *rsim = cf->rsim;
	char buf[16];
	int len;
	u32 val;

	if (rsim_cc_param(rsim, cf->idx)->no_read)
		return -EINVAL;
	mutex_lock(&rsim->cc_lock);
	val = rsim->cc[cf->idx];
	mutex_unlock(&rsim->cc_lock);
	len = scnprintf(buf, sizeof(buf), "%u\n", val);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/*
 * The text of a cc write, as each driver takes it:
 *
 * mlx5 (drivers/infiniband/hw/mlx5/cong.c set_param(), Linux 6.1): a
 * buffer of 11 bytes, more than 11 written is EINVAL; its last byte is
 * then overwritten with the terminator, so of exactly 11 bytes only the
 * first 10 are parsed ("4294967295\n" passes, "12345678901" is read as
 * 1234567890).
 *
 * bnxt_re (drivers/infiniband/hw/bnxt_re/debugfs.c
 * bnxt_re_cc_config_set(), 6.15, with the bounds check of commit
 * dbc641ecf1cb "RDMA/bnxt_re: Fix buffer overflow in debugfs code"): a
 * buffer of 16 bytes, 16 or more written is EINVAL, the rest terminated
 * after the last byte written.
 */
static int rsim_cc_text(const struct rsim_dev *rsim, const char __user *ubuf,
			size_t count, char *buf)
{
	size_t size = rsim->pers == RSIM_MLX5 ? 11 : 16;

	if (rsim->pers == RSIM_MLX5 ? count > size : count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	buf[size - 1] = '\0';
	return 0;
}

/*
 * Like the drivers: a decimal or 0x value (kstrtou32() base 0, else
 * EINVAL) of a bounded length (rsim_cc_text()); the "firmware" keeps the
 * bits that fit the field.  mlx5: setting np_cnp_prio selects the
 * configured priority (np_cnp_prio_mode 0), setting rtt_resp_dscp marks
 * it valid.
 */
static ssize_t rsim_cc_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct rsim_cnt_file *cf = file->private_data;
	struct rsim_dev *rsim = cf->rsim;
	const struct rsim_cc_param *param = rsim_cc_param(rsim, cf->idx);
	char buf[17];
	u32 val, mask;
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err ? err : count;
	err = rsim_cc_text(rsim, ubuf, count, buf);
	if (err)
		return err;
	if (kstrtou32(buf, 0, &val))
		return -EINVAL;
	if (param->no_write)
		return -EOPNOTSUPP;
	mask = param->bits == 32 ? U32_MAX : BIT(param->bits) - 1;

	mutex_lock(&rsim->cc_lock);
	rsim->cc[cf->idx] = val & mask;
	if (rsim->pers == RSIM_MLX5) {
		if (!strcmp(param->name, "np_cnp_prio"))
			rsim->cc[rsim_cc_index(rsim, "np_cnp_prio_mode")] = 0;
		else if (!strcmp(param->name, "rtt_resp_dscp"))
			rsim->cc[rsim_cc_index(rsim, "rtt_resp_dscp_valid")] = 1;
	}
	mutex_unlock(&rsim->cc_lock);
	return count;
}

/*
 * With cc_lockdown on, refuse what debugfs refuses under kernel lockdown
 * (integrity mode, as Secure Boot sets it): opening a file whose mode
 * allows more than reading, or opening any file for writing.  So mlx5's
 * 0600 files cannot be opened at all and bnxt_re's 0400 ones can still be
 * read.  The log line is the kernel's, once per refused open.
 */
static int rsim_cc_open(struct inode *inode, struct file *file)
{
	struct rsim_cnt_file *cf = inode->i_private;

	if (READ_ONCE(cf->rsim->cc_lockdown) &&
	    ((inode->i_mode & 07777 & ~0444) || (file->f_mode & FMODE_WRITE))) {
		pr_notice("Lockdown: %s: debugfs access is restricted; see man kernel_lockdown.7\n",
			  current->comm);
		return -EPERM;
	}
	return simple_open(inode, file);
}

static const struct file_operations rsim_cc_fops = {
	.owner = THIS_MODULE,
	.open = rsim_cc_open,
	.read = rsim_cc_read,
	.write = rsim_cc_write,
	.llseek = default_llseek,
};

/*
 * The top directory of the real driver for @t, referenced: the existing
 * one, or else one created (and owned) by this module.  NULL if there is
 * none and none can be created.
 */
static struct dentry *rsim_drv_dir_get(const struct rsim_dev *rsim,
				       const struct rsim_cc_table *t)
{
	struct dentry *top;

	top = debugfs_lookup(t->drv, NULL);
	if (top) {
		if (d_is_dir(top))
			return top;
		dput(top);
		return NULL;
	}
	if (rsim_drv_dirs[rsim->pers])
		return NULL;	/* ours, removed by someone else */
	top = debugfs_create_dir(t->drv, NULL);
	if (IS_ERR(top))
		return NULL;
	rsim_drv_dirs[rsim->pers] = top;
	return dget(top);
}

/*
 * <drv>/<bus-info>/<dir>, a symlink to this device's <dir>, where the
 * user-space backends of the real driver look for it.
 */
static void rsim_cc_link(struct rsim_dev *rsim, const struct rsim_cc_table *t)
{
	struct dentry *top, *dir;
	char target[64];

	top = rsim_drv_dir_get(rsim, t);
	if (!top) {
		dev_warn(&rsim->dev, "no debugfs directory %s/, so no %s/%s/%s\n",
			 t->drv, t->drv, dev_name(&rsim->dev), t->dir);
		return;
	}
	dir = debugfs_create_dir(dev_name(&rsim->dev), top);
	snprintf(target, sizeof(target), "../../%s/%u/%s", RSIM_DRV_NAME,
		 rsim->id, t->dir);
	debugfs_create_symlink(t->dir, dir, target);
	dput(top);
}

static void rsim_cc_unlink(struct rsim_dev *rsim)
{
	const struct rsim_cc_table *t = &rsim_cc_tables[rsim->pers];
	struct dentry *top;

	if (!t->num)
		return;
	/* gone if the real driver removed its directory in between */
	top = debugfs_lookup(t->drv, NULL);
	if (!top)
		return;
	debugfs_lookup_and_remove(dev_name(&rsim->dev), top);
	dput(top);
}

static void rsim_cc_init(struct rsim_dev *rsim)
{
	const struct rsim_cc_table *t = &rsim_cc_tables[rsim->pers];
	struct dentry *dir;
	unsigned int i;

	if (!t->num)
		return;
	debugfs_create_bool("cc_lockdown", 0600, rsim->ddir,
			    &rsim->cc_lockdown);
	dir = debugfs_create_dir(t->dir, rsim->ddir);
	for (i = 0; i < t->num; i++) {
		rsim->cc[i] = t->params[i].def;
		rsim->cc_files[i].rsim = rsim;
		rsim->cc_files[i].idx = i;
		debugfs_create_file(t->params[i].name, t->mode, dir,
				    &rsim->cc_files[i], &rsim_cc_fops);
	}
	rsim_cc_link(rsim, t);
}

/* Per device ----------------------------------------------------------- */

/* Called under the bus's device list lock, as is rsim_dev_debugfs_exit(). */
int rsim_dev_debugfs_init(struct rsim_dev *rsim)
{
	struct dentry *cdir;
	char name[16];
	unsigned int i;

	INIT_DELAYED_WORK(&rsim->grow_work, rsim_grow_work);
	snprintf(name, sizeof(name), "%u", rsim->id);
	rsim->ddir = debugfs_create_dir(name, rsim_ddir);
	if (IS_ERR(rsim->ddir))
		return PTR_ERR(rsim->ddir);

	debugfs_create_file("personality", 0400, rsim->ddir, rsim,
			    &rsim_personality_fops);
	debugfs_create_file_unsafe("fail_next_set", 0600, rsim->ddir, rsim,
				   &rsim_fail_fops);
	debugfs_create_file_unsafe("set_count", 0400, rsim->ddir, rsim,
				   &rsim_set_count_fops);
	debugfs_create_file("fail_set", 0600, rsim->ddir, rsim,
			    &rsim_fail_set_fops);
	debugfs_create_file_unsafe("ignore_set", 0600, rsim->ddir, rsim,
				   &rsim_ignore_fops);
	debugfs_create_bool("pfc_link_flap", 0600, rsim->ddir,
			    &rsim->pfc_link_flap);
	debugfs_create_file_unsafe("link_flaps", 0400, rsim->ddir, rsim,
				   &rsim_flaps_fops);
	debugfs_create_u32("hw_refresh_ms", 0600, rsim->ddir,
			   &rsim->hw_refresh_ms);
	debugfs_create_u32("hw_stats_delay_ms", 0600, rsim->ddir,
			   &rsim->hw_delay_ms);
	if (rsim->pers == RSIM_BNXT_RE) {
		debugfs_create_u8("max_tc", 0600, rsim->ddir, &rsim->max_tc);
		debugfs_create_u8("max_lltc", 0600, rsim->ddir,
				  &rsim->max_lltc);
	}
	debugfs_create_file("grow", 0600, rsim->ddir, rsim, &rsim_grow_fops);
	debugfs_create_file("pfc_storm", 0200, rsim->ddir, rsim,
			    &rsim_storm_fops);

	cdir = debugfs_create_dir("counters", rsim->ddir);
	for (i = 0; i < rsim->num_cnt; i++) {
		rsim->cnt_files[i].rsim = rsim;
		rsim->cnt_files[i].idx = i;
		debugfs_create_file(rsim_cnt_name(rsim, i), 0600, cdir,
				    &rsim->cnt_files[i], &rsim_cnt_fops);
	}

	rsim_cc_init(rsim);
	return 0;
}

void rsim_dev_debugfs_exit(struct rsim_dev *rsim)
{
	rsim_cc_unlink(rsim);
	debugfs_remove_recursive(rsim->ddir);
	cancel_delayed_work_sync(&rsim->grow_work);
}

int rsim_debugfs_init(void)
{
	rsim_ddir = debugfs_create_dir(RSIM_DRV_NAME, NULL);
	return PTR_ERR_OR_ZERO(rsim_ddir);
}

/* After the last device is gone. */
void rsim_debugfs_exit(void)
{
	unsigned int i;

	for (i = 0; i < RSIM_NUM_PERSONALITIES; i++) {
		debugfs_remove(rsim_drv_dirs[i]);
		rsim_drv_dirs[i] = NULL;
	}
	debugfs_remove_recursive(rsim_ddir);
}
