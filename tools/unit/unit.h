/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Minimal KTAP-style harness, naive reference implementations and shared
 * checkers for the host unit tests of heap.c, stats.c and hist.c.
 */
#ifndef TB_UNIT_H
#define TB_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "heap.h"
#include "hist.h"
#include "../cases/cases.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct unit_suite {
	const char *name;
	size_t nr_cases;	/* must match the unit_begin() calls of run() */
	void (*run)(void);
};

extern const struct unit_suite heap_suite;
extern const struct unit_suite stats_suite;
extern const struct unit_suite structured_suite;
extern const struct unit_suite random_suite;
extern const struct unit_suite hist_suite;
extern const struct unit_suite pace_suite;
extern const struct unit_suite rec_suite;
extern const struct unit_suite cpu_hist_suite;
extern const struct unit_suite ticks_suite;

extern char unit_case_name[160];
void unit_start(void);
void unit_end(void);
/* Mark the case failed; true while its diagnostics are still printed. */
bool unit_fail(void);

/*
 * A case runs from unit_begin() to unit_end(), which prints "ok N name" or
 * "not ok N name". The expectations below print "# " diagnostics. They are
 * macros so that the compiler checks their formats as printf()'s.
 */
#define unit_begin(fmt, ...) do {					\
	snprintf(unit_case_name, sizeof(unit_case_name), fmt,		\
		 ##__VA_ARGS__);					\
	unit_start();							\
} while (0)

/* Fail the case unless @cond holds. */
#define unit_expect(cond, fmt, ...) ({					\
	bool __ok = (cond);						\
									\
	if (!__ok && unit_fail())					\
		printf("# " fmt "\n", ##__VA_ARGS__);			\
	__ok;								\
})

/* Fail the case, saying "expected X, got Y", unless X == Y. */
#define unit_expect_u64(expected, got, fmt, ...) ({			\
	u64 __exp = (expected), __got = (got);				\
									\
	if (__exp != __got && unit_fail())				\
		printf("# " fmt ": expected %llu, got %llu\n",		\
		       ##__VA_ARGS__, __exp, __got);			\
	__exp == __got;							\
})

/* Fail the case unless two struct tb_u128 are equal. */
#define unit_expect_u128(expected, got, fmt, ...) ({			\
	struct tb_u128 __e = (expected), __g = (got);			\
									\
	unit_expect(__e.hi == __g.hi && __e.lo == __g.lo,		\
		    fmt ": expected { %llu, %llu }, got { %llu, %llu }", \
		    ##__VA_ARGS__, __e.hi, __e.lo, __g.hi, __g.lo);	\
})

/* Fail the case unless two struct tb_sfixed are equal. */
#define unit_expect_sfixed(expected, got, fmt, ...) ({			\
	struct tb_sfixed __e = (expected), __g = (got);			\
									\
	unit_expect(__e.neg == __g.neg &&				\
		    __e.mag.whole == __g.mag.whole &&			\
		    __e.mag.milli == __g.mag.milli,			\
		    fmt ": expected %s%llu.%03u, got %s%llu.%03u",	\
		    ##__VA_ARGS__, __e.neg ? "-" : "", __e.mag.whole,	\
		    __e.mag.milli, __g.neg ? "-" : "", __g.mag.whole,	\
		    __g.mag.milli);					\
})

/* Calls of tb_sort(), including those stats.c makes (ld --wrap=tb_sort). */
extern unsigned long tb_sort_calls;
void __real_tb_sort(u64 *v, size_t n);
void __wrap_tb_sort(u64 *v, size_t n);

void unit_srand(u64 seed);
u64 unit_rand(void);
u64 *unit_alloc(size_t n);
u64 *unit_dup(const u64 *v, size_t n);
/*
 * struct tb_hist is about 138 KiB, so never on the stack: a histogram
 * from malloc(), poisoned before tb_hist_init() so that it must clear
 * everything, and one fed @v[0..n-1]. The caller free()s them.
 */
struct tb_hist *unit_hist_alloc(void);
struct tb_hist *unit_hist_of(const u64 *v, size_t n);
/*
 * An arena with room for TB_UNIT_HISTS histograms' chunks, given none, and
 * a CPU histogram (poisoned, then initialised) that takes from it;
 * unit_arena_free() frees the arena's slabs and itself.
 */
#define TB_UNIT_HISTS	8
struct tb_arena *unit_arena_alloc(void);
void unit_arena_free(struct tb_arena *a);
struct tb_cpu_hist *unit_cpu_hist_alloc(struct tb_arena *a);
/* As measure.c's tb_fold(): the slabs tb_cpu_hist_need() says, then fold. */
void unit_fold(struct tb_cpu_hist *h, struct tb_spill *spill, bool flush);
/*
 * Record @v[0..n-1] into @h as tb_sample() does, with no overhead and no
 * heap, in loops of @block windows (at most TB_SPILL_MAX), each folded.
 */
void unit_cpu_hist_record(struct tb_cpu_hist *h, const u64 *v, size_t n,
			  size_t block);

/* References, independent of the code under test. */
void ref_sort(u64 *v, size_t n);
bool ref_same_multiset(const u64 *a, const u64 *b, size_t n);
u64 ref_median(const u64 *sorted, size_t n);

/*
 * Shared checkers. @sorted is @in sorted ascending; @ctx prefixes the
 * diagnostics.
 */
void check_select(const u64 *in, const u64 *sorted, size_t n, size_t k,
		  const char *ctx);
void check_sort(const u64 *in, const u64 *sorted, size_t n, const char *ctx);
void check_heap(const u64 *in, const u64 *sorted, size_t n, size_t size,
		const char *ctx);
/* All of the above, and tb_median() and tb_max(), against @in. */
void check_all(const u64 *in, size_t n, const char *ctx);
/* Every field and bucket of @got as in @exp. */
void check_hist_equal(const struct tb_hist *exp, const struct tb_hist *got,
		      const char *ctx);
/*
 * @got, with nothing spilled, holds what @exp does: merged into an empty
 * struct tb_hist, every field and bucket; its under[] all 0; and its rank,
 * percentiles and median as @exp's.
 */
void check_cpu_hist_equal(const struct tb_hist *exp,
			  const struct tb_cpu_hist *got, const char *ctx);

#endif /* TB_UNIT_H */
