// SPDX-License-Identifier: GPL-2.0
/*
 * fsync_load: the fsync-heavy load of make bench-xfs, a static program
 * for the busybox guest.
 *
 *   fsync_load -d DIR [-t THREADS] [-s SECONDS] [-f] [-o OPS]
 *   fsync_load -d DIR -t THREADS -v
 *
 * Each of THREADS threads appends 4 KiB blocks to its own file,
 * DIR/load.N, and calls fsync() after each, for SECONDS seconds (or OPS
 * appends per thread with -o; -f fdatasync instead). Every block holds a
 * known pattern (its thread and index in each 8-byte word), which -v
 * reads back and checks. Prints one JSON line: the fsyncs, their rate,
 * and the p50, p99 and max latency of one append + fsync in
 * microseconds. Exit 0 ok, 1 an I/O error or a mismatch, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
static int nthreads = 4, use_fdatasync;
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

static void *writer(void *arg)
{
	struct thread *t = arg;
	u64 buf[WORDS], idx, t0;

	pthread_barrier_wait(&barrier);
	for (idx = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED) &&
	     (!ops || idx < (u64)ops); idx++) {
		fill(buf, t->nr, idx);
		t0 = now_ns();
		if (write(t->fd, buf, BLOCK) != BLOCK ||
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
	fputs("fsync_load -d DIR [-t THREADS] [-s SECONDS] [-o OPS] [-f] [-v]\n", stderr);
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
	u64 *all, total = 0, t0, wall;
	size_t k;
	char path[4096];
	int c, i, check = 0, err = 0;

	while ((c = getopt(argc, argv, "d:t:s:o:fv")) != -1) {
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
		th[i].fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (th[i].fd < 0) {
			fprintf(stderr, "fsync_load: %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (pthread_create(&th[i].tid, NULL, writer, &th[i]))
			return 1;
	}
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
		close(th[i].fd);
		total += th[i].n;
		if (th[i].err) {
			fprintf(stderr, "fsync_load: thread %d: %s\n", i, strerror(th[i].err));
			err = 1;
		}
	}
	wall = now_ns() - t0;
	all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return 1;
	for (k = 0, i = 0; i < nthreads; i++) {
		memcpy(all + k, th[i].lat, th[i].n * sizeof(*all));
		k += th[i].n;
	}
	qsort(all, total, sizeof(*all), cmp_u64);
	printf("{\"threads\":%d,\"seconds\":%.3f,\"fsyncs\":%llu,\"fsyncs_per_sec\":%.1f,",
	       nthreads, wall / 1e9, total, total * 1e9 / wall);
	printf("\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,\"errors\":%d}\n",
	       total ? all[total / 2] / 1e3 : 0.0,
	       total ? all[total * 99 / 100] / 1e3 : 0.0,
	       total ? all[total - 1] / 1e3 : 0.0, err);
	return err;
}
