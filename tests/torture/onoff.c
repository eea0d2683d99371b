// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_torture: CPU hotplug churn (torture.c's onoff, reimplemented: the
 * torture.ko helpers are not built in the Debian 6.1 kernel) and stutter,
 * the periodic pause that lets workers go idle and be culled.
 */
#define pr_fmt(fmt) "fwq-torture: " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include "torture.h"

static struct task_struct *tt_onoff_task;
static unsigned int tt_onoff_interval_ms;
static unsigned int tt_onoff_holdoff_s;
static u32 tt_onoff_seed;
static struct cpumask tt_offlined;	/* CPUs this module took offline */

/* a random present CPU other than CPU 0, or -1 */
static int tt_random_present_cpu(struct rnd_state *rs)
{
	int n = num_present_cpus() - 1, cpu, i;

	if (n < 1)
		return -1;
	i = tt_rand(rs, n);
	for_each_present_cpu(cpu)
		if (cpu && i-- == 0)
			return cpu;
	return -1;
}

static int tt_onoff_fn(void *arg)
{
	struct rnd_state rs;
	unsigned long holdoff = jiffies + tt_onoff_holdoff_s * HZ;
	int cpu, ret;

	prandom_seed_state(&rs, tt_onoff_seed);
	while (!kthread_should_stop() && time_before(jiffies, holdoff))
		schedule_timeout_interruptible(HZ / 10);

	while (!kthread_should_stop()) {
		unsigned long wait = msecs_to_jiffies(tt_onoff_interval_ms);

		schedule_timeout_interruptible(max(1UL, wait));
		if (kthread_should_stop())
			break;
		/* never CPU 0; any other present CPU (possible may be sparse) */
		cpu = tt_random_present_cpu(&rs);
		if (cpu <= 0)
			continue;
		atomic_inc(&tt_stats.onoff_attempts);
		if (cpu_online(cpu)) {
			ret = remove_cpu(cpu);
			if (!ret)
				cpumask_set_cpu(cpu, &tt_offlined);
		} else {
			ret = add_cpu(cpu);
			if (!ret)
				cpumask_clear_cpu(cpu, &tt_offlined);
		}
		if (!ret)
			atomic_inc(&tt_stats.onoff_ok);
		else if (ret == -EBUSY)
			atomic_inc(&tt_stats.onoff_ebusy);
		else if (tt_verbose)
			pr_info("onoff: CPU %d: %d\n", cpu, ret);
	}
	return 0;
}

/* start @fn as thread @name in *@task; on failure *@task stays NULL */
static int tt_kthread_run(struct task_struct **task, int (*fn)(void *),
			  const char *name)
{
	struct task_struct *t = kthread_run(fn, NULL, "%s", name);

	if (IS_ERR(t))
		return PTR_ERR(t);
	*task = t;
	return 0;
}

int tt_onoff_start(unsigned int interval_ms, unsigned int holdoff_s, u32 seed)
{
	if (!interval_ms)
		return 0;
	if (num_present_cpus() < 2) {
		pr_info("onoff: fewer than 2 CPUs, no hotplug churn\n");
		return 0;
	}
	tt_onoff_interval_ms = interval_ms;
	tt_onoff_holdoff_s = holdoff_s;
	tt_onoff_seed = seed;
	cpumask_clear(&tt_offlined);
	return tt_kthread_run(&tt_onoff_task, tt_onoff_fn, "fwqt_onoff");
}

/* stop the churn and bring back every CPU it took offline */
void tt_onoff_stop(void)
{
	int cpu, ret;

	if (!tt_onoff_task)
		return;
	kthread_stop(tt_onoff_task);
	tt_onoff_task = NULL;
	for_each_cpu(cpu, &tt_offlined) {
		ret = add_cpu(cpu);
		if (ret)
			tt_fail("onoff: cannot bring CPU %d back: %d\n", cpu, ret);
	}
	cpumask_clear(&tt_offlined);
}

/* ---- stutter ----------------------------------------------------------- */

static struct task_struct *tt_stutter_task;
static unsigned int tt_stutter_s;
static bool tt_stutter_paused;
bool tt_stuttered;		/* a pause happened since the stats last looked */

static int tt_stutter_fn(void *arg)
{
	while (!kthread_should_stop()) {
		schedule_timeout_interruptible(tt_stutter_s * HZ);
		if (kthread_should_stop())
			break;
		WRITE_ONCE(tt_stutter_paused, !tt_stutter_paused);
		WRITE_ONCE(tt_stuttered, true);
	}
	WRITE_ONCE(tt_stutter_paused, false);
	return 0;
}

/* Return: true if the caller paused (and should re-check for stop). */
bool tt_stutter_wait(void)
{
	if (!READ_ONCE(tt_stutter_paused))
		return false;
	schedule_timeout_interruptible(HZ / 20);
	return true;
}

int tt_stutter_start(unsigned int stutter_s)
{
	if (!stutter_s)
		return 0;
	tt_stutter_s = stutter_s;
	return tt_kthread_run(&tt_stutter_task, tt_stutter_fn, "fwqt_stutter");
}

void tt_stutter_stop(void)
{
	if (tt_stutter_task)
		kthread_stop(tt_stutter_task);
	tt_stutter_task = NULL;
	WRITE_ONCE(tt_stutter_paused, false);
}
