// SPDX-License-Identifier: GPL-2.0
/* expect: incompatible pointer type */
#include <linux/module.h>
#include <linux/workqueue.h>

/* a module object handed to a core function that wants a kernel item */
static void fn(struct work_struct *w) { }
static DECLARE_WORK(w, fn);

static unsigned int __maybe_unused shim_ct(void)
{
	return work_static(&w);
}
