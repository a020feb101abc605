/*
 * genzipf.c --
 *
 *	Writes the cache rows' trace of the benchmark as SRT v7 (doc/srt.n,
 *	the record layout of gensrt.c): block I/Os whose first block is
 *	drawn with Zipf popularity over a fixed set of 4 KiB blocks, so that
 *	blocks are re-accessed at every distance, as a cache curve needs
 *	(gensrt's offsets, uniform over 1 TiB, are almost never re-read).
 *
 *	The block of popularity rank r (0 the most popular, probability
 *	proportional to 1/(r+1)^s) is block ((r / 4) * 40503) mod 2^18 of
 *	device 1 + r mod 4: a bijection, so -blocks up to 2^20 are distinct,
 *	and popular blocks are spread over the devices and their disks.  An
 *	I/O is 4 KiB (85%), 8 KiB (10%) or 16 KiB (5%) at a block boundary:
 *	1.25 block accesses per I/O on average.  Enqueue gaps are
 *	exponential (mean 50 us), response times uniform in 0.1-20 ms, reads
 *	30%.  A fixed seed makes the output the same on every machine.
 *
 *	With -oracle it writes the object cache rows' trace instead, as
 *	libCacheSim's oracleGeneral (doc/oraclegeneral.n): 24-byte
 *	little-endian records of a time in seconds, an object id, its size
 *	and the request number of its next request (-1: none).  The object
 *	of rank r has id 1 + (r * 40503) mod 2^20 (a bijection for -blocks
 *	up to 2^20) and one size, 4 KiB (85%), 8 KiB (10%) or 16 KiB (5%),
 *	drawn from a hash of r; the times advance as the SRT trace's do.
 *	The next requests take a pass backwards over the drawn ranks, held
 *	in memory (12 bytes a request).
 *
 *	genzipf ?-n records? ?-blocks B? ?-s exponent? ?-seed n? ?-oracle?
 *		out
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPOCH_SEC	1700000000LL
#define READ_BIT	0x00080000u
#define MAX_BLOCKS	(1 << 20)
#define DEV_BLOCKS	(1 << 18)

static uint64_t rngState;

/*
 * Rand64, RandUnit --
 *	splitmix64, and a uniform double in [0, 1) from it.
 */
static uint64_t
Rand64(void)
{
    uint64_t z = (rngState += 0x9E3779B97F4A7C15ULL);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double
RandUnit(void)
{
    return (Rand64() >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * PutBe32 --
 *	Stores v big-endian at p.
 */
static void
PutBe32(unsigned char *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

/*
 * PutLe --
 *	Writes the n low bytes of v at p, little-endian.
 */
static void
PutLe(unsigned char *p, uint64_t v, int n)
{
    int i;

    for (i = 0; i < n; i++) {
	p[i] = (unsigned char)(v >> (8 * i));
    }
}

/*
 * Usage --
 *	Prints the usage and exits with status 2.
 */
static void
Usage(void)
{
    fprintf(stderr, "usage: genzipf ?-n records? ?-blocks B? ?-s exponent? "
	    "?-seed n? ?-oracle? out\n");
    exit(2);
}

/*
 * Rank --
 *	The popularity rank of a draw u in [0, sum): the first r with
 *	u < cdf[r].
 */
static long
Rank(const double *cdf, long blocks, double u)
{
    long lo = 0, hi = blocks - 1;

    while (lo < hi) {
	long mid = (lo + hi) / 2;

	if (u < cdf[mid]) {
	    hi = mid;
	} else {
	    lo = mid + 1;
	}
    }
    return lo;
}

/*
 * WriteOracle --
 *	The -oracle trace: n requests, their ranks and times drawn first,
 *	then each one's next request found backwards, then written.
 */
static int
WriteOracle(FILE *fp, long long n, long blocks, const double *cdf,
	double sum)
{
    uint32_t *ranks = malloc((size_t)n * sizeof(uint32_t));
    uint32_t *secs = malloc((size_t)n * sizeof(uint32_t));
    int64_t *next = malloc((size_t)n * sizeof(int64_t));
    int64_t *last = malloc((size_t)blocks * sizeof(int64_t));
    int64_t us = 0;
    long long i;
    long r;

    if (ranks == NULL || secs == NULL || next == NULL || last == NULL) {
	perror("genzipf");
	return 1;
    }
    for (i = 0; i < n; i++) {
	double u = RandUnit() * sum;

	us += (int64_t)(-50.0 * log(1.0 - RandUnit()));
	ranks[i] = (uint32_t)Rank(cdf, blocks, u);
	secs[i] = (uint32_t)(us / 1000000);
    }
    for (r = 0; r < blocks; r++) {
	last[r] = -1;
    }
    /* Request numbers count from 1, as libCacheSim's virtual time. */
    for (i = n - 1; i >= 0; i--) {
	next[i] = last[ranks[i]];
	last[ranks[i]] = i + 1;
    }
    for (i = 0; i < n; i++) {
	unsigned char rec[24];
	uint64_t h = (uint64_t)ranks[i] * 0x9E3779B97F4A7C15ULL;
	double v = (double)(h >> 11) * (1.0 / 9007199254740992.0);

	PutLe(rec, secs[i], 4);
	PutLe(rec + 4, 1 + (((uint64_t)ranks[i] * 40503) & (MAX_BLOCKS - 1)),
		8);
	PutLe(rec + 12, v < 0.85 ? 4096 : v < 0.95 ? 8192 : 16384, 4);
	PutLe(rec + 16, (uint64_t)next[i], 8);
	fwrite(rec, 1, sizeof(rec), fp);
    }
    free(ranks);
    free(secs);
    free(next);
    free(last);
    return 0;
}

/*
 * main --
 *	Draws the records and writes them.
 */
int
main(int argc, char **argv)
{
    long long n = 8000000, i;
    long blocks = 1000000, r;
    double s = 0.9, sum = 0, *cdf;
    const char *path = NULL;
    int64_t us = 0;
    FILE *fp;
    int a, oracle = 0;

    rngState = 7;
    for (a = 1; a < argc; a++) {
	if (argv[a][0] != '-') {
	    path = argv[a];
	    continue;
	}
	if (strcmp(argv[a], "-oracle") == 0) {
	    oracle = 1;
	    continue;
	}
	if (a + 1 >= argc) {
	    Usage();
	}
	if (strcmp(argv[a], "-n") == 0) {
	    n = atoll(argv[++a]);
	} else if (strcmp(argv[a], "-blocks") == 0) {
	    blocks = atol(argv[++a]);
	} else if (strcmp(argv[a], "-s") == 0) {
	    s = atof(argv[++a]);
	} else if (strcmp(argv[a], "-seed") == 0) {
	    rngState = strtoull(argv[++a], NULL, 10);
	} else {
	    Usage();
	}
    }
    if (path == NULL || blocks < 1 || blocks > MAX_BLOCKS) {
	Usage();
    }
    if ((cdf = malloc(blocks * sizeof(double))) == NULL) {
	perror("genzipf");
	return 1;
    }
    for (r = 0; r < blocks; r++) {
	sum += pow(r + 1.0, -s);
	cdf[r] = sum;
    }
    if ((fp = fopen(path, "wb")) == NULL) {
	perror(path);
	return 1;
    }
    setvbuf(fp, NULL, _IOFBF, 1 << 20);
    if (oracle) {
	if (WriteOracle(fp, n, blocks, cdf, sum) != 0) {
	    return 1;
	}
	if (fclose(fp) != 0) {
	    perror("genzipf: write");
	    return 1;
	}
	free(cdf);
	return 0;
    }
    fprintf(fp, "$$TR_IOREC-1.7 : Zipf block trace for Rubicon's benchmark"
	    "\nversion = 1.7;\n# It contains shortIO_v7 records\n"
	    "# genzipf: %lld records, %ld blocks, s = %g\n"
	    "tracedate = Tue Nov 14 22:13:20 2023\n\f", n, blocks, s);
    for (i = 0; i < n; i++) {
	unsigned char rec[88];
	double u = RandUnit() * sum, v;
	long lo;
	uint32_t size, resp, dev;
	uint64_t off;
	int isRead;

	us += (int64_t)(-50.0 * log(1.0 - RandUnit()));
	lo = Rank(cdf, blocks, u);
	dev = 1 + (uint32_t)(lo % 4);
	off = (uint64_t)(((lo / 4) * 40503) % DEV_BLOCKS) * 4096;
	v = RandUnit();
	size = v < 0.85 ? 4096 : v < 0.95 ? 8192 : 16384;
	isRead = RandUnit() < 0.30;
	resp = 100 + (uint32_t)(Rand64() % 19900);

	memset(rec, 0, sizeof(rec));
	PutBe32(rec + 0, 88);
	PutBe32(rec + 4, 0x00070001);
	PutBe32(rec + 8, (uint32_t)(EPOCH_SEC + us / 1000000));
	PutBe32(rec + 12, (uint32_t)(us % 1000000));
	PutBe32(rec + 16, 5);
	PutBe32(rec + 20, resp);
	PutBe32(rec + 24, size);
	PutBe32(rec + 28, 7);
	PutBe32(rec + 32, dev);
	PutBe32(rec + 44, isRead ? READ_BIT : 0);
	PutBe32(rec + 48, 0x00010000);
	PutBe32(rec + 56, 100 + dev);
	PutBe32(rec + 60, 0x40000000 + dev);
	PutBe32(rec + 64, (uint32_t)(off >> 32));
	PutBe32(rec + 68, (uint32_t)off);
	fwrite(rec, 1, sizeof(rec), fp);
    }
    if (fclose(fp) != 0) {
	perror("genzipf: write");
	return 1;
    }
    free(cdf);
    return 0;
}
