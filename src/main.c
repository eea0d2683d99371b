// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: module init and exit, debugfs root.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include <fwq/fwq.h>

static struct dentry *fwq_debugfs_root;

/**
 * fwq_version - the fwq version string
 *
 * Return: the version fwq.ko was built as.
 */
const char *fwq_version(void)
{
	return FWQ_VERSION;
}
EXPORT_SYMBOL_GPL(fwq_version);

static int fwq_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", fwq_version());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fwq_version);

static int __init fwq_init(void)
{
	fwq_debugfs_root = debugfs_create_dir("fwq", NULL);
	debugfs_create_file("version", 0444, fwq_debugfs_root, NULL,
			    &fwq_version_fops);
	pr_info("fwq %s loaded\n", fwq_version());
	return 0;
}

static void __exit fwq_exit(void)
{
	debugfs_remove_recursive(fwq_debugfs_root);
	pr_info("fwq %s unloaded\n", fwq_version());
}

module_init(fwq_init);
module_exit(fwq_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq: a private clone of the kernel workqueue");
MODULE_VERSION(FWQ_VERSION);
