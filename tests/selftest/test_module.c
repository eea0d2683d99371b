// SPDX-License-Identifier: GPL-2.0
/*
 * Module-level selftests: fwq.ko is loaded, its debugfs root exists and its
 * version matches the one the tests were built with.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/string.h>

#include <fwq/fwq.h>

#include "suites.h"

#ifdef FWQ_HAVE_MODULE_USE
/*
 * Invariant: fwq.ko is live and pinned while a module that uses its symbols
 * is loaded (fwq_test.ko holds a reference through symbol resolution).
 */
static void test_module_loaded(struct fwq_ktap_test *t)
{
	struct module *mod = THIS_MODULE;
	struct module *fwq = NULL;
	struct module_use *use;

	/* source_list of fwq_test lists the modules it depends on */
	list_for_each_entry(use, &mod->target_list, target_list)
		if (!strcmp(use->target->name, "fwq"))
			fwq = use->target;
	FWQ_EXPECT(t, fwq);
	if (fwq) {
		FWQ_EXPECT(t, fwq->state == MODULE_STATE_LIVE);
		FWQ_EXPECT(t, module_refcount(fwq) >= 1);
	}
}
#else
/*
 * Invariant: fwq.ko is live while a module that uses its symbols is
 * loaded. Where struct module_use is private to the kernel (7.3), the
 * dependency list cannot be read: symbol_get() of an fwq export must
 * succeed, which it does only for a live module, and pins it until
 * symbol_put().
 */
static void test_module_loaded(struct fwq_ktap_test *t)
{
	typeof(fwq_version) *version = symbol_get(fwq_version);

	FWQ_EXPECT(t, version);
	if (version) {
		FWQ_EXPECT(t, !strcmp(version(), FWQ_VERSION));
		symbol_put(fwq_version);
	}
}
#endif

/* Invariant: /sys/kernel/debug/fwq/version exists. */
static void test_debugfs_root(struct fwq_ktap_test *t)
{
	struct dentry *root, *ver = NULL;

	root = debugfs_lookup("fwq", NULL);
	FWQ_EXPECT(t, !IS_ERR_OR_NULL(root));
	if (!IS_ERR_OR_NULL(root)) {
		ver = debugfs_lookup("version", root);
		FWQ_EXPECT(t, !IS_ERR_OR_NULL(ver));
	}
	dput(ver);
	dput(root);
}

/* Invariant: fwq.ko and fwq_test.ko were built from the same version. */
static void test_version_matches(struct fwq_ktap_test *t)
{
	FWQ_EXPECT(t, !strcmp(fwq_version(), FWQ_VERSION));
	if (strcmp(fwq_version(), FWQ_VERSION))
		fwq_ktap_diag("fwq.ko %s, fwq_test.ko %s", fwq_version(),
			      FWQ_VERSION);
}

FWQ_KTAP_SUITE(fwq_suite_module, "fwq_module",
	       { .name = "module_loaded", .run = test_module_loaded },
	       { .name = "debugfs_root", .run = test_debugfs_root },
	       { .name = "version_matches", .run = test_version_matches });
