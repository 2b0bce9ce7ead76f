// SPDX-License-Identifier: GPL-2.0-only
/*
 * Does the CPU leave the right flags after a double-word compare-exchange
 * (cmpxchg16b on x86-64, cmpxchg8b on i386)? QEMU 7.2's TCG starts them
 * from the stored cc_op, which the translator has not updated for the
 * add before: where it says "flags as they are", the add's source becomes
 * EFLAGS. Built freestanding (no libc), so that one gcc builds both words.
 *
 * Exit status: 0 the flags are right, PROBE_STALE NT (the add's source)
 * leaked into EFLAGS, PROBE_NO_EXCHANGE the exchange did not happen as it
 * must (ZF clear, or the pair not stored): statuses of their own, as QEMU
 * exits 1 on a bad -cpu. SIGILL where the CPU lacks the instruction.
 * Build it with -mno-red-zone: the asm pushes below the stack pointer.
 */
#include <stdalign.h>

#if defined(__x86_64__)
#define CMPXCHG_PAIR "cmpxchg16b"
#else
#define CMPXCHG_PAIR "cmpxchg8b"
#endif

#define X86_EFLAGS_ZF	0x0040UL
#define X86_EFLAGS_IF	0x0200UL
#define X86_EFLAGS_NT	0x4000UL

#define PROBE_STALE		3
#define PROBE_NO_EXCHANGE	4

/* two words, aligned as the instruction needs on either word size */
static alignas(2 * sizeof(long)) unsigned long pair[2];

static void probe_exit(long code)
{
#if defined(__x86_64__)
	asm volatile("syscall" : : "a" (60L), "D" (code) : "rcx", "r11", "memory");
#else
	asm volatile("int $0x80" : : "a" (1L), "b" (code) : "memory");
#endif
	for (;;)
		;
}

void _start(void);
void _start(void)
{
	unsigned long flags, sum = 0, lo = 0, hi = 0;

	/* known flags, an add whose source has NT's bit, an exchange that
	 * succeeds (ZF set), and the flags it left
	 */
	asm volatile("push %[start]\n\tpopf\n\t"
		     "add %[nt], %[sum]\n\t"
		     CMPXCHG_PAIR " %[pair]\n\t"
		     "pushf\n\tpop %[flags]"
		     : [flags] "=&r" (flags), [sum] "+r" (sum), [pair] "+m" (pair),
		       "+a" (lo), "+d" (hi)
		     : [start] "i" (X86_EFLAGS_IF), [nt] "r" (X86_EFLAGS_NT),
		       "b" (1UL), "c" (1UL)
		     : "cc", "memory");
	if (!(flags & X86_EFLAGS_ZF) || pair[0] != 1 || pair[1] != 1)
		probe_exit(PROBE_NO_EXCHANGE);
	probe_exit(flags & X86_EFLAGS_NT ? PROBE_STALE : 0);
}
