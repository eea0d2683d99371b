// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input: every file under
 * /sys/kernel/debug/fwq/ and every writable fwq.ko parameter rejects
 * malformed writes with -EINVAL and changes nothing. The files are found
 * by walking the directories, so new files are covered without editing
 * this test.
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/stat.h>
#include <linux/string.h>

#include "suites.h"
#include "util.h"

#define DF_ROOT		"/sys/kernel/debug/fwq"
#define DF_PARAMS	"/sys/module/fwq/parameters"
#define DF_BUF		16384
#define DF_MAX_FILES	256
#define DF_DEPTH	4

/* Inputs no fwq file may accept. None starts with a kstrtobool letter. */
static const char * const df_bad[] = {
	"?fwq-bad-input\n",
	"=,;\n",
	"\x01\x02\x7f\n",
	"9x9\n",
};

struct df_name {
	struct list_head node;
	unsigned int type;
	char path[];
};

struct df_walk {
	struct dir_context ctx;
	const char *dir;
	struct list_head *out;
	int count;
};

static bool df_actor(struct dir_context *ctx, const char *name, int len,
		     loff_t off, u64 ino, unsigned int type)
{
	struct df_walk *w = container_of(ctx, struct df_walk, ctx);
	struct df_name *n;
	size_t sz;

	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (w->count >= DF_MAX_FILES)
		return false;
	sz = strlen(w->dir) + 1 + len + 1;
	n = kmalloc(sizeof(*n) + sz, GFP_KERNEL);
	if (!n)
		return false;
	snprintf(n->path, sz, "%s/%.*s", w->dir, len, name);
	n->type = type;
	list_add_tail(&n->node, w->out);
	w->count++;
	return true;
}

/* List the regular files under @dir (recursively) into @files. */
static int df_list(const char *dir, struct list_head *files, int depth)
{
	struct df_walk w = { .ctx.actor = df_actor, .dir = dir };
	struct df_name *n, *tmp;
	LIST_HEAD(entries);
	struct file *f;
	int ret;

	w.out = &entries;
	f = filp_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = iterate_dir(f, &w.ctx);
	filp_close(f, NULL);

	list_for_each_entry_safe(n, tmp, &entries, node) {
		list_del(&n->node);
		if (n->type == DT_DIR && depth < DF_DEPTH) {
			df_list(n->path, files, depth + 1);
			kfree(n);
		} else if (n->type == DT_REG) {
			list_add_tail(&n->node, files);
		} else {
			kfree(n);
		}
	}
	return ret;
}

static void df_free(struct list_head *files)
{
	struct df_name *n, *tmp;

	list_for_each_entry_safe(n, tmp, files, node) {
		list_del(&n->node);
		kfree(n);
	}
}

/*
 * Write every bad input to @path; each must fail with -EINVAL. If the file
 * is writable (a read-only file has no handler a write could reach, and
 * its content may be live state) and its content is stable (two reads
 * agree), it must be unchanged after. Returns the number of violations.
 */
static int df_check_file(struct fwq_ktap_test *t, const char *path,
			 bool writable, char *a, char *b, char *c)
{
	ssize_t la, lb, lc;
	bool stable;
	int i, bad = 0;

	la = fwqt_file_read(path, a, DF_BUF);
	lb = fwqt_file_read(path, b, DF_BUF);
	stable = writable && la >= 0 && la == lb && !memcmp(a, b, la);

	for (i = 0; i < ARRAY_SIZE(df_bad); i++) {
		ssize_t ret = fwqt_file_write(path, df_bad[i],
					      strlen(df_bad[i]));

		if (ret != -EINVAL) {
			fwq_ktap_diag("%s: bad write #%d returned %zd, not -EINVAL",
				      path, i, ret);
			bad++;
		}
	}
	if (stable) {
		lc = fwqt_file_read(path, c, DF_BUF);
		if (lc != la || memcmp(a, c, la)) {
			fwq_ktap_diag("%s: content changed after rejected writes",
				      path);
			bad++;
		}
	}
	return bad;
}

static bool df_writable(const char *path)
{
	struct kstat st;
	struct path p;
	int ret;

	if (kern_path(path, 0, &p))
		return false;
	ret = vfs_getattr(&p, &st, STATX_MODE, AT_STATX_SYNC_AS_STAT);
	path_put(&p);
	return !ret && (st.mode & 0222);
}

static void df_check_tree(struct fwq_ktap_test *t, const char *root,
			  bool writable_only)
{
	char *a, *b, *c;
	struct df_name *n;
	LIST_HEAD(files);
	int ret, nr = 0, bad = 0;

	a = kmalloc(DF_BUF, GFP_KERNEL);
	b = kmalloc(DF_BUF, GFP_KERNEL);
	c = kmalloc(DF_BUF, GFP_KERNEL);
	if (!FWQ_EXPECT(t, a && b && c))
		goto out;
	ret = df_list(root, &files, 0);
	if (!FWQ_EXPECT(t, ret >= 0)) {
		fwq_ktap_diag("cannot list %s: %d", root, ret);
		goto out;
	}
	list_for_each_entry(n, &files, node) {
		bool writable = df_writable(n->path);

		if (writable_only && !writable)
			continue;
		nr++;
		bad += df_check_file(t, n->path, writable, a, b, c);
	}
	fwq_ktap_diag("%s: %d files checked, %d violations", root, nr, bad);
	FWQ_EXPECT(t, nr > 0);
	FWQ_EXPECT_EQ(t, bad, 0);
out:
	df_free(&files);
	kfree(a);
	kfree(b);
	kfree(c);
}

/*
 * Invariant: every file under /sys/kernel/debug/fwq (read-only ones
 * included) answers a malformed write with -EINVAL and its content is
 * unchanged afterwards.
 */
static void test_debugfs_bad_writes(struct fwq_ktap_test *t)
{
	df_check_tree(t, DF_ROOT, false);
}

/*
 * Invariant: every writable fwq.ko module parameter answers a malformed
 * value with -EINVAL and keeps its value.
 */
static void test_params_bad_writes(struct fwq_ktap_test *t)
{
	df_check_tree(t, DF_PARAMS, true);
}

FWQ_KTAP_SUITE(fwq_suite_debugfs, "fwq_debugfs",
	       { .name = "debugfs_rejects_bad_writes",
		 .run = test_debugfs_bad_writes },
	       { .name = "params_reject_bad_writes",
		 .run = test_params_bad_writes });
