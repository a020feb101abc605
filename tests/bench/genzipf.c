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
 *	genzipf ?-n records? ?-blocks B? ?-s exponent? ?-seed n? out.srt
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
 * Usage --
 *	Prints the usage and exits with status 2.
 */
static void
Usage(void)
{
    fprintf(stderr, "usage: genzipf ?-n records? ?-blocks B? ?-s exponent? "
	    "?-seed n? out.srt\n");
    exit(2);
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
    int a;

    rngState = 7;
    for (a = 1; a < argc; a++) {
	if (argv[a][0] != '-') {
	    path = argv[a];
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
    fprintf(fp, "$$TR_IOREC-1.7 : Zipf block trace for Rubicon's benchmark"
	    "\nversion = 1.7;\n# It contains shortIO_v7 records\n"
	    "# genzipf: %lld records, %ld blocks, s = %g\n"
	    "tracedate = Tue Nov 14 22:13:20 2023\n\f", n, blocks, s);
    for (i = 0; i < n; i++) {
	unsigned char rec[88];
	double u = RandUnit() * sum, v;
	long lo = 0, hi = blocks - 1;
	uint32_t size, resp, dev;
	uint64_t off;
	int isRead;

	us += (int64_t)(-50.0 * log(1.0 - RandUnit()));
	while (lo < hi) {
	    long mid = (lo + hi) / 2;

	    if (u < cdf[mid]) {
		hi = mid;
	    } else {
		lo = mid + 1;
	    }
	}
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
