/*
 * test_textfast.c --
 *
 *	The fast paths of the text readers against their slow paths: every
 *	line a fast path takes must give the record the general splitter and
 *	parser give, and every line it declines must still be reported as
 *	before (same kind, line, byte offset, skip counters).  The inputs are
 *	hand-made edge cases and random lines built from pieces that are
 *	each valid or slightly off; each file is read twice, once with
 *	RUBICON_TEXT_SLOW set (no fast path), and everything compared.  The
 *	slow path itself is checked by hand in test_readers.c.
 */

#include <zlib.h>
#include "rbtest.h"
#include "io/text.h"

void RbReaderKitInit(void);

/* Everything a read gives: the records, the skip counters, the error. */
typedef struct Result {
    int n, cap;
    int64_t *v;			/* n records of RB_IO_NFIELDS values */
    int64_t epochNs;
    uint64_t skipped;
    char skipCounts[512];
    int rc;
    Rb_Error err;
    uint64_t fastLines;		/* lines the fast path took */
} Result;

static void
Setup(void)
{
    RbReaderKitInit();
    rbtest_tmpdir_make("textfast");
}

static void
Teardown(void)
{
    rbtest_tmpdir_remove();
}

/*
 * ReadAll --
 *	Reads path as format (with readeroptions opts, or NULL) under
 *	policy, with or without the fast path.
 */
static void
ReadAll(Result *res, const char *path, const char *format, const char *opts,
	Rb_OnError policy, int slow)
{
    Tcl_Obj *o = opts ? Tcl_NewStringObj(opts, -1) : NULL;
    Rb_Reader *r;
    Rb_Batch *b;
    int i, f;

    memset(res, 0, sizeof(*res));
    if (slow) {
	setenv("RUBICON_TEXT_SLOW", "1", 1);
    } else {
	unsetenv("RUBICON_TEXT_SLOW");
    }
    if (o != NULL) {
	Tcl_IncrRefCount(o);
    }
    r = Rb_ReaderOpen(path, format, policy, o, &res->err);
    if (o != NULL) {
	Tcl_DecrRefCount(o);
    }
    unsetenv("RUBICON_TEXT_SLOW");
    ck_assert_ptr_nonnull(r);
    /* The hand-made lines try the extremes of times: no -maxgap. */
    r->maxGap = 0;
    b = Rb_BatchCreate(r->schema, 0);
    do {
	Rb_BatchClear(b);
	res->rc = Rb_ReaderNext(r, b, &res->err);
	for (i = 0; i < b->n; i++, res->n++) {
	    if (res->n == res->cap) {
		res->cap = res->cap ? 2 * res->cap : 256;
		res->v = realloc(res->v, (size_t)res->cap * RB_IO_NFIELDS
			* sizeof(int64_t));
	    }
	    for (f = 0; f < RB_IO_NFIELDS; f++) {
		res->v[(size_t)res->n * RB_IO_NFIELDS + f] = b->col[f][i];
	    }
	}
    } while (res->rc > 0);
    res->epochNs = r->epochNs;
    /* Every text reader's state starts with its Rb_Text. */
    res->fastLines = ((Rb_Text *)r->state)->fastLines;
    res->skipped = r->skipped;
    snprintf(res->skipCounts, sizeof(res->skipCounts), "%s",
	    Tcl_GetString(r->skipCounts));
    Rb_BatchFree(b);
    Rb_ReaderClose(r);
}

static uint64_t lastFastLines;	/* of the last SameBothWays, under skip */

/*
 * SameBothWays --
 *	Reads path fast and slow under skip and under stop and checks that
 *	the results are the same, and that the slow reads took no line
 *	through the fast path.
 * Results: records read fast under skip; lastFastLines set.
 */
static int
SameBothWays(const char *path, const char *format, const char *opts)
{
    static const Rb_OnError policies[] = {RB_ONERROR_SKIP, RB_ONERROR_STOP};
    Result fast, slow;
    int p, n = 0;

    for (p = 0; p < 2; p++) {
	ReadAll(&fast, path, format, opts, policies[p], 0);
	ReadAll(&slow, path, format, opts, policies[p], 1);
	ck_assert_int_eq(fast.n, slow.n);
	ck_assert_int_eq(fast.rc, slow.rc);
	ck_assert_int_eq(fast.epochNs, slow.epochNs);
	ck_assert_int_eq(fast.skipped, slow.skipped);
	ck_assert_str_eq(fast.skipCounts, slow.skipCounts);
	ck_assert_str_eq(fast.err.msg, slow.err.msg);
	ck_assert_str_eq(fast.err.code, slow.err.code);
	ck_assert(fast.n == 0 || memcmp(fast.v, slow.v, (size_t)fast.n
		* RB_IO_NFIELDS * sizeof(int64_t)) == 0);
	ck_assert_int_eq(slow.fastLines, 0);
	if (p == 0) {
	    n = fast.n;
	    lastFastLines = fast.fastLines;
	}
	free(fast.v);
	free(slow.v);
    }
    return n;
}

static uint64_t rngState = 0x9e3779b97f4a7c15ULL;

static uint64_t
Rand(void)
{
    rngState ^= rngState << 13;
    rngState ^= rngState >> 7;
    rngState ^= rngState << 17;
    return rngState;
}

/*
 * RefDigits --
 *	RbTextDigits the plain way, a character at a time.
 */
static const char *
RefDigits(const char *p, char stop, int64_t *v)
{
    uint64_t x = 0;
    int n = 0;

    for (; *p >= '0' && *p <= '9'; p++, n++) {
	x = x * 10 + (uint64_t)(*p - '0');
    }
    if (n == 0 || n > 18 || *p != stop) {
	return NULL;
    }
    *v = (int64_t)x;
    return p + 1;
}

/*
 * Every run length from 0 to 24, at every alignment, followed by each
 * byte next to the digits in the code table, a non-ASCII byte, and the
 * stop; with random digits and random bytes after the run.
 */
START_TEST(digits_agree_with_one_at_a_time)
{
    static const char after[] = {',', '\0', '/', ':', ' ', '.', 'x',
	    (char)0x80, (char)0xb9, (char)0xff, '9' + 7, '0' - 1};
    char buf[64 + RB_INPUT_PAD];
    int64_t v;
    int len, align, k, trial, checked = 0;

    for (trial = 0; trial < 20; trial++) {
	for (len = 0; len <= 24; len++) {
	    for (align = 0; align < 8; align++) {
		for (k = 0; k < (int)sizeof(after); k++) {
		    char *p = buf + align;
		    int64_t v1 = -1, v2 = -1;
		    const char *e1, *e2;
		    int j;

		    for (j = 0; j < (int)sizeof(buf); j++) {
			buf[j] = (char)Rand();
		    }
		    for (j = 0; j < len; j++) {
			p[j] = (char)('0' + Rand() % 10);
		    }
		    p[len] = after[k];
		    e1 = RbTextDigits(p, ',', &v1);
		    e2 = RefDigits(p, ',', &v2);
		    ck_assert_ptr_eq(e1, e2);
		    ck_assert_int_eq(v1, v2);
		    checked += e1 != NULL;
		}
	    }
	}
    }
    /* Lengths 1 to 18 followed by ',': 18 * 8 alignments * 20 trials. */
    ck_assert_int_eq(checked, 18 * 8 * 20);
    ck_assert_ptr_null(RbTextDigits("1234567890123456789,        ", ',',
	    &v));
}
END_TEST

/*
 * The hand-made MSR lines: each valid one at the edge of what the fast
 * path takes, and each one it must decline, valid or not.
 */
static const char *const msrLines[] = {
    "128166372000000000,web,1,Read,4096,8192,1000",
    "128166372000000001,web,1,Write,0,512,0",
    "128166372000000002,w,0,Read,000000000000000007,1,10000000000000000",
    "128166372000000003,w,0,Read,7,1,10000000000000001",	/* too long */
    "128166372000000004,a b,999999999999999999,Read,1,1,1",
    "128166372000000005,a,1000000000000000000,Read,1,1,1",	/* 19 digits */
    "128166372000000006, web,1,Read,1,1,1",
    "128166372000000007,web\t,1,Read,1,1,1",
    "128166372000000008,,1,Read,1,1,1",
    "128166372000000009,web,+1,Read,1,1,1",
    "128166372000000010,web,-1,Read,1,1,1",
    "128166372000000011,web,1,read,1,1,1",
    "128166372000000012,web,1,WRITE,1,1,1",
    "128166372000000013,web,1,Reads,1,1,1",
    "128166372000000014,web,1,Rea,1,1,1",
    "128166372000000015,web,1,Trim,1,1,1",
    "128166372000000016,web,1, Read,1,1,1",
    "128166372000000017,web,1,Read,1,1,1,",
    "128166372000000018,web,1,Read,1,1,1,9",
    "128166372000000019,web,1,Read,1,1",
    "128166372000000020,web,1,Read,1,,1",
    "128166372000000021,web,1,Read,1,1,1 ",
    "128166372000000022,web,1,Read,1,1x,1",
    "128166372000000023,web,1,Read,1,1,1\r",
    "128166372000000024,web,1,Read,1,1,1.5",
    "128166372000000025,web,1,Read,1e3,1,1",
    "128166372000000026,0123456789012345678901234567890,1,Read,1,1,1",
    "128166372000000027,01234567890123456789012345678901,1,Read,1,1,1",
    "128166372000000028,web,1,Read,1,1,1",
    "128166372000000027,web,1,Read,1,1,1",		/* goes back */
    "+128166372000000029,web,1,Read,1,1,1",
    "0128166372000000030,web,1,Read,1,1,1",		/* 19 digits */
    "956444736000000000,web,1,Read,1,1,1",		/* out of range */
    "99999999999999999,web,1,Read,1,1,1",
    "",
    "   ",
    "# a comment",
    "#128166372000000031,web,1,Read,1,1,1",
    "128166372000000032,web,1,Read,1,1,1",
    "128166372000000033,webx,1,Read,1,1,1",
    "128166372000000034,web,1,Read,1,1,1",
    "128166372000000035,we,1,Read,1,1,1",
};

START_TEST(msr_hand_made_lines)
{
    const char *path = rbtest_tmp("hand.csv");
    Tcl_DString ds;
    size_t k;

    Tcl_DStringInit(&ds);
    for (k = 0; k < sizeof(msrLines) / sizeof(msrLines[0]); k++) {
	Tcl_DStringAppend(&ds, msrLines[k], -1);
	Tcl_DStringAppend(&ds, "\n", 1);
    }
    Tcl_DStringAppend(&ds, "128166372000000036,web,1,Write,1,1,77", -1);
    rbtest_write_file(path, Tcl_DStringValue(&ds),
	    (size_t)Tcl_DStringLength(&ds));
    Tcl_DStringFree(&ds);
    /* Counted by hand: the lines above that are valid MSR lines. */
    ck_assert_int_eq(SameBothWays(path, "msr", NULL), 25);
    ck_assert_int_gt(lastFastLines, 0);
}
END_TEST

/*
 * Pieces of random lines: mostly the usual form, sometimes a piece that
 * the fast path must decline.
 */
static const char *const hosts[] = {
    "hm", "hm", "hm", "web", "src1", "a b", " hm", "", "prxy",
};
static const char *const types[] = {
    "Read", "Write", "Read", "Write", "read", "WRITE", "Trim", "Re",
};

/*
 * RandomNumber --
 *	Usually a plain number of up to 13 digits; now and then one with a
 *	sign, leading zeros, 18 to 20 digits, blanks, a fraction or nothing.
 */
static void
RandomNumber(Tcl_DString *ds)
{
    char buf[64];
    unsigned k = (unsigned)(Rand() % 40);

    switch (k) {
    case 0: Tcl_DStringAppend(ds, "+12", -1); return;
    case 1: Tcl_DStringAppend(ds, "-3", -1); return;
    case 2: Tcl_DStringAppend(ds, "0000000000000000042", -1); return;
    case 3: Tcl_DStringAppend(ds, "999999999999999999", -1); return;
    case 4: Tcl_DStringAppend(ds, "99999999999999999999", -1); return;
    case 5: Tcl_DStringAppend(ds, " 5", -1); return;
    case 6: Tcl_DStringAppend(ds, "1.5", -1); return;
    case 7: return;
    case 8: Tcl_DStringAppend(ds, "10000000000000000", -1); return;
    case 9: Tcl_DStringAppend(ds, "10000000000000001", -1); return;
    }
    snprintf(buf, sizeof(buf), "%llu",
	    (unsigned long long)(Rand() % (1ULL << (Rand() % 44))));
    Tcl_DStringAppend(ds, buf, -1);
}

START_TEST(msr_random_lines)
{
    const char *path = rbtest_tmp("random.csv");
    uint64_t ticks = 128166372000000000ULL;
    Tcl_DString ds;
    char buf[64];
    int line, taken;

    Tcl_DStringInit(&ds);
    for (line = 0; line < 20000; line++) {
	unsigned odd = (unsigned)(Rand() % 100);

	ticks += Rand() % 1000;
	if (odd == 0) {
	    ticks -= 5000;		/* goes back */
	}
	snprintf(buf, sizeof(buf), odd == 1 ? "%llux" : "%llu",
		(unsigned long long)ticks);
	Tcl_DStringAppend(&ds, buf, -1);
	Tcl_DStringAppend(&ds, ",", 1);
	Tcl_DStringAppend(&ds, hosts[Rand() % (sizeof(hosts)
		/ sizeof(hosts[0]))], -1);
	Tcl_DStringAppend(&ds, ",", 1);
	RandomNumber(&ds);
	Tcl_DStringAppend(&ds, ",", 1);
	Tcl_DStringAppend(&ds, types[Rand() % (sizeof(types)
		/ sizeof(types[0]))], -1);
	Tcl_DStringAppend(&ds, ",", 1);
	RandomNumber(&ds);
	Tcl_DStringAppend(&ds, ",", 1);
	RandomNumber(&ds);
	Tcl_DStringAppend(&ds, ",", 1);
	RandomNumber(&ds);
	Tcl_DStringAppend(&ds, odd == 2 ? ",1\n" : odd == 3 ? "\r\n"
		: odd == 4 ? "\n\n" : "\n", -1);
    }
    rbtest_write_file(path, Tcl_DStringValue(&ds),
	    (size_t)Tcl_DStringLength(&ds));
    Tcl_DStringFree(&ds);
    taken = SameBothWays(path, "msr", NULL);
    /* Some lines of each kind: good ones, and ones skipped. */
    ck_assert_int_gt(taken, 1000);
    ck_assert_int_lt(taken, 20000);
    ck_assert_int_gt(lastFastLines, 1000);
}
END_TEST

/*
 * WriteLines --
 *	Writes n lines to path, each ended by a newline.
 */
static void
WriteLines(const char *path, const char *const *lines, size_t n)
{
    Tcl_DString ds;
    size_t k;

    Tcl_DStringInit(&ds);
    for (k = 0; k < n; k++) {
	Tcl_DStringAppend(&ds, lines[k], -1);
	Tcl_DStringAppend(&ds, "\n", 1);
    }
    rbtest_write_file(path, Tcl_DStringValue(&ds),
	    (size_t)Tcl_DStringLength(&ds));
    Tcl_DStringFree(&ds);
}

/*
 * Decimals worked by hand, then every length of whole part (0 to 20
 * digits) and of fraction (none, a bare point, 1 to 12 digits) at each
 * scale the readers use: whatever RbTextDecimal takes, RbParseScaled
 * must give the same value for; and the short ones it must take.
 */
START_TEST(decimal_agrees_with_parse_scaled)
{
    static const int64_t scales[] = {
	1, 100, 1000, 1000000, 1000000000, 1000000000000LL,
    };
    static const struct { const char *s; int64_t scale, v; } hand[] = {
	{"1.5,", 1, 2}, {"2.5,", 1, 3}, {"0.4999,", 1, 0},
	{"0.011413,", 1000000000, 11413000}, {"12.3456789,", 1000, 12346},
	{"9223372036.854775807,", 1000000000, INT64_MAX},
	{"7,", 1000000000000LL, 7000000000000LL},
    };
    char buf[96 + RB_INPUT_PAD], text[96];
    int64_t v, v2;
    const char *e;
    int nw, nf, k, j, trial, taken = 0;
    size_t h;

    for (h = 0; h < sizeof(hand) / sizeof(hand[0]); h++) {
	memset(buf, 0, sizeof(buf));
	strcpy(buf, hand[h].s);
	e = RbTextDecimal(buf, hand[h].scale, &v);
	ck_assert_ptr_eq(e, buf + strlen(buf) - 1);
	ck_assert_int_eq(v, hand[h].v);
    }
    memset(buf, 0, sizeof(buf));
    strcpy(buf, "9223372036.854775808,");
    ck_assert_ptr_null(RbTextDecimal(buf, 1000000000, &v));
    for (trial = 0; trial < 10; trial++) {
	for (nw = 0; nw <= 20; nw++) {
	    for (nf = -2; nf <= 12; nf++) {
		for (k = 0; k < (int)(sizeof(scales) / sizeof(scales[0]));
			k++) {
		    char *p = text;

		    for (j = 0; j < nw; j++) {
			*p++ = (char)('0' + Rand() % 10);
		    }
		    if (nf >= -1) {
			*p++ = '.';
		    }
		    for (j = 0; j < nf; j++) {
			*p++ = (char)('0' + Rand() % 10);
		    }
		    *p = '\0';
		    memset(buf, 0, sizeof(buf));
		    snprintf(buf, sizeof(buf), "%s,", text);
		    e = RbTextDecimal(buf, scales[k], &v);
		    if (e != NULL) {
			ck_assert_ptr_eq(e, buf + strlen(text));
			ck_assert(RbParseScaled(text, scales[k], &v2));
			ck_assert_int_eq(v, v2);
			taken++;
		    } else {
			/* Short numbers at small scales cannot overflow
			 * and must be taken. */
			ck_assert(!(nw >= 1 && nw <= 9 && (nf == -2
				|| (nf >= 1 && nf <= 9))
				&& scales[k] <= 1000000000));
		    }
		}
	    }
	}
    }
    ck_assert_int_gt(taken, 10 * 9 * 10 * 5);
}
END_TEST

/*
 * SPC lines at the edges, their times increasing but where said.
 * Counted by hand: lines 1-11, 15, 16, 18 and 21-24 are valid (18).
 */
static const char *const spcLines[] = {
    "0,657728,8192,R,1.011413",
    "1,31244784,32768,w,2.011565",
    "1,21868784,8192,r,3.011721,extra,9",
    "2,0,512,W,4",
    "3,1,512,R,5.0000000001",
    "3,1,512,R,6.",
    "3,1,512,R,7e0",
    " 3,1,512,R,8",
    "3 ,1,512,R,9",
    "3,1,512, R,10",
    "3,1,512,R,11 ",
    "3,1,512,x,12",				/* bad-op */
    "3,1,512,RW,13",				/* bad-op */
    "3,1,512,R",				/* short */
    "3,1,512,R,14.5,",
    "+3,1,512,R,16",
    "3,18014398509481984,512,R,17",		/* LBA * 512 overflows */
    "3,18014398509481983,512,R,18",
    "3,1,512,R,0x10",				/* not a time */
    "3,1,512,R,9.5",				/* goes back */
    "3,1,512,R,21.9999999995",
    "3,1,512,R,22.4999999995",
    "3,1,512,R,23.123456789",
    "3,1,512,R,9223372036.854775807",
    "3,1,512,R,9223372036.854775808",		/* overflows */
    "",
    "# a comment",
    "3,1,512,R,9223372037",			/* overflows */
};

START_TEST(spc_hand_made_lines)
{
    const char *path = rbtest_tmp("hand.spc");

    WriteLines(path, spcLines, sizeof(spcLines) / sizeof(spcLines[0]));
    ck_assert_int_eq(SameBothWays(path, "spc", NULL), 18);
    /* By hand: lines 1-4, 15, 18, 20 (then dropped as out of order),
     * 23 and 24 are plain enough. */
    ck_assert_int_eq(lastFastLines, 9);
}
END_TEST

/*
 * DiskSim lines in whole nanoseconds (the first line decides).
 * Counted by hand: lines 1-3, 8-12, 17 and 18 are valid (10).
 */
static const char *const diskSimLines[] = {
    "11413000 0 657728 16 1",
    "11565000 1 31244784 64 1",
    "  11721000\t1 21868784 16 0  ",
    "11800000 1 2 3",				/* short */
    "11800001 1 2 3 4 5",			/* long */
    "11800002 1 2 3 x",				/* bad type */
    "11800003 1 18014398509481984 1 1",		/* lba * 512 overflows */
    "11800004 1 18014398509481983 18014398509481983 1",
    "11800005.5 1 2 3 4",
    "11800006.4 1 2 3 4",
    "+11800007 1 2 3 4",
    "11800008 -1 2 3 4",
    "1 1 2 3 4",				/* goes back */
    "# 11800009 1 2 3 4",
    "",
    "11800010 1 2 3 4 # note",			/* long */
    "11800011 01 002 0003 00004",
    "1.2e7 1 2 3 4",
};

/* DiskSim in milliseconds with fractions, all valid (5). */
static const char *const diskSimMsLines[] = {
    "0.011413 0 657728 16 1",
    "1.5 1 8 8 0",
    "2.0000005 1 8 8 0",
    "3.00000049 1 8 8 0",
    "4 1 8 8 0",
};

START_TEST(disksim_hand_made_lines)
{
    const char *path = rbtest_tmp("hand.trace");

    WriteLines(path, diskSimLines, sizeof(diskSimLines)
	    / sizeof(diskSimLines[0]));
    ck_assert_int_eq(SameBothWays(path, "disksim", NULL), 10);
    /* By hand: lines 1-3, 8-10, 13 (then dropped as out of order) and
     * 17 are plain enough. */
    ck_assert_int_eq(lastFastLines, 8);
    WriteLines(path, diskSimMsLines, sizeof(diskSimMsLines)
	    / sizeof(diskSimMsLines[0]));
    ck_assert_int_eq(SameBothWays(path, "disksim", NULL), 5);
    ck_assert_int_eq(lastFastLines, 5);
}
END_TEST

/*
 * CSV through a column map, column 1 not mapped, op values in hex as
 * CloudPhysics writes them.  Counted by hand: lines 1-4, 6, 8-11, 13,
 * 16 and 18 are valid (12).
 */
static const char csvOptions[] = "columns {time 2 op 3 size 4 offset 5 "
	"response 6 deviceNo 7} timeunit us offsetunit 512 readvalue 28 "
	"writevalue 2a";
static const char *const csvLines[] = {
    "v1,100,28,4096,8,50,3",
    "v1,200,2a,4096,16,,3",
    "v1,300,2A,4096,16,5,3,extra",
    "v1,400,28,4096,16,5,",
    "v1,500,29,4096,16,5,1",			/* bad op */
    "v1,600,28,0x1000,16,5,1",
    "v1,700,28,4096,16,5",			/* short */
    ",800,28,4096,16,5,1",
    "v1,900.5,28,4096,16,5,1",
    "v1, 1000,28,4096,16,5,1",
    "v1,1100,28 ,4096,16,5,1",
    "v1,,28,4096,16,5,1",			/* no time */
    "v1,1200,28,4096,-16,5,1",
    "v1,50,28,4096,16,5,1",			/* goes back */
    "# v1,1300,28,4096,16,5,1",
    "v1,1400,28,4096,16,5,1",
    "v1,1500,28,4096,16,9223372036854775,1",	/* finish overflows */
    "v1,1600,28,4096,16,5,18014398509481984",
};

START_TEST(csv_hand_made_lines)
{
    const char *path = rbtest_tmp("hand.csv");

    WriteLines(path, csvLines, sizeof(csvLines) / sizeof(csvLines[0]));
    ck_assert_int_eq(SameBothWays(path, "csv", csvOptions), 12);
    /* By hand: lines 1-4, 8, 9, 14 (then dropped as out of order), 16
     * and 18 are plain enough. */
    ck_assert_int_eq(lastFastLines, 9);
}
END_TEST

/*
 * RandomTime --
 *	The next time of a random line, usually later than the last; now
 *	and then with a fraction, a sign, blanks or nothing.
 */
static void
RandomTime(Tcl_DString *ds, uint64_t *t)
{
    char buf[64];
    unsigned k = (unsigned)(Rand() % 30);

    *t += Rand() % 1000;
    switch (k) {
    case 0: snprintf(buf, sizeof(buf), "%llu.%llu", (unsigned long long)*t,
		(unsigned long long)(Rand() % 100000000000ULL)); break;
    case 1: snprintf(buf, sizeof(buf), "%llu.%03llu", (unsigned long long)*t,
		(unsigned long long)(Rand() % 1000)); break;
    case 2: snprintf(buf, sizeof(buf), "+%llu", (unsigned long long)*t); break;
    case 3: snprintf(buf, sizeof(buf), " %llu", (unsigned long long)*t); break;
    case 4: snprintf(buf, sizeof(buf), "%llu", (unsigned long long)*t / 2);
	break;
    case 5: buf[0] = '\0'; break;
    case 6: snprintf(buf, sizeof(buf), "%llue0", (unsigned long long)*t);
	break;
    default: snprintf(buf, sizeof(buf), "%llu", (unsigned long long)*t);
    }
    Tcl_DStringAppend(ds, buf, -1);
}

/*
 * RandomLines --
 *	Writes n random lines to path: a time and then nfields - 1 fields,
 *	each a RandomNumber or, at the index op, one of ops; fields
 *	separated by sep (a string), with now and then an extra field, a
 *	CR, a blank line or a comment.
 */
static void
RandomLines(const char *path, int n, int nfields, int op,
	const char *const *ops, size_t nops, const char *sep)
{
    uint64_t t = 1000000;
    Tcl_DString ds;
    int line, f;

    Tcl_DStringInit(&ds);
    for (line = 0; line < n; line++) {
	unsigned odd = (unsigned)(Rand() % 100);

	if (odd == 0) {
	    Tcl_DStringAppend(&ds, "# comment", -1);
	}
	RandomTime(&ds, &t);
	for (f = 1; f < nfields; f++) {
	    Tcl_DStringAppend(&ds, sep, -1);
	    if (f == op) {
		Tcl_DStringAppend(&ds, ops[Rand() % nops], -1);
	    } else {
		RandomNumber(&ds);
	    }
	}
	Tcl_DStringAppend(&ds, odd == 2 ? ",1\n" : odd == 3 ? "\r\n"
		: odd == 4 ? "\n\n" : odd == 5 ? " 7\n" : "\n", -1);
    }
    rbtest_write_file(path, Tcl_DStringValue(&ds),
	    (size_t)Tcl_DStringLength(&ds));
    Tcl_DStringFree(&ds);
}

START_TEST(spc_random_lines)
{
    static const char *const ops[] = {"r", "w", "R", "W", "x", " r", "rw"};
    const char *path = rbtest_tmp("random.spc");
    Tcl_DString ds;
    int taken;

    /* SPC has the time last: the lines are made with it first and the
     * op at index 4, then each line's first field moved to its end. */
    RandomLines(path, 20000, 5, 4, ops, sizeof(ops) / sizeof(ops[0]), ",");
    Tcl_DStringInit(&ds);
    {
	/* Move each line's first field to its end. */
	FILE *in = fopen(path, "r");
	char line[512];

	ck_assert_ptr_nonnull(in);
	while (fgets(line, sizeof(line), in) != NULL) {
	    char *comma = strchr(line, ','), *nl = strchr(line, '\n');

	    if (comma == NULL || nl == NULL) {
		Tcl_DStringAppend(&ds, line, -1);
		continue;
	    }
	    *nl = '\0';
	    Tcl_DStringAppend(&ds, comma + 1, -1);
	    Tcl_DStringAppend(&ds, ",", 1);
	    Tcl_DStringAppend(&ds, line, (int)(comma - line));
	    Tcl_DStringAppend(&ds, "\n", 1);
	}
	fclose(in);
    }
    rbtest_write_file(path, Tcl_DStringValue(&ds),
	    (size_t)Tcl_DStringLength(&ds));
    Tcl_DStringFree(&ds);
    taken = SameBothWays(path, "spc", NULL);
    ck_assert_int_gt(taken, 1000);
    ck_assert_int_lt(taken, 20000);
    ck_assert_int_gt(lastFastLines, 1000);
}
END_TEST

START_TEST(disksim_random_lines)
{
    static const char *const types[] = {"0", "1", "3", "x"};
    const char *path = rbtest_tmp("random.trace");
    int taken;

    RandomLines(path, 20000, 5, 4, types, sizeof(types) / sizeof(types[0]),
	    " ");
    taken = SameBothWays(path, "disksim", NULL);
    ck_assert_int_gt(taken, 1000);
    ck_assert_int_lt(taken, 20000);
    ck_assert_int_gt(lastFastLines, 1000);
    RandomLines(path, 20000, 5, 4, types, sizeof(types) / sizeof(types[0]),
	    " \t ");
    taken = SameBothWays(path, "disksim", NULL);
    ck_assert_int_gt(taken, 1000);
    ck_assert_int_lt(taken, 20000);
    ck_assert_int_gt(lastFastLines, 1000);
}
END_TEST

START_TEST(csv_random_lines)
{
    static const char *const ops[] = {
	"28", "2a", "2A", "28", "2a", "29", " 28", "", "0x28",
    };
    static const char *const headerOps[] = {
	"0", "1", "read", "Write", "r", "x", "",
    };
    const char *path = rbtest_tmp("random.csv");
    static const char header[] = "time,finishTime,op,size,deviceNo,"
	    "devOffset,machine\n";
    Tcl_DString ds;
    char *text;
    long n;
    FILE *f;
    int taken;

    RandomLines(path, 20000, 7, 2, ops, sizeof(ops) / sizeof(ops[0]), ",");
    taken = SameBothWays(path, "csv", "columns {time 1 response 2 op 3 "
	    "size 4 deviceNo 6 offset 7} timeunit us offsetunit 512 "
	    "readvalue 28 writevalue 2a");
    ck_assert_int_gt(taken, 1000);
    ck_assert_int_lt(taken, 20000);
    ck_assert_int_gt(lastFastLines, 1000);

    /* A header naming the fields, as rubicon convert writes it. */
    RandomLines(path, 20000, 7, 2, headerOps, sizeof(headerOps)
	    / sizeof(headerOps[0]), ",");
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    text = malloc((size_t)n);
    ck_assert_int_eq(fread(text, 1, (size_t)n, f), n);
    fclose(f);
    Tcl_DStringInit(&ds);
    Tcl_DStringAppend(&ds, header, -1);
    Tcl_DStringAppend(&ds, text, (int)n);
    free(text);
    rbtest_write_file(path, Tcl_DStringValue(&ds),
	    (size_t)Tcl_DStringLength(&ds));
    Tcl_DStringFree(&ds);
    taken = SameBothWays(path, "csv", NULL);
    ck_assert_int_gt(taken, 1000);
    ck_assert_int_lt(taken, 20000);
    ck_assert_int_gt(lastFastLines, 1000);
}
END_TEST

/*
 * blkparse lines at the edges of the fast path: the common forms, and
 * each form it must leave to the parser (remap, split, flush without a
 * sector, an odd length, action, RWBS, device, time, pid or error),
 * then the closing summary, after which nothing is read.
 */
static const char *const blkparseLines[] = {
    "  8,16   5        1     0.000000000 18615  A   R 1444645666 + 256 "
	    "<- (8,17) 1444645632",
    "  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]",
    "  8,16   5        3     0.000006438 18615  G   R 1444645666 + 256 [java]",
    "  8,16   5        4     0.000008750 18615  P   N [java]",
    "  8,16   5        5     0.000009980 18615  I   R 1444645666 + 256 [java]",
    "  8,16   5        6     0.000010000 18615  D   R 1444645666 + 256 [java]",
    "  8,16   5        7     0.000200000     0  C   R 1444645666 + 256 [0]",
    "  8,16   5        8     0.000300000 18615  Q  WS 100 + 8 [flush]",
    "  8,16   5        9     0.000400000 18615  D  WS 100 + 8 [flush]",
    "  8,16   5       10     0.000500000     0  C  WS 100 + 8 [-5]",
    "  8,16   5       11     0.000600000 18615  Q  FWS [kworker]",
    "  8,16   5       12     0.000700000 18615  Q   R 200 + 8x [java]",
    "  8,16   5       13     0.000800000 18615  Q   R 300 / 4 [java]",
    "  8,16   5       14     0.000900000 18615  X   R 300 / 304 [java]",
    "  8,16   5       15     0.001000000 18615  Q   R 400 + 8 [java]",
    "  8,16   5       16     0.001100000 18615  Q2  R 500 + 8 [java]",
    "  8,16   5       17     0.001200000 18615  Q   Z 600 + 8 [java]",
    "  8,16   5       18     0.001300000 18615  Q   R 700 + 8",
    "  8,16   5       19     0.001400000 18615  C   R 700 [0]",
    "  8,16   5       20     0.0015 18615  D   R 400 + 8 [java]",
    "  8,16   5       21     1.5e-3 18615  C   R 400 + 8 [0]",
    "4096,16   5       22     0.001600000 18615  Q   R 800 + 8 [java]",
    "  8,16   5       23     0.001700000 18615",
    "  8,16   5       24     0.001800000 -1  Q   R 900 + 8 [java]",
    "  8,16   5       25     0.001900000 18615  C   R 800 + 8 [x]",
    "CPU5 (sdb):",
    " Reads Queued:           2,        8KiB",
    "  8,16   5       26     0.002000000 18615  Q   R 1000 + 8 [java]",
};

START_TEST(blkparse_hand_made_lines)
{
    const char *path = rbtest_tmp("hand.blkparse");

    WriteLines(path, blkparseLines, sizeof(blkparseLines)
	    / sizeof(blkparseLines[0]));
    ck_assert_int_gt(SameBothWays(path, "blkparse", NULL), 0);
    /* By hand: lines 1-10, 15, 18 and 20 are plain enough; none after
     * the summary is offered. */
    ck_assert_int_eq(lastFastLines, 13);
}
END_TEST

/*
 * The real blkparse sample, as it is and with one line in ten changed
 * at a random place: a character replaced by one that matters to the
 * parser, or removed.
 */
START_TEST(blkparse_real_and_mutated_lines)
{
    static const char swaps[] = " \t,.+-[]9xAXC/";
    const char *path = rbtest_tmp("mutated.blkparse");
    gzFile in = gzopen(rbtest_data("blkparse/hadoop-sdb-cfq.txt.gz"), "r");
    Tcl_DString ds;
    char line[1024];
    int taken, lines = 0;

    ck_assert_ptr_nonnull(in);
    taken = SameBothWays(rbtest_data("blkparse/hadoop-sdb-cfq.txt.gz"),
	    "blkparse", NULL);
    ck_assert_int_gt(taken, 100);
    /* 50,000 lines, all in the common form but 4, found with awk: the
     * two-letter action "UT" at lines 202, 8041 and 23982 and the
     * completion without a length "C WS 1950885322 [0]" at line 804. */
    ck_assert_int_eq(lastFastLines, 49996);
    Tcl_DStringInit(&ds);
    while (gzgets(in, line, sizeof(line)) != NULL && lines++ < 20000) {
	size_t n = strlen(line);

	if (n > 2 && Rand() % 10 == 0) {
	    size_t at = (size_t)(Rand() % (n - 1));

	    if (Rand() % 4 == 0) {
		memmove(line + at, line + at + 1, n - at);
	    } else {
		line[at] = swaps[Rand() % (sizeof(swaps) - 1)];
	    }
	}
	Tcl_DStringAppend(&ds, line, -1);
    }
    gzclose(in);
    rbtest_write_file(path, Tcl_DStringValue(&ds),
	    (size_t)Tcl_DStringLength(&ds));
    Tcl_DStringFree(&ds);
    ck_assert_int_gt(SameBothWays(path, "blkparse", NULL), 10);
    ck_assert_int_gt(lastFastLines, 10000);
}
END_TEST

/*
 * Records are cleared a batch at a time and a record not kept is cleared
 * again: a line rejected after some of its fields were stored, or dropped
 * as out of order, leaves nothing in the next record.  Lines (time ns,
 * size, deviceNo; an empty field is absent): 1 good; 2 size stored, then
 * a bad deviceNo; 3 nothing but the time; 4 out of order; 5 nothing but
 * the time.  Under skip: times 1, 3, 5, size 100 then absent.
 */
START_TEST(rejected_records_leave_nothing_behind)
{
    static const char text[] = "1,100,3\n2,200,x\n3,,\n0,500,7\n5,,\n";
    const char *path = rbtest_tmp("clear.csv");
    Rb_Error err;
    Rb_Reader *r;
    Rb_Batch *b;
    Tcl_Obj *opts = Tcl_NewStringObj("columns {time 1 size 2 deviceNo 3}",
	    -1);
    int rc;

    rbtest_write_file(path, text, sizeof(text) - 1);
    Tcl_IncrRefCount(opts);
    r = Rb_ReaderOpen(path, "csv", RB_ONERROR_SKIP, opts, &err);
    Tcl_DecrRefCount(opts);
    ck_assert_ptr_nonnull(r);
    b = Rb_BatchCreate(r->schema, 0);
    rc = Rb_ReaderNext(r, b, &err);
    ck_assert_int_eq(rc, 3);
    ck_assert_int_eq(b->col[RB_IO_TIME][0], 1);
    ck_assert_int_eq(b->col[RB_IO_SIZE][0], 100);
    ck_assert_int_eq(b->col[RB_IO_DEVICE][0], 3);
    ck_assert_int_eq(b->col[RB_IO_TIME][1], 3);
    ck_assert_int_eq(b->col[RB_IO_SIZE][1], RB_ABSENT);
    ck_assert_int_eq(b->col[RB_IO_DEVICE][1], RB_ABSENT);
    ck_assert_int_eq(b->col[RB_IO_TIME][2], 5);
    ck_assert_int_eq(b->col[RB_IO_SIZE][2], RB_ABSENT);
    ck_assert_int_eq(b->col[RB_IO_DEVICE][2], RB_ABSENT);
    ck_assert_int_eq(b->col[RB_IO_PID][2], RB_ABSENT);
    ck_assert_str_eq(Tcl_GetString(r->skipCounts),
	    "bad-field 1 out-of-order 1");
    Rb_BatchFree(b);
    Rb_ReaderClose(r);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("textfast");
    TCase *tc = tcase_create("textfast");

    tcase_add_unchecked_fixture(tc, Setup, Teardown);
    tcase_add_test(tc, digits_agree_with_one_at_a_time);
    tcase_add_test(tc, msr_hand_made_lines);
    tcase_add_test(tc, msr_random_lines);
    tcase_add_test(tc, decimal_agrees_with_parse_scaled);
    tcase_add_test(tc, spc_hand_made_lines);
    tcase_add_test(tc, spc_random_lines);
    tcase_add_test(tc, disksim_hand_made_lines);
    tcase_add_test(tc, disksim_random_lines);
    tcase_add_test(tc, csv_hand_made_lines);
    tcase_add_test(tc, csv_random_lines);
    tcase_add_test(tc, blkparse_hand_made_lines);
    tcase_add_test(tc, blkparse_real_and_mutated_lines);
    tcase_add_test(tc, rejected_records_leave_nothing_behind);
    suite_add_tcase(s, tc);
    return s;
}
