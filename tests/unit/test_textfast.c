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
 *	Reads path as format under policy, with or without the fast path.
 */
static void
ReadAll(Result *res, const char *path, const char *format,
	Rb_OnError policy, int slow)
{
    Rb_Reader *r;
    Rb_Batch *b;
    int i, f;

    memset(res, 0, sizeof(*res));
    if (slow) {
	setenv("RUBICON_TEXT_SLOW", "1", 1);
    } else {
	unsetenv("RUBICON_TEXT_SLOW");
    }
    r = Rb_ReaderOpen(path, format, policy, NULL, &res->err);
    unsetenv("RUBICON_TEXT_SLOW");
    ck_assert_ptr_nonnull(r);
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
    res->skipped = r->skipped;
    snprintf(res->skipCounts, sizeof(res->skipCounts), "%s",
	    Tcl_GetString(r->skipCounts));
    Rb_BatchFree(b);
    Rb_ReaderClose(r);
}

/*
 * SameBothWays --
 *	Reads path fast and slow under skip and under stop and checks that
 *	the results are the same.
 * Results: records read fast under skip.
 */
static int
SameBothWays(const char *path, const char *format)
{
    static const Rb_OnError policies[] = {RB_ONERROR_SKIP, RB_ONERROR_STOP};
    Result fast, slow;
    int p, n = 0;

    for (p = 0; p < 2; p++) {
	ReadAll(&fast, path, format, policies[p], 0);
	ReadAll(&slow, path, format, policies[p], 1);
	ck_assert_int_eq(fast.n, slow.n);
	ck_assert_int_eq(fast.rc, slow.rc);
	ck_assert_int_eq(fast.epochNs, slow.epochNs);
	ck_assert_int_eq(fast.skipped, slow.skipped);
	ck_assert_str_eq(fast.skipCounts, slow.skipCounts);
	ck_assert_str_eq(fast.err.msg, slow.err.msg);
	ck_assert_str_eq(fast.err.code, slow.err.code);
	ck_assert(fast.n == 0 || memcmp(fast.v, slow.v, (size_t)fast.n
		* RB_IO_NFIELDS * sizeof(int64_t)) == 0);
	if (p == 0) {
	    n = fast.n;
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
    ck_assert_int_eq(SameBothWays(path, "msr"), 25);
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
    taken = SameBothWays(path, "msr");
    /* Some lines of each kind: good ones, and ones skipped. */
    ck_assert_int_gt(taken, 1000);
    ck_assert_int_lt(taken, 20000);
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
    tcase_add_test(tc, rejected_records_leave_nothing_behind);
    suite_add_tcase(s, tc);
    return s;
}
