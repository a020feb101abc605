/*
 * zipfblocks.c --
 *
 *	Writes M block accesses over N blocks with Zipf popularity (rank r,
 *	0 the most popular, drawn with probability proportional to
 *	1/(r+1)^s by inverse CDF) as CSV lines "time,device,offset,size"
 *	(time the access's index in seconds, device 1, 4 KiB blocks), for
 *	shardsaccuracy.sh.  The block of rank r is perm[r]: the identity
 *	with -perm 0, else a random permutation drawn from that seed, so the
 *	same accesses can be given several block numberings.  The generator
 *	is splitmix64: the output is the same on every machine.
 *
 *	zipfblocks N M s seed perm
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;

/*
 * Next --
 *	The next splitmix64 number.
 */
static uint64_t
Next(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int
main(int argc, char **argv)
{
    long n, m, i, lo, hi, mid, j, t;
    double s, total = 0.0, *cdf;
    long *perm;

    if (argc != 6) {
	fprintf(stderr, "usage: zipfblocks N M s seed perm\n");
	return 2;
    }
    n = atol(argv[1]);
    m = atol(argv[2]);
    s = atof(argv[3]);
    cdf = malloc((size_t)n * sizeof(double));
    perm = malloc((size_t)n * sizeof(long));
    if (n <= 0 || m < 0 || cdf == NULL || perm == NULL) {
	fprintf(stderr, "zipfblocks: bad arguments or out of memory\n");
	return 2;
    }
    for (i = 0; i < n; i++) {
	total += pow((double)(i + 1), -s);
	cdf[i] = total;
	perm[i] = i;
    }
    state = strtoull(argv[5], NULL, 10);
    if (state != 0) {
	for (i = n - 1; i > 0; i--) {
	    j = (long)(Next() % (uint64_t)(i + 1));
	    t = perm[i];
	    perm[i] = perm[j];
	    perm[j] = t;
	}
    }
    state = strtoull(argv[4], NULL, 10);
    for (i = 0; i < m; i++) {
	double u = (double)(Next() >> 11) * (1.0 / 9007199254740992.0) * total;

	for (lo = 0, hi = n - 1; lo < hi;) {
	    mid = (lo + hi) / 2;
	    if (cdf[mid] < u) {
		lo = mid + 1;
	    } else {
		hi = mid;
	    }
	}
	printf("%ld,1,%ld,4096\n", i, perm[lo] * 4096L);
    }
    free(cdf);
    free(perm);
    return 0;
}
