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
 * Every memory access adds 1 to a second slot of its block's. At exit the
 * plugin writes, for every two consecutive markers of one vCPU, the
 * instructions executed in between and the blocks that executed them
 * ("phase" lines, then "ADDR COUNT MEM" lines: the block's instructions
 * and memory accesses), to the file given as out=PATH. scripts/icount.sh
 * turns the addresses into functions.
 *
 * Beside the instructions, per-vCPU counters of the events that cost TCG
 * more than an instruction each (inline adds too): translation blocks
 * executed, instructions that enable interrupts (sti, popf: TCG ends the
 * block there and leaves the generated code to look for an interrupt) or
 * disable them (cli), locked read-modify-writes, indirect branches (ret,
 * call and jmp through a register or memory: a lookup of the next block
 * instead of a chained jump), direct calls and jumps to another page
 * than their block's (TCG does not chain across a page either), and
 * serializing or helper-run instructions (rdtsc, rdtscp, cpuid, rdmsr,
 * wrmsr, the fences, pause), and memory accesses (loads and stores, each
 * a lookup in TCG's software TLB). The phase line gives them as
 * NAME=COUNT.
 *
 * Two more markers pause and resume the count of their vCPU between a
 * pair, so that a loop counts only part of each operation (the queue call
 * of a kick, not the wait for the item to run): "xchg %cx,%cx" (66 87 c9)
 * pauses, "xchg %dx,%dx" (66 87 d2) resumes. What the vCPU executes while
 * paused is taken off every count of the pair around it (not off the
 * pages of pages=on). Each span from a resume to the next pause is a
 * segment, one operation where the guest brackets each so; the phase
 * line gives their number and the median and quartiles of their
 * instructions and memory accesses ("segs", "seg_insns", "seg_mem"):
 * what the vCPU ran for other tasks in an operation's span (a timer, a
 * kthread scheduled while it slept) moves the mean, seldom the median.
 *
 * With pages=on, also the distinct guest pages (virtual, 4 KiB) that the
 * vCPU touched between the two markers: "loop_dpages", the pages its
 * loads and stores touched, and "loop_cpages", the pages its blocks began
 * on. They
 * count the whole loop between the markers, not one operation: the
 * working set that the software TLB and the host's caches have to hold.
 * This one needs a callback per memory access (no inline form exists),
 * which slows the guest down, so it is off by default.
 *
 * Built against qemu-plugin.h of the QEMU that runs the guests
 * (scripts/icount.sh fetches it from the QEMU source package).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define ICOUNT_SLOTS	(1u << 19)	/* distinct block addresses */
#define ICOUNT_HASH	(ICOUNT_SLOTS * 2)
#define ICOUNT_MARKS	4096
#define ICOUNT_TOP	400		/* blocks listed per phase */

/* the TCG events counted beside the instructions; names for the output */
enum icount_ev {
	EV_TBS, EV_IRQ_ON, EV_IRQ_OFF, EV_LOCKED, EV_INDIRECT, EV_XPAGE,
	EV_SERIAL, EV_MEM, EV_INSNS, EV_NR
};

/* the phase line's events; EV_INSNS, all instructions, is the segments' */
#define EV_SHOWN	EV_INSNS

static const char * const ev_names[EV_SHOWN] = {
	"tbs", "irq_on", "irq_off", "locked", "indirect", "xpage", "serial",
	"mem",
};

/*
 * A set of page numbers, open addressing (a slot holds the page + 1; 0 is
 * empty). One per vCPU and kind, touched by that vCPU's thread only.
 */
#define PAGESET_SLOTS	(1u << 16)

struct pageset {
	uint64_t *slot;
	uint32_t nr;
	bool full;			/* stopped adding at 3/4 */
};

/*
 * A vCPU's pauses: @excl, what it executed while paused so far (slots,
 * then events), subtracted from every marker's copy; @pz, its counters at
 * the pause in progress. Touched by that vCPU's thread only.
 */
struct icount_pause {
	uint64_t *excl;			/* [2 * SLOTS + EV_NR] */
	uint64_t *pz;			/* [2 * SLOTS + EV_NR] */
	bool paused;
	bool open;			/* a segment began at a resume */
	uint64_t seg0[2];		/* its instructions and memory accesses */
	uint64_t *seg;			/* the segments so far: insns, mem pairs */
	unsigned int nseg, capseg;
};

struct icount_mark {
	uint64_t *seg;			/* the segments since the last marker */
	unsigned int nseg;
	unsigned int vcpu;
	uint64_t *snap;			/* the vCPU's slots at the marker */
	uint64_t ev[EV_NR];		/* and its event counters */
	uint32_t dpages, cpages;	/* pages since the vCPU's last marker */
	bool pages_full;
};

/* uint64_t[2 * SLOTS] a vCPU: instructions, then memory accesses */
static struct qemu_plugin_scoreboard *board;
static struct qemu_plugin_scoreboard *evboard;	/* uint64_t[EV_NR] a vCPU */
static uint64_t *slot_addr;			/* slot -> block address */
static uint32_t *hash;				/* address -> slot + 1 */
static uint32_t nr_slots = 1;			/* slot 0: overflow */
static struct icount_mark marks[ICOUNT_MARKS];
static unsigned int nr_marks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_path = "icount.txt";
static bool pages_on;
static unsigned int max_vcpus;
static struct pageset *dset, *cset;	/* [max_vcpus] each */
static struct icount_pause *pauses;	/* [max_vcpus] */

static void pageset_add(struct pageset *ps, uint64_t page)
{
	uint32_t h;

	if (ps->full)
		return;
	if (!ps->slot) {
		ps->slot = calloc(PAGESET_SLOTS, sizeof(*ps->slot));
		if (!ps->slot) {
			ps->full = true;
			return;
		}
	}
	h = (uint32_t)((page * 0x9e3779b97f4a7c15ull) >> 48) &
	    (PAGESET_SLOTS - 1);
	while (ps->slot[h]) {
		if (ps->slot[h] == page + 1)
			return;
		h = (h + 1) & (PAGESET_SLOTS - 1);
	}
	ps->slot[h] = page + 1;
	if (++ps->nr >= PAGESET_SLOTS / 4 * 3)
		ps->full = true;
}

static void pageset_clear(struct pageset *ps)
{
	if (ps->slot)
		memset(ps->slot, 0, PAGESET_SLOTS * sizeof(*ps->slot));
	ps->nr = 0;
	ps->full = false;
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	(void)info;
	(void)udata;
	if (vcpu < max_vcpus)
		pageset_add(&dset[vcpu], vaddr >> 12);
}

/* udata: the page a block begins on */
static void on_tb_page(unsigned int vcpu, void *udata)
{
	if (vcpu < max_vcpus)
		pageset_add(&cset[vcpu], (uint64_t)(uintptr_t)udata);
}

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

/* the slots a snapshot copies: the used ones, and their memory counts */
static void copy_slots(uint64_t *to, const uint64_t *from, uint32_t n)
{
	memcpy(to, from, sizeof(uint64_t) * n);
	memcpy(to + ICOUNT_SLOTS, from + ICOUNT_SLOTS, sizeof(uint64_t) * n);
}

/* one counted segment, resume to pause: an operation's own count */
static void seg_add(struct icount_pause *p, uint64_t insns, uint64_t mem)
{
	if (p->nseg == p->capseg) {
		unsigned int cap = p->capseg ? 2 * p->capseg : 256;
		uint64_t *n = realloc(p->seg, sizeof(uint64_t) * 2 * cap);

		if (!n)
			return;
		p->seg = n;
		p->capseg = cap;
	}
	p->seg[2 * p->nseg] = insns;
	p->seg[2 * p->nseg + 1] = mem;
	p->nseg++;
}

/* udata: 0 pause, 1 resume */
static void on_pause(unsigned int vcpu, void *udata)
{
	const uint64_t *cur = qemu_plugin_scoreboard_find(board, vcpu);
	const uint64_t *ev = qemu_plugin_scoreboard_find(evboard, vcpu);
	uint64_t *x, *z;
	struct icount_pause *p;
	uint32_t n, s;

	if (vcpu >= max_vcpus)
		return;
	p = &pauses[vcpu];
	if (!p->excl) {
		p->excl = calloc(2 * ICOUNT_SLOTS + EV_NR, sizeof(uint64_t));
		p->pz = calloc(2 * ICOUNT_SLOTS + EV_NR, sizeof(uint64_t));
		if (!p->excl || !p->pz) {
			fprintf(stderr, "fwq-icount: out of memory for a pause\n");
			exit(1);
		}
	}
	pthread_mutex_lock(&lock);
	n = nr_slots;
	pthread_mutex_unlock(&lock);
	x = p->excl;
	z = p->pz;
	if (!udata) {
		if (p->paused)
			return;
		if (p->open)
			seg_add(p, ev[EV_INSNS] - p->seg0[0], ev[EV_MEM] - p->seg0[1]);
		p->open = false;
		copy_slots(z, cur, n);
		memcpy(z + 2 * ICOUNT_SLOTS, ev, sizeof(uint64_t) * EV_NR);
		p->paused = true;
		return;
	}
	if (!p->paused)
		return;
	/* a slot added while paused counted from 0 */
	for (s = 0; s < n; s++) {
		x[s] += cur[s] - z[s];
		x[ICOUNT_SLOTS + s] += cur[ICOUNT_SLOTS + s] - z[ICOUNT_SLOTS + s];
		z[s] = z[ICOUNT_SLOTS + s] = 0;
	}
	for (s = 0; s < EV_NR; s++)
		x[2 * ICOUNT_SLOTS + s] += ev[s] - z[2 * ICOUNT_SLOTS + s];
	p->paused = false;
	p->open = true;
	p->seg0[0] = ev[EV_INSNS];
	p->seg0[1] = ev[EV_MEM];
}

static void on_mark(unsigned int vcpu, void *udata)
{
	uint64_t *snap = malloc(sizeof(uint64_t) * 2 * ICOUNT_SLOTS);
	struct icount_pause *p = vcpu < max_vcpus ? &pauses[vcpu] : NULL;
	uint64_t ev[EV_NR];
	uint32_t s;

	(void)udata;
	if (!snap)
		return;
	memcpy(snap, qemu_plugin_scoreboard_find(board, vcpu),
	       sizeof(uint64_t) * 2 * ICOUNT_SLOTS);
	memcpy(ev, qemu_plugin_scoreboard_find(evboard, vcpu), sizeof(ev));
	/* the counts less what the vCPU executed while paused */
	if (p && p->excl) {
		for (s = 0; s < 2 * ICOUNT_SLOTS; s++)
			snap[s] -= p->excl[s];
		for (s = 0; s < EV_NR; s++)
			ev[s] -= p->excl[2 * ICOUNT_SLOTS + s];
	}
	pthread_mutex_lock(&lock);
	if (nr_marks < ICOUNT_MARKS) {
		marks[nr_marks].vcpu = vcpu;
		if (pages_on && vcpu < max_vcpus) {
			marks[nr_marks].dpages = dset[vcpu].nr;
			marks[nr_marks].cpages = cset[vcpu].nr;
			marks[nr_marks].pages_full = dset[vcpu].full ||
						     cset[vcpu].full;
		}
		memcpy(marks[nr_marks].ev, ev, sizeof(ev));
		if (p) {
			marks[nr_marks].seg = p->seg;
			marks[nr_marks].nseg = p->nseg;
			p->seg = NULL;
			p->nseg = p->capseg = 0;
		}
		marks[nr_marks++].snap = snap;
		snap = NULL;
	}
	pthread_mutex_unlock(&lock);
	free(snap);
	if (pages_on && vcpu < max_vcpus) {
		pageset_clear(&dset[vcpu]);
		pageset_clear(&cset[vcpu]);
	}
}

static qemu_plugin_u64 ev_entry(enum icount_ev ev)
{
	qemu_plugin_u64 e = { evboard, sizeof(uint64_t) * ev };

	return e;
}

static int32_t rel_at(const uint8_t *b, size_t len, size_t at, size_t size)
{
	int32_t v;

	if (at + size > len)
		return 0;
	if (size == 1)
		return (int8_t)b[at];
	memcpy(&v, b + at, sizeof(v));	/* x86 guest on an x86 host */
	return v;
}

/*
 * The event class of one x86-64 instruction (its @len bytes @b at @pc, in
 * a block that starts at @tb_pc), or EV_NR for none.
 */
static enum icount_ev classify(const uint8_t *b, size_t len, uint64_t pc,
			       uint64_t tb_pc)
{
	bool lock = false, rep = false;
	uint64_t to;
	size_t i = 0;
	uint8_t op;

	for (; i < len; i++) {
		uint8_t c = b[i];

		if (c == 0xf0)
			lock = true;
		else if (c == 0xf3)
			rep = true;
		else if (c != 0x26 && c != 0x2e && c != 0x36 && c != 0x3e &&
			 c != 0x64 && c != 0x65 && c != 0x66 && c != 0x67 &&
			 c != 0xf2)
			break;
	}
	if (i < len && (b[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i >= len)
		return EV_NR;
	if (lock)
		return EV_LOCKED;
	op = b[i];
	switch (op) {
	case 0x86: case 0x87:			/* xchg with memory locks */
		return i + 1 < len && (b[i + 1] >> 6) != 3 ? EV_LOCKED : EV_NR;
	case 0xfb: case 0x9d:			/* sti, popf */
		return EV_IRQ_ON;
	case 0xfa:				/* cli */
		return EV_IRQ_OFF;
	case 0xc3: case 0xc2:			/* ret */
		return EV_INDIRECT;
	case 0xff:				/* call/jmp through r/m */
		if (i + 1 < len) {
			uint8_t reg = (b[i + 1] >> 3) & 7;

			if (reg >= 2 && reg <= 5)
				return EV_INDIRECT;
		}
		return EV_NR;
	case 0xe8: case 0xe9: case 0xeb:	/* direct call/jmp */
		to = pc + len + rel_at(b, len, i + 1, op == 0xeb ? 1 : 4);
		return (to ^ tb_pc) >> 12 ? EV_XPAGE : EV_NR;
	case 0x90:				/* pause is rep nop */
		return rep ? EV_SERIAL : EV_NR;
	case 0x0f:
		if (i + 1 >= len)
			return EV_NR;
		switch (b[i + 1]) {
		case 0x31: case 0xa2: case 0x30: case 0x32:
			return EV_SERIAL;	/* rdtsc cpuid wrmsr rdmsr */
		case 0x01:			/* rdtscp */
			return i + 2 < len && b[i + 2] == 0xf9 ? EV_SERIAL :
								 EV_NR;
		case 0xae:			/* lfence mfence sfence */
			return i + 2 < len && (b[i + 2] == 0xe8 ||
					       b[i + 2] == 0xf0 ||
					       b[i + 2] == 0xf8) ? EV_SERIAL :
								   EV_NR;
		}
		return EV_NR;
	}
	return EV_NR;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	static const uint8_t magic[3] = { 0x66, 0x87, 0xdb };
	static const uint8_t pause[3] = { 0x66, 0x87, 0xc9 };
	static const uint8_t resume[3] = { 0x66, 0x87, 0xd2 };
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint64_t tb_pc = qemu_plugin_tb_vaddr(tb);
	uint32_t sl = slot_of(tb_pc);
	qemu_plugin_u64 slot = { board, sizeof(uint64_t) * sl };
	qemu_plugin_u64 mslot = { board, sizeof(uint64_t) * (ICOUNT_SLOTS + sl) };

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
		QEMU_PLUGIN_INLINE_ADD_U64, slot, n);
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
		QEMU_PLUGIN_INLINE_ADD_U64, ev_entry(EV_TBS), 1);
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
		QEMU_PLUGIN_INLINE_ADD_U64, ev_entry(EV_INSNS), n);
	if (pages_on)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_page,
			QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)(tb_pc >> 12));
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t buf[16];
		size_t len = qemu_plugin_insn_data(insn, buf, sizeof(buf));
		enum icount_ev ev;

		if (len == 3 && !memcmp(buf, magic, 3)) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
			continue;
		}
		if (len == 3 && (!memcmp(buf, pause, 3) ||
				 !memcmp(buf, resume, 3))) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_pause,
				QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)(buf[2] == 0xd2));
			continue;
		}
		qemu_plugin_register_vcpu_mem_inline_per_vcpu(insn,
			QEMU_PLUGIN_MEM_RW, QEMU_PLUGIN_INLINE_ADD_U64,
			ev_entry(EV_MEM), 1);
		qemu_plugin_register_vcpu_mem_inline_per_vcpu(insn,
			QEMU_PLUGIN_MEM_RW, QEMU_PLUGIN_INLINE_ADD_U64,
			mslot, 1);
		if (pages_on)
			qemu_plugin_register_vcpu_mem_cb(insn, on_mem,
				QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
				NULL);
		ev = classify(buf, len, qemu_plugin_insn_vaddr(insn), tb_pc);
		if (ev != EV_NR)
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, ev_entry(ev), 1);
	}
}

struct icount_top {
	uint64_t addr, count, mem;
};

static int by_count(const void *a, const void *b)
{
	const struct icount_top *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The segments of a marker pair: how many, and the median and quartiles
 * of their instructions and memory accesses, "segs=N seg_insns=MEDIAN
 * seg_insns_q1=.. seg_insns_q3=.. seg_mem=..".
 */
static void write_segs(FILE *f, const struct icount_mark *b)
{
	uint64_t *v = malloc(sizeof(uint64_t) * b->nseg);
	unsigned int i, k, n = b->nseg;

	if (!v)
		return;
	fprintf(f, " segs=%u", n);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < n; i++)
			v[i] = b->seg[2 * i + k];
		qsort(v, n, sizeof(*v), by_u64);
		fprintf(f, " seg_%s=%" PRIu64 " seg_%s_q1=%" PRIu64
			" seg_%s_q3=%" PRIu64, k ? "mem" : "insns", v[n / 2],
			k ? "mem" : "insns", v[n / 4], k ? "mem" : "insns",
			v[3 * n / 4]);
	}
	free(v);
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
		top[n].mem = b->snap[ICOUNT_SLOTS + s] - a->snap[ICOUNT_SLOTS + s];
		top[n++].count = d;
	}
	qsort(top, n, sizeof(*top), by_count);
	fprintf(f, "phase %u vcpu %u insns %" PRIu64 " blocks %u", phase,
		a->vcpu, total, n);
	for (s = 0; s < EV_SHOWN; s++)
		fprintf(f, " %s=%" PRIu64, ev_names[s], b->ev[s] - a->ev[s]);
	if (b->nseg)
		write_segs(f, b);
	/* the pages since a's marker, which emptied the sets */
	if (pages_on)
		fprintf(f, " loop_dpages=%u loop_cpages=%u%s", b->dpages,
			b->cpages, b->pages_full ? " pages_full=1" : "");
	fputc('\n', f);
	for (s = 0; s < n && s < ICOUNT_TOP; s++)
		fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
			top[s].addr, top[s].count, top[s].mem);
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

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strcmp(argv[i], "pages=on")) {
			pages_on = true;
		} else if (!strcmp(argv[i], "pages=off")) {
			pages_on = false;
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
	max_vcpus = info->system_emulation ? info->system.max_vcpus : 1;
	dset = calloc(max_vcpus, sizeof(*dset));
	cset = calloc(max_vcpus, sizeof(*cset));
	pauses = calloc(max_vcpus, sizeof(*pauses));
	if (!dset || !cset || !pauses)
		return -1;
	board = qemu_plugin_scoreboard_new(sizeof(uint64_t) * 2 * ICOUNT_SLOTS);
	evboard = qemu_plugin_scoreboard_new(sizeof(uint64_t) * EV_NR);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
