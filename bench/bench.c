// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_bench: contention benchmarks for fwq variants and the kernel's own
 * workqueue, driven through /sys/kernel/debug/fwq_bench/.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include <fwq/fwq.h>

static struct dentry *bench_root;

static int bench_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", fwq_version());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench_version);

static int __init fwq_bench_init(void)
{
	bench_root = debugfs_create_dir("fwq_bench", NULL);
	debugfs_create_file("version", 0444, bench_root, NULL,
			    &bench_version_fops);
	return 0;
}

static void __exit fwq_bench_exit(void)
{
	debugfs_remove_recursive(bench_root);
}

module_init(fwq_bench_init);
module_exit(fwq_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq benchmarks");
MODULE_VERSION(FWQ_VERSION);
