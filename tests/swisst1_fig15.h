/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The Swiss-T1's switch-level routing as printed in Figure 15 of
 * Gabrielyan's "Liquid Schedule Construction Algorithm" (2006), the
 * tests' and the benchmark's own copy, to judge the library's engine
 * (route_swisst1.c) and to class allocations by: the table, the
 * intermediate switch of a pair, the liquid bound of an allocation.
 */
#ifndef IBF_TESTS_SWISST1_FIG15_H
#define IBF_TESTS_SWISST1_FIG15_H

#define T1_NSW 8

/* Row i, column j is the switch a transmission from switch i to switch j
 * goes through, ">" where the two are linked. */
static const char *const T1_FIG15[T1_NSW] = {
	"- > 2 > 4 > 8 >",
	"> - > 7 > 3 > 5",
	"2 > - > 4 > 8 >",
	"> 7 > - > 7 > 3",
	"4 > 4 > - > 6 >",
	"> 3 > 7 > - > 1",
	"8 > 8 > 6 > - >",
	"> 5 > 3 > 1 > -",
};

/* 0-based intermediate switch of i -> j, -1 when linked or i == j. */
static inline int t1_via(int i, int j)
{
	char c = T1_FIG15[i][2 * j];

	return c >= '1' && c <= '8' ? c - '1' : -1;
}

/* The liquid bound of an allocation (a[s] nodes on switch s, n in all)
 * from the table alone: a processor link carries n transfers, a switch
 * link the sum of a_i a_j over the switch pairs routed over it. */
static inline unsigned t1_duration(const int *a, unsigned n)
{
	unsigned load[T1_NSW][T1_NSW] = { { 0 } }, d = n;

	for (int i = 0; i < T1_NSW; i++)
		for (int j = 0; j < T1_NSW; j++) {
			unsigned c = (unsigned)(a[i] * a[j]);
			int k = t1_via(i, j);

			if (i == j || !c)
				continue;
			if (k < 0) {
				load[i][j] += c;
			} else {
				load[i][k] += c;
				load[k][j] += c;
			}
		}
	for (int i = 0; i < T1_NSW; i++)
		for (int j = 0; j < T1_NSW; j++)
			if (load[i][j] > d)
				d = load[i][j];
	return d;
}

#endif
