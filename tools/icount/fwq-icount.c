// SPDX-License-Identifier: GPL-2.0
/*
 * fwq-icount: a QEMU TCG plugin that counts the guest instructions a
 * vCPU executes between two markers, per translation block, so that the
 * cost of one operation (an idle flush, an enqueue) can be read without
 * timing noise.
 *
 * The guest marks a point with "xchg %bx,%bx" (66 87 db), a no-op that
 * compilers do not emit (tests/icount/). Every translation block adds its
 * instruction count to a per-vCPU slot of its start address (an inline
 * add, no callback); a marker's callback copies the slots of its vCPU.
 * At exit the plugin writes, for every two consecutive markers of one
 * vCPU, the instructions executed in between and the blocks that executed
 * them ("phase" lines, then "ADDR COUNT" lines), to the file given as
 * out=PATH. scripts/icount.sh turns the addresses into functions.
 *
 * Built against qemu-plugin.h of the QEMU that runs the guests
 * (scripts/icount.sh fetches it from the QEMU source package).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define ICOUNT_SLOTS	(1u << 19)	/* distinct block addresses */
#define ICOUNT_HASH	(ICOUNT_SLOTS * 2)
#define ICOUNT_MARKS	4096
#define ICOUNT_TOP	400		/* blocks listed per phase */

struct icount_mark {
	unsigned int vcpu;
	uint64_t *snap;			/* the vCPU's slots at the marker */
};

static struct qemu_plugin_scoreboard *board;	/* uint64_t[SLOTS] a vCPU */
static uint64_t *slot_addr;			/* slot -> block address */
static uint32_t *hash;				/* address -> slot + 1 */
static uint32_t nr_slots = 1;			/* slot 0: overflow */
static struct icount_mark marks[ICOUNT_MARKS];
static unsigned int nr_marks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_path = "icount.txt";

static uint32_t slot_of(uint64_t addr)
{
	uint32_t h = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 40) %
		     ICOUNT_HASH;
	uint32_t s;

	pthread_mutex_lock(&lock);
	while ((s = hash[h])) {
		if (slot_addr[s - 1] == addr)
			goto out;
		h = (h + 1) % ICOUNT_HASH;
	}
	if (nr_slots == ICOUNT_SLOTS) {
		s = 1;			/* slot 0: every address past the end */
		goto out;
	}
	slot_addr[nr_slots] = addr;
	hash[h] = s = ++nr_slots;
out:
	pthread_mutex_unlock(&lock);
	return s - 1;
}

static void on_mark(unsigned int vcpu, void *udata)
{
	uint64_t *snap = malloc(sizeof(uint64_t) * ICOUNT_SLOTS);

	(void)udata;
	if (!snap)
		return;
	memcpy(snap, qemu_plugin_scoreboard_find(board, vcpu),
	       sizeof(uint64_t) * ICOUNT_SLOTS);
	pthread_mutex_lock(&lock);
	if (nr_marks < ICOUNT_MARKS) {
		marks[nr_marks].vcpu = vcpu;
		marks[nr_marks++].snap = snap;
		snap = NULL;
	}
	pthread_mutex_unlock(&lock);
	free(snap);
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	static const uint8_t magic[3] = { 0x66, 0x87, 0xdb };
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	qemu_plugin_u64 slot = {
		board, sizeof(uint64_t) * slot_of(qemu_plugin_tb_vaddr(tb))
	};

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
		QEMU_PLUGIN_INLINE_ADD_U64, slot, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t buf[4];

		if (qemu_plugin_insn_data(insn, buf, sizeof(buf)) == 3 &&
		    !memcmp(buf, magic, 3))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

struct icount_top {
	uint64_t addr, count;
};

static int by_count(const void *a, const void *b)
{
	const struct icount_top *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static void write_phase(FILE *f, unsigned int phase,
			const struct icount_mark *a,
			const struct icount_mark *b)
{
	struct icount_top *top = calloc(ICOUNT_SLOTS, sizeof(*top));
	uint64_t total = 0;
	uint32_t s, n = 0;

	if (!top)
		return;
	for (s = 0; s < nr_slots; s++) {
		uint64_t d = b->snap[s] - a->snap[s];

		if (!d)
			continue;
		total += d;
		top[n].addr = slot_addr[s];
		top[n++].count = d;
	}
	qsort(top, n, sizeof(*top), by_count);
	fprintf(f, "phase %u vcpu %u insns %" PRIu64 " blocks %u\n", phase,
		a->vcpu, total, n);
	for (s = 0; s < n && s < ICOUNT_TOP; s++)
		fprintf(f, "%" PRIx64 " %" PRIu64 "\n", top[s].addr,
			top[s].count);
	free(top);
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	unsigned int i, j, phase = 0;
	bool *used = calloc(ICOUNT_MARKS, sizeof(bool));
	FILE *f = fopen(out_path, "w");

	(void)id;
	(void)udata;
	if (!f || !used) {
		fprintf(stderr, "fwq-icount: cannot write %s\n", out_path);
		free(used);
		if (f)
			fclose(f);
		return;
	}
	fprintf(f, "icount marks %u slots %u\n", nr_marks, nr_slots);
	/* markers pair up in order, per vCPU: begin, end, begin, end, ... */
	for (i = 0; i < nr_marks; i++) {
		if (used[i])
			continue;
		for (j = i + 1; j < nr_marks; j++)
			if (!used[j] && marks[j].vcpu == marks[i].vcpu)
				break;
		if (j == nr_marks)
			break;
		used[i] = used[j] = true;
		write_phase(f, phase++, &marks[i], &marks[j]);
	}
	fclose(f);
	free(used);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else {
			fprintf(stderr, "fwq-icount: unknown argument %s\n",
				argv[i]);
			return -1;
		}
	}
	slot_addr = calloc(ICOUNT_SLOTS, sizeof(*slot_addr));
	hash = calloc(ICOUNT_HASH, sizeof(*hash));
	if (!slot_addr || !hash)
		return -1;
	board = qemu_plugin_scoreboard_new(sizeof(uint64_t) * ICOUNT_SLOTS);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
