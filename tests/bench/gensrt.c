/*
 * gensrt.c --
 *
 *	Writes a synthetic block-I/O trace for the benchmark: the same
 *	records as an SRT v7 file (doc/srt.n) and, optionally, as an
 *	MSR-Cambridge-style CSV
 *	(Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime, times
 *	in Windows 100 ns ticks).  The mix is meant to look like a storage
 *	server: 158 devices with Zipf-skewed popularity, 70% writes, sizes
 *	512 B..256 KiB mostly 4-64 KiB, half the I/Os sequential on their
 *	device, enqueue times increasing (exponential gaps, mean 50 us
 *	unless -gap says otherwise: tests want small traces that still span
 *	several 10 s intervals).  A fixed seed makes the output the same on
 *	every machine.
 *
 *	gensrt ?-n records? ?-gap us? ?-seed n? ?-srt out.srt? ?-csv out.csv?
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDEVICES	158
#define EPOCH_SEC	1700000000LL	/* Unix time of the first I/O */
#define FILETIME_UNIX	116444736000000000LL /* 1970 in Windows ticks */
#define READ_BIT	0x00080000u
#define DEVICE_BYTES	(1ULL << 40)	/* 1 TiB: offsets need word 16 */

static uint64_t rngState;

/*
 * Rand64 --
 *	splitmix64: a small, fast generator that is the same everywhere.
 */
static uint64_t
Rand64(void)
{
    uint64_t z = (rngState += 0x9E3779B97F4A7C15ULL);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/*
 * RandUnit --
 *	A uniform double in [0, 1).
 */
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
 * PickSize --
 *	A request size: powers of two from 512 B to 256 KiB weighted towards
 *	4-64 KiB, and one in ten an odd multiple of 4 KiB in that range.
 */
static uint32_t
PickSize(void)
{
    static const struct { double p; uint32_t size; } mix[] = {
	{0.02, 512}, {0.02, 1024}, {0.03, 2048}, {0.27, 4096},
	{0.18, 8192}, {0.11, 16384}, {0.09, 32768}, {0.08, 65536},
	{0.06, 131072}, {0.04, 262144}
    };
    double u = RandUnit();
    size_t i;

    if (u < 0.10) {
	return 4096 * (1 + (uint32_t)(Rand64() % 16));
    }
    u = (u - 0.10) / 0.90;
    for (i = 0; i < sizeof(mix) / sizeof(mix[0]) - 1; i++) {
	if (u < mix[i].p) {
	    return mix[i].size;
	}
	u -= mix[i].p;
    }
    return mix[i].size;
}

/*
 * Usage --
 *	Prints the usage and exits with status 2.
 */
static void
Usage(void)
{
    fprintf(stderr, "usage: gensrt ?-n records? ?-gap us? ?-seed n? ?-srt out.srt? "
	    "?-csv out.csv?\n");
    exit(2);
}

/*
 * OpenOut --
 *	Opens path for writing with a large buffer, or exits with a message.
 */
static FILE *
OpenOut(const char *path)
{
    FILE *fp = fopen(path, "wb");

    if (fp == NULL) {
	perror(path);
	exit(1);
    }
    setvbuf(fp, NULL, _IOFBF, 1 << 20);
    return fp;
}

/*
 * main --
 *	Generates the records and writes each to every output asked for.
 */
int
main(int argc, char **argv)
{
    long long n = 10000000, i;
    double gap = 50.0;			/* mean gap between enqueues, us */
    const char *srtPath = NULL, *csvPath = NULL;
    double cdf[NDEVICES], sum = 0;
    uint64_t next[NDEVICES];
    int64_t us = 0;			/* enqueue time, us after EPOCH_SEC */
    FILE *srt = NULL, *csv = NULL;
    int a, d;

    rngState = 42;
    for (a = 1; a < argc; a++) {
	if (a + 1 >= argc) {
	    Usage();
	}
	if (strcmp(argv[a], "-n") == 0) {
	    n = atoll(argv[++a]);
	} else if (strcmp(argv[a], "-gap") == 0) {
	    gap = atof(argv[++a]);
	} else if (strcmp(argv[a], "-seed") == 0) {
	    rngState = strtoull(argv[++a], NULL, 10);
	} else if (strcmp(argv[a], "-srt") == 0) {
	    srtPath = argv[++a];
	} else if (strcmp(argv[a], "-csv") == 0) {
	    csvPath = argv[++a];
	} else {
	    Usage();
	}
    }
    if (srtPath == NULL && csvPath == NULL) {
	Usage();
    }

    /* Zipf (s = 1) popularity: device 1 is the busiest. */
    for (d = 0; d < NDEVICES; d++) {
	sum += 1.0 / (d + 1);
	cdf[d] = sum;
	next[d] = 0;
    }
    for (d = 0; d < NDEVICES; d++) {
	cdf[d] /= sum;
    }

    if (srtPath) {
	srt = OpenOut(srtPath);
	fprintf(srt, "$$TR_IOREC-1.7 : synthetic benchmark trace for Rubicon"
		"\nversion = 1.7;\n# It contains shortIO_v7 records\n"
		"# gensrt: %lld records, %d devices\n"
		"tracedate = Tue Nov 14 22:13:20 2023\n\f", n, NDEVICES);
    }
    if (csvPath) {
	csv = OpenOut(csvPath);
    }
    for (i = 0; i < n; i++) {
	unsigned char rec[88];
	double u = RandUnit();
	int lo = 0, hi = NDEVICES - 1, isRead;
	uint32_t size, resp, dev;
	uint64_t off;

	us += (int64_t)(-gap * log(1.0 - RandUnit()));
	while (lo < hi) {
	    int mid = (lo + hi) / 2;

	    if (u < cdf[mid]) {
		hi = mid;
	    } else {
		lo = mid + 1;
	    }
	}
	dev = (uint32_t)lo + 1;
	isRead = RandUnit() < 0.30;
	size = PickSize();
	if (Rand64() & 1) {
	    off = next[lo];
	} else {
	    off = (Rand64() % (DEVICE_BYTES / 512)) * 512;
	}
	if (off + size > DEVICE_BYTES) {
	    off = 0;
	}
	next[lo] = off + size;
	resp = isRead ? 500 + (uint32_t)(Rand64() % 19500)
		: 100 + (uint32_t)(Rand64() % 1900);

	if (srt) {
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
	    PutBe32(rec + 56, 100 + dev % 16);
	    PutBe32(rec + 60, 0x40000000 + dev);
	    PutBe32(rec + 64, (uint32_t)(off >> 32));
	    PutBe32(rec + 68, (uint32_t)off);
	    fwrite(rec, 1, sizeof(rec), srt);
	}
	if (csv) {
	    fprintf(csv, "%lld,bench,%u,%s,%llu,%u,%u\n",
		    FILETIME_UNIX + (EPOCH_SEC * 1000000 + us) * 10,
		    dev, isRead ? "Read" : "Write", (unsigned long long)off,
		    size, resp * 10);
	}
    }
    if ((srt && fclose(srt) != 0) || (csv && fclose(csv) != 0)) {
	perror("gensrt: write");
	return 1;
    }
    return 0;
}
