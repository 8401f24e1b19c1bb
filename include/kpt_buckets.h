/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Histogram bucket functions, shared by the BPF programs (which count) and
 * userspace (which prints bucket ranges and percentiles), so both sides agree
 * by construction. Loop-free: the verifier sees straight-line code.
 */
#ifndef KPT_BUCKETS_H
#define KPT_BUCKETS_H

#include "kptrace.h"

/* floor(log2(v)) for v > 0, by halving the search range. */
static inline __u32 kpt_ilog2(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

/* Log2: bucket 0 holds 0; bucket k >= 1 holds [2^(k-1), 2^k). */
static inline __u32 kpt_log2_bucket(__u64 v)
{
	return v ? kpt_ilog2(v) + 1 : 0;
}

/*
 * Signed log2, mirrored: bucket 64 holds 0, 64 + k holds log2's bucket k
 * ([1], [2, 4) ...) and 64 - k its negative mirror ([-1], (-4, -2] ...), so
 * buckets in index order are values in ascending order. -2^63 is bucket 0.
 */
static inline __u32 kpt_slog2_bucket(__s64 v)
{
	/* the magnitude in unsigned arithmetic: -(-2^63) overflows an s64 */
	if (v < 0)
		return KPT_SLOG2_ZERO - kpt_log2_bucket(-(__u64)v);
	return KPT_SLOG2_ZERO + kpt_log2_bucket((__u64)v);
}

/*
 * Log-linear: values below 64 have a bucket each; above, each power-of-two
 * range [2^e, 2^(e+1)) is cut into 64 equal steps of 2^(e-6). A bucket's width
 * is at most 1/64 of its lower bound, so a value reported as its bucket's
 * midpoint is within 1/128 (0.8%) of the truth.
 */
static inline __u32 kpt_loglin_bucket(__u64 v)
{
	__u32 e;

	if (v < KPT_LOGLIN_SUB)
		return (__u32)v;
	e = kpt_ilog2(v);
	return KPT_LOGLIN_SUB * (e - 5) + (__u32)((v >> (e - 6)) & (KPT_LOGLIN_SUB - 1));
}

/* Lowest value of log-linear bucket b. */
static inline __u64 kpt_loglin_lower(__u32 b)
{
	__u32 e, sub;

	if (b < KPT_LOGLIN_SUB)
		return b;
	e = b / KPT_LOGLIN_SUB + 5;
	sub = b % KPT_LOGLIN_SUB;
	return ((__u64)(KPT_LOGLIN_SUB + sub)) << (e - 6);
}

/*
 * Linear: bucket 0 holds v < min, bucket i in 1..n-2 holds
 * [min + (i-1)*step, min + i*step), bucket n-1 holds everything above.
 */
static inline __u32 kpt_linear_bucket(__s64 v, __s64 min, __s64 step, __u32 n)
{
	__u64 i;

	if (v < min || step <= 0 || n < 3)
		return 0;
	/* unsigned: a range wider than 2^63 must not overflow */
	i = ((__u64)v - (__u64)min) / (__u64)step + 1;
	return i >= n - 1 ? n - 1 : (__u32)i;
}

#endif /* KPT_BUCKETS_H */
