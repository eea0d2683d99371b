// SPDX-License-Identifier: GPL-2.0
/*
 * fsync_load: the fsync-heavy load of make bench-xfs and make check-xfs,
 * a static program for the busybox guest.
 *
 *   fsync_load -d DIR [-t THREADS] [-s SECONDS] [-f] [-o OPS] [-u] [-m]
 *   fsync_load -d DIR -t THREADS -v
 *
 * Each of THREADS threads appends 4 KiB blocks to its own file,
 * DIR/load.N, and calls fsync() after each, for SECONDS seconds (or OPS
 * appends per thread with -o; -f fdatasync instead), as aim7's
 * sync_disk_rw and fio's fsync=1 do. Every block holds a known pattern
 * (its thread and index in each 8-byte word), which -v reads back and
 * checks.
 *
 * -u: a create/unlink storm instead: each operation creates a file of its
 * own in DIR (u.N.I), writes one 4 KiB block to it, closes and unlinks
 * it, no fsync; XFS inactivates the unlinked inodes on its per-CPU
 * inodegc workqueue, and the log's metadata writeback completes on its
 * buffer workqueue.
 *
 * -m: before the load and after it, execute the marker of the icount
 * plugin (tools/icount/, "xchg %bx,%bx") once on every CPU the program
 * may run on, so that the plugin counts every vCPU's instructions over
 * the load; "marks" in the output is the number of those CPUs.
 *
 * Prints one JSON line: the operations ("fsyncs"), their rate, the p50,
 * p99 and max latency of one operation (append + fsync, or create, write,
 * close and unlink) and their sum over all threads ("sum_us": the
 * threads' time in the operations), in microseconds. Exit 0 ok, 1 an I/O
 * error or a mismatch, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long long u64;

#define BLOCK 4096
#define WORDS (BLOCK / sizeof(u64))
#define MAX_THREADS 1024

struct thread {
	pthread_t tid;
	int nr;
	int fd;
	u64 *lat;		/* ns, one per append + fsync */
	size_t n, cap;
	int err;
};

static const char *dir;
static int nthreads = 4, use_fdatasync, unlink_storm, marks;
static long seconds = 5, ops;
static int stop;		/* set once the time is up */
static pthread_barrier_t barrier;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* the pattern of block @idx of thread @nr, word @w */
static u64 pattern(int nr, u64 idx, unsigned int w)
{
	return ((u64)nr << 48 | idx << 9 | w) ^ 0x9e3779b97f4a7c15ull;
}

static void fill(u64 *buf, int nr, u64 idx)
{
	unsigned int w;

	for (w = 0; w < WORDS; w++)
		buf[w] = pattern(nr, idx, w);
}

/* one create, write, close and unlink of file @idx of thread @t */
static int unlink_op(struct thread *t, u64 *buf, u64 idx)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/u.%d.%llu", dir, t->nr,
		 (unsigned long long)idx);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, buf, BLOCK) != BLOCK) {
		close(fd);
		return -1;
	}
	if (close(fd))
		return -1;
	return unlink(path);
}

static void *writer(void *arg)
{
	struct thread *t = arg;
	u64 buf[WORDS], idx, t0;

	pthread_barrier_wait(&barrier);
	for (idx = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED) &&
	     (!ops || idx < (u64)ops); idx++) {
		fill(buf, t->nr, idx);
		t0 = now_ns();
		if (unlink_storm ? unlink_op(t, buf, idx) :
		    write(t->fd, buf, BLOCK) != BLOCK ||
		    (use_fdatasync ? fdatasync(t->fd) : fsync(t->fd))) {
			t->err = errno ? errno : EIO;
			break;
		}
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 4096;
			u64 *p = realloc(t->lat, cap * sizeof(*p));

			if (!p) {
				t->err = ENOMEM;
				break;
			}
			t->lat = p;
			t->cap = cap;
		}
		t->lat[t->n++] = now_ns() - t0;
	}
	return NULL;
}

/*
 * The icount plugin's marker, once on every CPU this task may run on.
 * Return: the CPUs marked.
 */
static int mark_all_cpus(void)
{
	cpu_set_t all, one;
	int cpu, n = 0;

	if (!marks || sched_getaffinity(0, sizeof(all), &all))
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
		n++;
	}
	sched_setaffinity(0, sizeof(all), &all);
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int verify(void)
{
	u64 buf[WORDS], idx, bytes = 0;
	char path[4096];
	unsigned int w;
	int nr, fd, bad = 0;
	ssize_t r;

	for (nr = 0; nr < nthreads; nr++) {
		snprintf(path, sizeof(path), "%s/load.%d", dir, nr);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "fsync_load: %s: %s\n", path, strerror(errno));
			return 1;
		}
		for (idx = 0; (r = read(fd, buf, BLOCK)) > 0; idx++) {
			if (r != BLOCK) {
				fprintf(stderr, "fsync_load: %s: short block %llu (%zd bytes)\n",
					path, (unsigned long long)idx, r);
				bad++;
				break;
			}
			for (w = 0; w < WORDS; w++) {
				if (buf[w] != pattern(nr, idx, w)) {
					fprintf(stderr,
						"fsync_load: %s: block %llu word %u differs\n",
						path, (unsigned long long)idx, w);
					bad++;
					break;
				}
			}
			bytes += r;
		}
		if (r < 0) {
			fprintf(stderr, "fsync_load: %s: %s\n", path, strerror(errno));
			bad++;
		}
		close(fd);
	}
	printf("{\"verified_bytes\":%llu,\"files\":%d,\"bad\":%d}\n",
	       (unsigned long long)bytes, nthreads, bad);
	return bad ? 1 : 0;
}

static void usage(void)
{
	fputs("fsync_load -d DIR [-t THREADS] [-s SECONDS] [-o OPS] [-f] [-u] [-m] [-v]\n",
	      stderr);
	exit(2);
}

static long num(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	struct thread *th;
	u64 *all, total = 0, sum = 0, t0, wall;
	size_t k;
	char path[4096];
	int c, i, check = 0, err = 0, marked;

	while ((c = getopt(argc, argv, "d:t:s:o:fumv")) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 't':
			nthreads = num(optarg, 1, MAX_THREADS);
			break;
		case 's':
			seconds = num(optarg, 1, 3600);
			break;
		case 'o':
			ops = num(optarg, 1, 1L << 30);
			break;
		case 'f':
			use_fdatasync = 1;
			break;
		case 'u':
			unlink_storm = 1;
			break;
		case 'm':
			marks = 1;
			break;
		case 'v':
			check = 1;
			break;
		default:
			usage();
		}
	}
	if (!dir || optind != argc)
		usage();
	if (check)
		return verify();

	th = calloc(nthreads, sizeof(*th));
	if (!th)
		return 1;
	pthread_barrier_init(&barrier, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		snprintf(path, sizeof(path), "%s/load.%d", dir, i);
		th[i].nr = i;
		th[i].fd = unlink_storm ? -1 :
			open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (!unlink_storm && th[i].fd < 0) {
			fprintf(stderr, "fsync_load: %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (pthread_create(&th[i].tid, NULL, writer, &th[i]))
			return 1;
	}
	marked = mark_all_cpus();
	pthread_barrier_wait(&barrier);
	t0 = now_ns();
	if (!ops) {
		struct timespec ts = { .tv_sec = seconds };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i].tid, NULL);
		if (th[i].fd >= 0)
			close(th[i].fd);
		total += th[i].n;
		if (th[i].err) {
			fprintf(stderr, "fsync_load: thread %d: %s\n", i, strerror(th[i].err));
			err = 1;
		}
	}
	wall = now_ns() - t0;
	if (mark_all_cpus() != marked) {
		fprintf(stderr, "fsync_load: the CPUs marked changed during the load\n");
		err = 1;
	}
	all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return 1;
	for (k = 0, i = 0; i < nthreads; i++) {
		memcpy(all + k, th[i].lat, th[i].n * sizeof(*all));
		k += th[i].n;
	}
	for (k = 0; k < total; k++)
		sum += all[k];
	qsort(all, total, sizeof(*all), cmp_u64);
	printf("{\"threads\":%d,\"seconds\":%.3f,\"fsyncs\":%llu,\"fsyncs_per_sec\":%.1f,",
	       nthreads, wall / 1e9, total, total * 1e9 / wall);
	printf("\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,",
	       total ? all[total / 2] / 1e3 : 0.0,
	       total ? all[total * 99 / 100] / 1e3 : 0.0,
	       total ? all[total - 1] / 1e3 : 0.0);
	printf("\"sum_us\":%.0f,\"marks\":%d,\"errors\":%d}\n", sum / 1e3, marked, err);
	return err;
}
