// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * USDT probes of every argument form for tests/host/usdt.sh and
 * tests/unit/test_usdt.c. "usdt_target N" fires, for i = 0..N-1:
 *   kpt:mem   8 stack variables, -O1 keeps them in memory: SIZE@OFF(%rsp)
 *             (s8 -5, u8 250, s16 -300, u16 60000, s32 -70000,
 *              u32 4000000000, s64 -5000000000, u64 18000000000000000000)
 *   kpt:reg   i and values computed from i, in registers: SIZE@%REG
 *             (u8 i, s16 -i, s32 -100000 - i, u64 (1 << 40) + i)
 *   kpt:imm   constants: SIZE@$N (-7 and 5)
 *   kpt:global globals: SIZE@SYM(%rip) (s32 i + 1, s64 -77)
 *   kpt:twice one probe at two locations: i, then 10 * i
 *   kpt:guarded i, only while its semaphore is raised (a tracer attached)
 * and prints "guarded G" (G: how many times kpt:guarded fired).
 * "usdt_target wait" prints its semaphore's value for each line on stdin.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

/* sys/sdt.h's names for the probes' semaphores (with _SDT_HAS_SEMAPHORES
 * every probe has one), in the section it expects; only kpt:guarded's is
 * looked at */
#ifdef SEMAPHORES_IN_BSS	/* test_usdt: a semaphore no file bytes hold, refused */
#define SEMAPHORE(name) unsigned short kpt_##name##_semaphore
#else
#define SEMAPHORE(name) unsigned short kpt_##name##_semaphore __attribute__((section(".probes")))
#endif
SEMAPHORE(mem);
SEMAPHORE(reg);
SEMAPHORE(imm);
SEMAPHORE(global);
SEMAPHORE(twice);
SEMAPHORE(guarded);

/* kpt:global's, read where they live */
int kpt_rounds;
long kpt_minus = -77;

/* the locals' address escapes: they stay in memory at the probe */
void __attribute__((noinline)) escape(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static void __attribute__((noinline)) fire_mem(void)
{
	int8_t s8 = -5;
	uint8_t u8 = 250;
	int16_t s16 = -300;
	uint16_t u16 = 60000;
	int32_t s32 = -70000;
	uint32_t u32 = 4000000000u;
	int64_t s64 = -5000000000ll;
	uint64_t u64 = 18000000000000000000ull;

	escape(&s8), escape(&u8), escape(&s16), escape(&u16);
	escape(&s32), escape(&u32), escape(&s64), escape(&u64);
	STAP_PROBE8(kpt, mem, s8, u8, s16, u16, s32, u32, s64, u64);
}

static void __attribute__((noinline)) fire_reg(unsigned int i)
{
	uint8_t u8 = (uint8_t)i;
	int16_t s16 = (int16_t)-(int)i;
	int32_t s32 = -100000 - (int32_t)i;
	uint64_t u64 = (1ull << 40) + i;

	STAP_PROBE4(kpt, reg, u8, s16, s32, u64);
}

/* the globals' values unknown here: the note reads them where they live */
static void __attribute__((noinline)) fire_global(void)
{
	STAP_PROBE2(kpt, global, kpt_rounds, kpt_minus);
}

/* inlined at each call: one note per call site */
static inline __attribute__((always_inline)) void twice(long v)
{
	STAP_PROBE1(kpt, twice, v);
}

static int __attribute__((noinline)) fire_guarded(unsigned int i)
{
	if (!kpt_guarded_semaphore)
		return 0;
	STAP_PROBE1(kpt, guarded, i);
	return 1;
}

int main(int argc, char **argv)
{
	char line[64];
	unsigned int i, n, g = 0;

	if (argc > 1 && !strcmp(argv[1], "wait")) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		while (fgets(line, sizeof(line), stdin))
			printf("semaphore %u\n", *(volatile unsigned short *)&kpt_guarded_semaphore);
		return 0;
	}
	n = argc > 1 ? (unsigned int)atoi(argv[1]) : 1;
	for (i = 0; i < n; i++) {
		fire_mem();
		fire_reg(i);
		STAP_PROBE2(kpt, imm, -7, 5);
		kpt_rounds = (int)i + 1;
		fire_global();
		twice((long)i);
		twice(10 * (long)i);
		g += fire_guarded(i);
	}
	printf("guarded %u\n", g);
	return 0;
}
