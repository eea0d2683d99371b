// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers for the fwq selftests; see util.h.
 */
#define pr_fmt(fmt) fmt

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "util.h"

/*
 * Decode @p for @axes. Axes vary in the order wake, kicked, flush; the last
 * present axis varies fastest.
 */
void fwqt_variant_of(unsigned int axes, unsigned long p, struct fwq_variant *v)
{
	fwq_default_variant(v);
	if (axes & FWQT_AX_FLUSH) {
		v->flush = p % FWQ_FLUSH_NR;
		p /= FWQ_FLUSH_NR;
	}
	if (axes & FWQT_AX_KICKED) {
		v->kicked = p % FWQ_KICKED_NR;
		p /= FWQ_KICKED_NR;
	}
	if (axes & FWQT_AX_WAKE)
		v->wake = p % FWQ_WAKE_NR;
}

static void fwqt_name(unsigned int axes, unsigned long p, char *buf,
		      size_t len)
{
	struct fwq_variant v = {};
	const char *sep = "";
	int n = 0;

	/* Decode without the module defaults: names must not depend on them. */
	if (axes & FWQT_AX_FLUSH) {
		v.flush = p % FWQ_FLUSH_NR;
		p /= FWQ_FLUSH_NR;
	}
	if (axes & FWQT_AX_KICKED) {
		v.kicked = p % FWQ_KICKED_NR;
		p /= FWQ_KICKED_NR;
	}
	if (axes & FWQT_AX_WAKE)
		v.wake = p % FWQ_WAKE_NR;

	if (axes & FWQT_AX_WAKE) {
		n += scnprintf(buf + n, len - n, "wake=%s",
			       fwq_wake_name(v.wake));
		sep = ",";
	}
	if (axes & FWQT_AX_KICKED) {
		n += scnprintf(buf + n, len - n, "%skicked=%s", sep,
			       fwq_kicked_name(v.kicked));
		sep = ",";
	}
	if (axes & FWQT_AX_FLUSH)
		scnprintf(buf + n, len - n, "%sflush=%s", sep,
			  fwq_flush_name(v.flush));
}

void fwqt_name_W(unsigned long p, char *buf, size_t len)
{
	fwqt_name(FWQT_AXES_W, p, buf, len);
}

void fwqt_name_WK(unsigned long p, char *buf, size_t len)
{
	fwqt_name(FWQT_AXES_WK, p, buf, len);
}

void fwqt_name_F(unsigned long p, char *buf, size_t len)
{
	fwqt_name(FWQT_AXES_F, p, buf, len);
}

void fwqt_name_WF(unsigned long p, char *buf, size_t len)
{
	fwqt_name(FWQT_AXES_WF, p, buf, len);
}

void fwqt_name_WKF(unsigned long p, char *buf, size_t len)
{
	fwqt_name(FWQT_AXES_WKF, p, buf, len);
}

/* The axes that vary: FWQT_AX_* bits, set by fwqt_set_axes(). */
unsigned int fwqt_axes = FWQT_AX_WAKE | FWQT_AX_KICKED | FWQT_AX_FLUSH;

int fwqt_set_axes(const char *s)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} words[] = {
		{ "wake", FWQT_AX_WAKE },
		{ "kicked", FWQT_AX_KICKED },
		{ "flush", FWQT_AX_FLUSH },
		{ "none", 0 },
	};
	unsigned int axes = 0, i;
	const char *w = s;

	while (*w) {
		size_t len = strcspn(w, ",");

		for (i = 0; i < ARRAY_SIZE(words); i++)
			if (strlen(words[i].name) == len &&
			    !strncmp(w, words[i].name, len))
				break;
		if (i == ARRAY_SIZE(words))
			return -EINVAL;
		axes |= words[i].bit;
		w += len;
		if (*w == ',' && *++w == '\0')
			return -EINVAL;
	}
	if (w == s)
		return -EINVAL;
	fwqt_axes = axes;
	return 0;
}

/*
 * Is parameter @p of axis set @axes run? Only if each of its axes that
 * does not vary holds the default.
 */
static bool fwqt_wanted(unsigned int axes, unsigned long p)
{
	struct fwq_variant v, def;
	unsigned int fixed = axes & ~fwqt_axes;

	fwq_default_variant(&def);
	fwqt_variant_of(axes, p, &v);
	if ((fixed & FWQT_AX_WAKE) && v.wake != def.wake)
		return false;
	if ((fixed & FWQT_AX_KICKED) && v.kicked != def.kicked)
		return false;
	if ((fixed & FWQT_AX_FLUSH) && v.flush != def.flush)
		return false;
	return true;
}

bool fwqt_wanted_W(unsigned long p)
{
	return fwqt_wanted(FWQT_AXES_W, p);
}

bool fwqt_wanted_WK(unsigned long p)
{
	return fwqt_wanted(FWQT_AXES_WK, p);
}

bool fwqt_wanted_F(unsigned long p)
{
	return fwqt_wanted(FWQT_AXES_F, p);
}

bool fwqt_wanted_WF(unsigned long p)
{
	return fwqt_wanted(FWQT_AXES_WF, p);
}

bool fwqt_wanted_WKF(unsigned long p)
{
	return fwqt_wanted(FWQT_AXES_WKF, p);
}

void __fwqt_variant(struct fwq_ktap_test *t, struct fwq_variant *v,
		    unsigned int axes)
{
	fwqt_variant_of(axes, t->param, v);
	fwq_ktap_diag("%s: variant wake=%s kicked_list=%s flush=%s", t->name,
		      fwq_wake_name(v->wake), fwq_kicked_name(v->kicked),
		      fwq_flush_name(v->flush));
}

bool fwqt_wait(struct fwq_ktap_test *t, struct completion *c, const char *what)
{
	if (wait_for_completion_timeout(c, msecs_to_jiffies(FWQT_HANG_MS)))
		return true;
	fwq_ktap_diag("%s: hang guard: %s did not happen within %d ms",
		      t->name, what, FWQT_HANG_MS);
	FWQ_EXPECT(t, !"hang guard tripped");
	return false;
}

bool fwqt_wait_atomic(struct fwq_ktap_test *t, atomic_t *a, int target,
		      const char *what)
{
	unsigned long end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);

	while (atomic_read(a) < target) {
		if (time_after(jiffies, end)) {
			fwq_ktap_diag("%s: hang guard: %s: %d of %d within %d ms",
				      t->name, what, atomic_read(a), target,
				      FWQT_HANG_MS);
			FWQ_EXPECT(t, !"hang guard tripped");
			return false;
		}
		usleep_range(500, 1000);
	}
	return true;
}

static int fwqt_thread_fn(void *data)
{
	struct fwqt_thread *th = data;

	th->fn(th->arg);
	complete(&th->done);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

int fwqt_thread_start(struct fwqt_thread *th, void (*fn)(void *), void *arg,
		      int cpu, const char *name)
{
	struct task_struct *task;

	init_completion(&th->done);
	th->fn = fn;
	th->arg = arg;
	th->task = NULL;
	task = kthread_create(fwqt_thread_fn, th, "fwqt/%s", name);
	if (IS_ERR(task))
		return PTR_ERR(task);
	if (cpu >= 0)
		kthread_bind(task, cpu);
	get_task_struct(task);
	th->task = task;
	wake_up_process(task);
	return 0;
}

bool fwqt_thread_join(struct fwq_ktap_test *t, struct fwqt_thread *th,
		      void (*unstick)(void *), void *unstick_arg,
		      const char *what)
{
	bool ok = true;

	if (!th->task)
		return true;
	if (!wait_for_completion_timeout(&th->done,
					 msecs_to_jiffies(FWQT_HANG_MS))) {
		fwq_ktap_diag("%s: hang guard: %s did not return within %d ms",
			      t->name, what, FWQT_HANG_MS);
		FWQ_EXPECT(t, !"hang guard tripped");
		ok = false;
		if (unstick)
			unstick(unstick_arg);
		/*
		 * The thread runs our code: it must finish before we go on,
		 * or it would return into a freed module. If fwq never lets
		 * it return, this is where the run ends (hung task).
		 */
		if (!wait_for_completion_timeout(&th->done,
						 msecs_to_jiffies(FWQT_HANG_MS)))
			fwq_ktap_diag("%s: %s is stuck inside fwq; waiting for it without bound",
				      t->name, what);
		wait_for_completion(&th->done);
	}
	kthread_stop(th->task);
	put_task_struct(th->task);
	th->task = NULL;
	return ok;
}

void fwqt_flush_wq_fn(void *wq)
{
	fwq_flush_workqueue(wq);
}

/*
 * kernel_read/kernel_write need ->read_iter/->write_iter; debugfs files
 * only have ->read/->write, which take user pointers. For those, bounce
 * through an anonymous mapping of the calling process (the module loader
 * runs the suites in insmod's context, so there is one) and call the
 * operation as vfs_read/vfs_write would.
 */
static ssize_t fwqt_user_io(struct file *f, char *kbuf, size_t len,
			    loff_t *pos, bool write)
{
	size_t maplen = PAGE_ALIGN(max_t(size_t, len, 1));
	unsigned long ubuf;
	ssize_t n;

	if (!current->mm)
		return -EOPNOTSUPP;
	ubuf = vm_mmap(NULL, 0, maplen, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(ubuf))
		return (ssize_t)ubuf;
	if (write) {
		if (copy_to_user((void __user *)ubuf, kbuf, len))
			n = -EFAULT;
		else
			n = f->f_op->write(f, (const char __user *)ubuf, len,
					   pos);
	} else {
		n = f->f_op->read(f, (char __user *)ubuf, len, pos);
		if (n > 0 && copy_from_user(kbuf, (void __user *)ubuf, n))
			n = -EFAULT;
	}
	vm_munmap(ubuf, maplen);
	return n;
}

static ssize_t fwqt_read(struct file *f, char *buf, size_t len, loff_t *pos)
{
	if (f->f_op->read_iter)
		return kernel_read(f, buf, len, pos);
	if (f->f_op->read)
		return fwqt_user_io(f, buf, len, pos, false);
	return -EINVAL;
}

ssize_t fwqt_file_read(const char *path, char *buf, size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n, total = 0;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	while (total < (ssize_t)len - 1) {
		n = fwqt_read(f, buf + total, len - 1 - total, &pos);
		if (n <= 0) {
			if (n < 0 && !total)
				total = n;
			break;
		}
		total += n;
	}
	filp_close(f, NULL);
	if (total >= 0)
		buf[total] = '\0';
	return total;
}

ssize_t fwqt_file_write(const char *path, const char *val, size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	if (f->f_op->write_iter)
		n = kernel_write(f, val, len, &pos);
	else if (f->f_op->write)
		n = fwqt_user_io(f, (char *)val, len, &pos, true);
	else
		n = -EINVAL;	/* as vfs_write for a file without ->write */
	filp_close(f, NULL);
	return n;
}

int fwqt_param_read(const char *name, char *buf, size_t len)
{
	char path[96];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/module/fwq/parameters/%s", name);
	n = fwqt_file_read(path, buf, len);
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n;
}

int fwqt_param_write(const char *name, const char *val)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/module/fwq/parameters/%s", name);
	return fwqt_file_write(path, val, strlen(val));
}

bool fwqt_param_exists(const char *name)
{
	char buf[64];

	return fwqt_param_read(name, buf, sizeof(buf)) >= 0;
}

bool fwqt_param_save(struct fwq_ktap_test *t, const char *name,
		     char *old, size_t len, const char *reason)
{
	if (fwqt_param_read(name, old, len) >= 0)
		return true;
	FWQ_KTAP_SKIP(t, reason);
	return false;
}

void *fwqt_starve_items(struct fwq_ktap_test *t, char *old, size_t len,
			struct fwq_variant *v, size_t n, size_t size)
{
	void *items;

	if (!fwqt_param_save(t, FWQT_NO_CREATE_KNOB, old, len,
			     "fwq.ko has no " FWQT_NO_CREATE_KNOB " parameter"))
		return NULL;
	fwqt_variant(t, v, W);
	items = kcalloc(n, size, GFP_KERNEL);
	FWQ_EXPECT(t, items);
	return items;
}

void fwqt_param_restore(const char *name, const char *old)
{
	int ret = fwqt_param_write(name, old);

	if (ret < 0)
		pr_err("fwq_test: cannot restore %s=%s: %d\n", name, old, ret);
}

int fwqt_count_workers(const char *prefix, int nice)
{
	struct task_struct *p;
	size_t plen = strlen(prefix);
	int n = 0;

	rcu_read_lock();
	for_each_process(p) {
		if (!(p->flags & PF_KTHREAD) || (p->flags & PF_EXITING))
			continue;
		if (strncmp(p->comm, prefix, plen))
			continue;
		if (nice != FWQT_ANY_NICE && task_nice(p) != nice)
			continue;
		n++;
	}
	rcu_read_unlock();
	return n;
}

long long fwqt_debug_counter(const char *name)
{
	const size_t len = 1024;
	size_t nlen = strlen(name);
	long long v = -1;
	const char *p;
	char *buf;
	ssize_t n;

	buf = kzalloc(len, GFP_KERNEL);
	if (!buf)
		return -1;
	n = fwqt_file_read("/sys/kernel/debug/fwq/debug_counters", buf,
			   len - 1);
	for (p = buf; n > 0 && (p = strstr(p, name)); p += nlen) {
		if ((p == buf || p[-1] == '\n') && p[nlen] == ' ' &&
		    sscanf(p + nlen + 1, "%lld", &v) == 1)
			break;
	}
	kfree(buf);
	return v;
}

const char * const fwqt_obj_names[FWQT_NR_OBJ] = {
	"workqueues", "pwqs", "unbound_pools", "rescuers",
};

#define FWQT_OBJ_BUF	1024

/* The value of "@key N" at the start of a line of @buf, or -1. */
static long long fwqt_line_value(const char *buf, const char *key)
{
	size_t len = strlen(key);
	const char *p = buf;
	long long v;

	while ((p = strstr(p, key))) {
		if ((p == buf || p[-1] == '\n') && p[len] == ' ' &&
		    sscanf(p + len + 1, "%lld", &v) == 1)
			return v;
		p += len;
	}
	return -1;
}

bool fwqt_objects(long long *v)
{
	char *buf = kmalloc(FWQT_OBJ_BUF, GFP_KERNEL);
	bool ok = false;
	int i;

	if (!buf)
		return false;
	if (fwqt_file_read("/sys/kernel/debug/fwq/objects", buf,
			   FWQT_OBJ_BUF) <= 0)
		goto out;
	for (i = 0; i < FWQT_NR_OBJ; i++) {
		v[i] = fwqt_line_value(buf, fwqt_obj_names[i]);
		if (v[i] < 0)
			goto out;
	}
	ok = true;
out:
	kfree(buf);
	return ok;
}

bool fwqt_objects_quiet(long long *v)
{
	fwqt_release_hold(false);
	rcu_barrier();
	return fwqt_objects(v);
}

bool fwqt_objects_settle(long long *now, const long long *want)
{
	unsigned long end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);

	for (;;) {
		if (!fwqt_objects(now))
			return false;
		if (!memcmp(now, want, sizeof(*now) * FWQT_NR_OBJ))
			return true;
		if (!time_before(jiffies, end))
			return false;
		msleep(20);
	}
}

void fwqt_objects_dump(void)
{
	const size_t len = 16384;
	char *buf = kvmalloc(len, GFP_KERNEL), *line, *p;

	if (!buf)
		return;
	if (fwqt_file_read("/sys/kernel/debug/fwq/object_list", buf,
			   len) > 0) {
		p = buf;
		while ((line = strsep(&p, "\n")))
			if (*line)
				fwq_ktap_diag("%s", line);
	}
	kvfree(buf);
}

bool fwqt_release_hold(bool hold)
{
	return fwqt_param_write("dbg_release_hold", hold ? "1" : "0") > 0;
}

bool fwqt_current_is_rescuer(void)
{
	return !strncmp(current->comm, "fwq/R-", 6);
}

void fwqt_done_item_fn(struct fwq_work *work)
{
	struct fwqt_done_item *it = container_of(work, struct fwqt_done_item,
						 work);

	atomic_inc(&it->runs);
	complete(&it->done);
}

void fwqt_done_item_init(struct fwqt_done_item *it)
{
	FWQ_INIT_WORK(&it->work, fwqt_done_item_fn);
	fwqt_done_item_reset(it);
}

void fwqt_done_ditem_fn(struct fwq_work *work)
{
	struct fwqt_done_ditem *d = container_of(to_fwq_delayed_work(work),
						 struct fwqt_done_ditem, dw);

	atomic_inc(&d->runs);
	complete(&d->done);
}

void fwqt_blocker_init(struct fwqt_blocker *b)
{
	FWQ_INIT_WORK(&b->work, fwqt_blocker_fn);
	init_completion(&b->gate);
	init_completion(&b->started);
	atomic_set(&b->runs, 0);
	atomic_set(&b->done, 0);
	b->cpu = -1;
}

void fwqt_blocker_fn(struct fwq_work *work)
{
	struct fwqt_blocker *b = container_of(work, struct fwqt_blocker, work);

	b->cpu = raw_smp_processor_id();
	atomic_inc(&b->runs);
	complete_all(&b->started);
	wait_for_completion(&b->gate);
	/* the item's effects are visible before done counts it */
	smp_mb__before_atomic();
	atomic_inc(&b->done);
}

static void fwqt_hopper_fn(struct fwq_work *work)
{
	struct fwqt_hopper *h = container_of(work, struct fwqt_hopper, work);

	fwqt_atomic_max(&h->max_running, atomic_inc_return(&h->running));
	atomic_inc(&h->runs);
	fwqt_spin_us(h->spin_us);
	if (!READ_ONCE(h->stop) &&
	    (h->requeue_pct >= 100 ||
	     get_random_u32_below(100) < h->requeue_pct)) {
		if (fwq_queue_work_on(fwqt_random_online_cpu(), h->wq,
				      &h->work))
			atomic_inc(&h->requeued);
		else
			atomic_inc(&h->requeue_failed);
	}
	fwqt_spin_us(h->spin_after_us);
	atomic_dec(&h->running);
}

void fwqt_hopper_init(struct fwqt_hopper *h, struct fwq_workqueue *wq,
		      unsigned int spin_us, unsigned int spin_after_us,
		      unsigned int requeue_pct)
{
	FWQ_INIT_WORK(&h->work, fwqt_hopper_fn);
	h->wq = wq;
	h->spin_us = spin_us;
	h->spin_after_us = spin_after_us;
	h->requeue_pct = requeue_pct;
	atomic_set(&h->runs, 0);
	atomic_set(&h->running, 0);
	atomic_set(&h->max_running, 0);
	atomic_set(&h->requeued, 0);
	atomic_set(&h->requeue_failed, 0);
	h->stop = false;
}

static void fwqt_call_fn(void *p)
{
	struct fwqt_call *c = p;

	atomic_set(&c->entered, 1);
	c->ret = c->fn(c->work);
}

int fwqt_call_start(struct fwq_ktap_test *t, struct fwqt_call *c,
		    bool (*fn)(struct fwq_work *), struct fwq_work *work,
		    struct fwqt_blocker *gate, const char *name)
{
	int ret;

	c->fn = fn;
	c->work = work;
	c->gate = gate;
	atomic_set(&c->entered, 0);
	c->ret = false;
	ret = fwqt_thread_start(&c->th, fwqt_call_fn, c, -1, name);
	if (ret) {
		FWQ_EXPECT(t, !"kthread");
		fwqt_blocker_open(gate);
	}
	return ret;
}

/* fwqt_thread_join() unstick callback: let the item held by @p go */
static void fwqt_call_unstick(void *p)
{
	fwqt_blocker_open(p);
}

bool fwqt_call_finish(struct fwq_ktap_test *t, struct fwqt_call *c,
		      const char *what)
{
	fwqt_blocker_open(c->gate);
	return fwqt_thread_join(t, &c->th, fwqt_call_unstick, c->gate, what);
}

struct fwq_workqueue *__fwqt_case_wq(struct fwq_ktap_test *t,
				     unsigned int axes, unsigned int flags,
				     int max_active)
{
	struct fwq_variant v;

	__fwqt_variant(t, &v, axes);
	return fwqt_alloc_wq(t, &v, flags, max_active);
}

void *__fwqt_case_wq_obj(struct fwq_ktap_test *t, unsigned int axes,
			 unsigned int flags, int max_active, size_t size,
			 struct fwq_workqueue **wqp)
{
	void *obj;

	*wqp = NULL;
	obj = kzalloc(size, GFP_KERNEL);
	if (!FWQ_EXPECT(t, obj))
		return NULL;
	*wqp = __fwqt_case_wq(t, axes, flags, max_active);
	if (!*wqp) {
		kfree(obj);
		return NULL;
	}
	return obj;
}

struct fwq_workqueue *
fwqt_alloc_unbound_mask(struct fwq_ktap_test *t, const struct fwq_variant *v,
			unsigned int flags, int max_active,
			const struct cpumask *mask, enum fwq_affn_scope scope,
			bool strict, int nice)
{
	struct fwq_workqueue_attrs *attrs;
	struct fwq_workqueue *wq;
	int ret;

	wq = fwqt_alloc_wq(t, v, FWQ_UNBOUND | flags, max_active);
	if (!wq)
		return NULL;
	attrs = fwq_alloc_workqueue_attrs();
	if (!FWQ_EXPECT(t, attrs)) {
		fwq_destroy_workqueue(wq);
		return NULL;
	}
	attrs->nice = nice;
	attrs->affn_scope = scope;
	attrs->affn_strict = strict;
	attrs->variant = *v;
	cpumask_copy(attrs->cpumask, mask);
	ret = fwq_apply_workqueue_attrs(wq, attrs);
	fwq_free_workqueue_attrs(attrs);
	if (!FWQ_EXPECT_EQ(t, ret, 0)) {
		fwq_destroy_workqueue(wq);
		return NULL;
	}
	return wq;
}

void fwqt_run_on(struct fwq_ktap_test *t, const struct fwq_variant *v,
		 unsigned int flags, int max_active,
		 void (*body)(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
			      const char *kind),
		 const char *kind)
{
	struct fwq_workqueue *wq;

	wq = fwqt_alloc_wq(t, v, flags, max_active);
	if (!wq)
		return;
	body(t, wq, kind);
	fwq_destroy_workqueue(wq);
}

void fwqt_run_percpu_unbound(struct fwq_ktap_test *t,
			     const struct fwq_variant *v,
			     enum fwq_affn_scope scope,
			     void (*body)(struct fwq_ktap_test *t,
					  struct fwq_workqueue *wq,
					  const char *kind))
{
	struct fwq_workqueue *wq;
	char kind[32];

	fwqt_run_on(t, v, FWQ_PERCPU, 0, body, "percpu");
	if (scope == FWQ_AFFN_DFL) {
		fwqt_run_on(t, v, FWQ_UNBOUND, 0, body, "unbound");
		return;
	}
	snprintf(kind, sizeof(kind), "unbound,scope=%s",
		 fwq_affn_scope_name(scope));
	wq = fwqt_alloc_unbound(t, v, 0, 0, scope, 0);
	if (wq) {
		body(t, wq, kind);
		fwq_destroy_workqueue(wq);
	}
}

void __fwqt_case_percpu_unbound(struct fwq_ktap_test *t, unsigned int axes,
				enum fwq_affn_scope scope,
				void (*body)(struct fwq_ktap_test *t,
					     struct fwq_workqueue *wq,
					     const char *kind))
{
	struct fwq_variant v;

	__fwqt_variant(t, &v, axes);
	fwqt_run_percpu_unbound(t, &v, scope, body);
}

int fwqt_random_online_cpu(void)
{
	unsigned int n = get_random_u32_below(num_online_cpus());
	int cpu;

	for_each_online_cpu(cpu)
		if (!n--)
			return cpu;
	return raw_smp_processor_id();
}
