/*
 * test_readers.c --
 *
 *	The readers of published trace formats (msr, spc, disksim, csv,
 *	blkparse, blktrace) on the small fixtures in tests/fixtures, written
 *	from each format's description; the expected values are worked out
 *	by hand in the comments.  Also the exact decimal parser the text
 *	readers share and the malformed-line policy.
 */

#include "rbtest.h"
#include "io/text.h"

void RbReaderKitInit(void);

#define MAXREC 16
#define FIX "tests/fixtures/"

/* Every record of a file, field by field. */
typedef struct Trace {
    int n;
    int64_t v[MAXREC][RB_IO_NFIELDS];
    int64_t epochNs;
    uint64_t skipped;
    const char *format;
    char skipCounts[256];
    Rb_Error err;
    int rc;			/* last next result: 0 end, -1 error */
} Trace;

/*
 * ReadAll --
 *	Reads path with format (NULL sniffs), policy and reader options
 *	(a Tcl dict as a string, or NULL) into t.
 */
static void
ReadAll(Trace *t, const char *path, const char *format, Rb_OnError policy,
	const char *options)
{
    Tcl_Obj *opts = options ? Tcl_NewStringObj(options, -1) : NULL;
    Rb_Reader *r;
    Rb_Batch *b;
    int i, f;

    memset(t, 0, sizeof(*t));
    if (opts) {
	Tcl_IncrRefCount(opts);
    }
    r = Rb_ReaderOpen(path, format, policy, opts, &t->err);
    if (opts) {
	Tcl_DecrRefCount(opts);
    }
    if (r == NULL) {
	t->rc = -2;
	return;
    }
    b = Rb_BatchCreate(r->schema, 0);
    do {
	Rb_BatchClear(b);
	t->rc = Rb_ReaderNext(r, b, &t->err);
	for (i = 0; i < b->n && t->n < MAXREC; i++, t->n++) {
	    for (f = 0; f < RB_IO_NFIELDS; f++) {
		t->v[t->n][f] = b->col[f][i];
	    }
	}
    } while (t->rc > 0);
    t->epochNs = r->epochNs;
    t->skipped = r->skipped;
    t->format = r->cls->name;
    snprintf(t->skipCounts, sizeof(t->skipCounts), "%s",
	    Tcl_GetString(r->skipCounts));
    Rb_BatchFree(b);
    Rb_ReaderClose(r);
}

static void
Setup(void)
{
    RbReaderKitInit();
}

START_TEST(parse_scaled_is_exact)
{
    int64_t v;

    ck_assert(RbParseScaled("0.011413", 1000000000, &v));
    ck_assert_int_eq(v, 11413000);
    ck_assert(RbParseScaled("1.25e0", 1000000000, &v));
    ck_assert_int_eq(v, 1250000000);
    ck_assert(RbParseScaled("-2.5", 1000, &v));
    ck_assert_int_eq(v, -2500);
    ck_assert(RbParseScaled("9223372036854775807", 1, &v));
    ck_assert_int_eq(v, INT64_MAX);
    ck_assert(RbParseScaled("1e-50", 1000000000, &v));
    ck_assert_int_eq(v, 0);
    ck_assert(!RbParseScaled("9223372036854775808", 1, &v));
    ck_assert(!RbParseScaled("1e300", 1, &v));
    ck_assert(!RbParseScaled("", 1, &v));
    ck_assert(!RbParseScaled(".", 1, &v));
    ck_assert(!RbParseScaled("1.2.3", 1, &v));
    ck_assert(!RbParseScaled("1e", 1, &v));
    /* Far more digits than fit: refused, without overflowing on the way
     * (UBSan checks). */
    ck_assert(!RbParseScaled("12345678901234567890123456789012345678901234"
	    "567890.5", 1000000000, &v));
    ck_assert(!RbParseScaled("0.1234567890123456789012345678901234567890123"
	    "45678901234567890", 1000000000, &v));
    ck_assert(!RbParseInt("1.5", &v));
    ck_assert(!RbParseInt("-9223372036854775808", &v));
    ck_assert(RbParseHex("2a", &v));
    ck_assert_int_eq(v, 42);
    ck_assert(!RbParseHex("0x", &v));
    ck_assert(!RbParseHex("8000000000000000", &v));
}
END_TEST

START_TEST(parse_whole_numbers_at_the_edges_of_the_short_path)
{
    int64_t v;

    /* 18 digits are parsed without 128-bit arithmetic; the results must
     * be those of the long path, which 19 and more digits take. */
    ck_assert(RbParseInt("999999999999999999", &v));
    ck_assert_int_eq(v, 999999999999999999LL);
    ck_assert(RbParseScaled("-999999999999999999", 1, &v));
    ck_assert_int_eq(v, -999999999999999999LL);
    ck_assert(RbParseScaled("92233720368547758", 100, &v));
    ck_assert_int_eq(v, 9223372036854775800LL);
    ck_assert(!RbParseScaled("92233720368547759", 100, &v));
    ck_assert(!RbParseScaled("999999999999999999", 1000000000000LL, &v));
    ck_assert(RbParseScaled("-9223372036854775807", 1, &v));
    ck_assert_int_eq(v, -INT64_MAX);
    ck_assert(RbParseInt("0000000000000000000042", &v));
    ck_assert_int_eq(v, 42);
    ck_assert(RbParseScaled("-0", 1000, &v));
    ck_assert_int_eq(v, 0);
    ck_assert(RbParseScaled("+7", 100, &v));
    ck_assert_int_eq(v, 700);
    ck_assert(!RbParseInt("12a", &v));
    ck_assert(!RbParseInt("-", &v));
    ck_assert(!RbParseInt("+", &v));
    ck_assert(!RbParseInt(" 5", &v));
    ck_assert(!RbParseScaled("5", 0, &v));
}
END_TEST

START_TEST(split_trims_fields_and_keeps_the_rest_in_the_last)
{
    char line1[] = " a, b ,,c ", line2[] = " a, b ,,c ", line3[] = "x\t\ty";
    char *f[8];

    ck_assert_int_eq(RbTextSplit(line1, ',', f, 8), 4);
    ck_assert_str_eq(f[0], "a");
    ck_assert_str_eq(f[1], "b");
    ck_assert_str_eq(f[2], "");
    ck_assert_str_eq(f[3], "c");
    ck_assert_int_eq(RbTextSplit(line2, ',', f, 2), 2);
    ck_assert_str_eq(f[0], "a");
    ck_assert_str_eq(f[1], "b ,,c");
    ck_assert_int_eq(RbTextSplit(line3, '\t', f, 8), 3);
    ck_assert_str_eq(f[0], "x");
    ck_assert_str_eq(f[1], "");
    ck_assert_str_eq(f[2], "y");
}
END_TEST

/*
 * small.csv: timestamps 128166372000000000 + 0, 500000, 1000000 ticks.
 * 128166372000000000 - 116444736000000000 = 11721636000000000 ticks =
 * 1172163600 s exactly, the epoch.  Times 0, 50 ms, 100 ms; response
 * 1000, 25000, 50 ticks = 100 us, 2.5 ms, 5 us.
 */
START_TEST(msr_fixture_by_hand)
{
    Trace t;

    ReadAll(&t, FIX "msr/small.csv", NULL, RB_ONERROR_STOP, NULL);
    ck_assert_int_eq(t.rc, 0);
    ck_assert_str_eq(t.format, "msr");
    ck_assert_int_eq(t.n, 3);
    ck_assert_int_eq(t.epochNs, 1172163600LL * 1000000000);
    ck_assert_int_eq(t.v[0][RB_IO_TIME], 0);
    ck_assert_int_eq(t.v[0][RB_IO_FINISH], 100000);
    ck_assert_int_eq(t.v[0][RB_IO_START], RB_ABSENT);
    ck_assert_int_eq(t.v[0][RB_IO_OP], RB_OP_READ);
    ck_assert_int_eq(t.v[0][RB_IO_OFFSET], 4096);
    ck_assert_int_eq(t.v[0][RB_IO_SIZE], 8192);
    ck_assert_int_eq(t.v[0][RB_IO_DEVICE], 1);
    ck_assert_int_eq(t.v[1][RB_IO_TIME], 50000000);
    ck_assert_int_eq(t.v[1][RB_IO_FINISH], 52500000);
    ck_assert_int_eq(t.v[1][RB_IO_OP], RB_OP_WRITE);
    ck_assert_int_eq(t.v[1][RB_IO_DEVICE], 2);
    ck_assert_int_eq(t.v[2][RB_IO_TIME], 100000000);
    ck_assert_int_eq(t.v[2][RB_IO_FINISH], 100005000);
    ck_assert_int_eq(t.v[2][RB_IO_OP], RB_OP_READ);
    ck_assert_int_eq(t.v[0][RB_IO_MACHINE], t.v[1][RB_IO_MACHINE]);
    ck_assert_int_ne(t.v[0][RB_IO_MACHINE], t.v[2][RB_IO_MACHINE]);
    /* FNV-1a of "web", by the published algorithm. */
    ck_assert_int_eq(t.v[0][RB_IO_MACHINE], RbHashName("web"));
    ck_assert_int_eq(RbHashName(""), 2166136261u);
    ck_assert_int_eq(RbHashName("a"), 0xe40c292cu);
}
END_TEST

/*
 * bad.csv, line by line: 1 good, 2 six fields (short-line), 3 Type Trim
 * (bad-op), 4 an x in the timestamp (bad-field), 5 100 s earlier
 * (out-of-order), 6 good.  Line 2 starts at byte 45 (line 1 is 44 bytes
 * and its newline).
 */
START_TEST(msr_malformed_lines_by_policy)
{
    Trace t;

    ReadAll(&t, FIX "msr/bad.csv", "msr", RB_ONERROR_STOP, NULL);
    ck_assert_int_eq(t.rc, -1);
    ck_assert_int_eq(t.n, 1);
    ck_assert_ptr_nonnull(strstr(t.err.msg, "bad.csv: record 2 at byte "
	    "offset 45: line 2: 5 fields, not 7 (short-line)"));

    ReadAll(&t, FIX "msr/bad.csv", "msr", RB_ONERROR_SKIP, NULL);
    ck_assert_int_eq(t.rc, 0);
    ck_assert_int_eq(t.n, 2);
    ck_assert_int_eq(t.skipped, 4);
    ck_assert_str_eq(t.skipCounts, "short-line 1 bad-op 1 bad-field 1 "
	    "out-of-order 1");
    ck_assert_int_eq(t.v[1][RB_IO_TIME], 80000000);

    ReadAll(&t, FIX "msr/bad.csv", "msr", RB_ONERROR_WARN, NULL);
    ck_assert_int_eq(t.n, 3);
    ck_assert_int_eq(t.skipped, 3);
    ck_assert_int_eq(t.v[1][RB_IO_TIME], -100000000000LL);
}
END_TEST

/*
 * small.spc: LBA 100, 200, 0 sectors = 51200, 102400, 0 bytes; times
 * 0, 0.5, 1.25 s; the extra field of line 2 is not part of the record.
 */
START_TEST(spc_fixture_by_hand)
{
    Trace t;

    ReadAll(&t, FIX "spc/small.spc", NULL, RB_ONERROR_STOP, NULL);
    ck_assert_int_eq(t.rc, 0);
    ck_assert_str_eq(t.format, "spc");
    ck_assert_int_eq(t.n, 3);
    ck_assert_int_eq(t.epochNs, 0);
    ck_assert_int_eq(t.v[0][RB_IO_DEVICE], 0);
    ck_assert_int_eq(t.v[0][RB_IO_OFFSET], 51200);
    ck_assert_int_eq(t.v[0][RB_IO_SIZE], 4096);
    ck_assert_int_eq(t.v[0][RB_IO_OP], RB_OP_READ);
    ck_assert_int_eq(t.v[0][RB_IO_TIME], 0);
    ck_assert_int_eq(t.v[1][RB_IO_DEVICE], 1);
    ck_assert_int_eq(t.v[1][RB_IO_OFFSET], 102400);
    ck_assert_int_eq(t.v[1][RB_IO_OP], RB_OP_WRITE);
    ck_assert_int_eq(t.v[1][RB_IO_TIME], 500000000);
    ck_assert_int_eq(t.v[2][RB_IO_TIME], 1250000000);
    ck_assert_int_eq(t.v[2][RB_IO_FINISH], RB_ABSENT);
}
END_TEST

/*
 * small-ms.trace has fractional times, so milliseconds: 0, 1.5, 2.25 ms;
 * LBA 1000, 2000, 3000 and sizes 8, 16, 1 sectors of 512 bytes.
 * small-ns.trace has whole times, so nanoseconds.
 */
START_TEST(disksim_fixtures_by_hand)
{
    Trace t;

    ReadAll(&t, FIX "disksim/small-ms.trace", NULL, RB_ONERROR_STOP, NULL);
    ck_assert_int_eq(t.rc, 0);
    ck_assert_str_eq(t.format, "disksim");
    ck_assert_int_eq(t.n, 3);
    ck_assert_int_eq(t.v[1][RB_IO_TIME], 1500000);
    ck_assert_int_eq(t.v[2][RB_IO_TIME], 2250000);
    ck_assert_int_eq(t.v[0][RB_IO_OFFSET], 512000);
    ck_assert_int_eq(t.v[1][RB_IO_SIZE], 8192);
    ck_assert_int_eq(t.v[2][RB_IO_SIZE], 512);
    ck_assert_int_eq(t.v[0][RB_IO_OP], RB_OP_READ);
    ck_assert_int_eq(t.v[1][RB_IO_OP], RB_OP_WRITE);
    ck_assert_int_eq(t.v[1][RB_IO_DEVICE], 1);

    ReadAll(&t, FIX "disksim/small-ns.trace", "disksim", RB_ONERROR_STOP,
	    NULL);
    ck_assert_int_eq(t.n, 2);
    ck_assert_int_eq(t.v[1][RB_IO_TIME], 2000);
    ck_assert_int_eq(t.v[1][RB_IO_DEVICE], 3);

    ReadAll(&t, FIX "disksim/small-ns.trace", "disksim", RB_ONERROR_STOP,
	    "timeunit us");
    ck_assert_int_eq(t.v[1][RB_IO_TIME], 2000000);

    ReadAll(&t, FIX "disksim/small-ns.trace", "disksim", RB_ONERROR_STOP,
	    "timeunit fortnights");
    ck_assert_int_eq(t.rc, -2);
    ck_assert_ptr_nonnull(strstr(t.err.msg, "unknown timeunit"));
}
END_TEST

/*
 * small.tsv through a map by header names: times in ms (1.5 ms =
 * 1500000 ns), LBA in sectors (8 = 4096 bytes), response 0.25 ms, hex
 * device 0x10 = 16; an empty response cell is absent; line 4's op X is
 * neither R nor W; it starts at byte 64 (lines of 28, 20 and 16 bytes).
 */
START_TEST(csv_column_map_by_header_names)
{
    static const char *opts = "delimiter tab columns {time when op kind "
	    "size bytes offset lba response lat deviceNo dev} timeunit ms "
	    "offsetunit sectors readvalue R writevalue W";
    Trace t;

    ReadAll(&t, FIX "csv/small.tsv", "csv", RB_ONERROR_SKIP, opts);
    ck_assert_int_eq(t.rc, 0);
    ck_assert_int_eq(t.n, 2);
    ck_assert_str_eq(t.skipCounts, "bad-op 1");
    ck_assert_int_eq(t.v[0][RB_IO_TIME], 1500000);
    ck_assert_int_eq(t.v[0][RB_IO_OP], RB_OP_READ);
    ck_assert_int_eq(t.v[0][RB_IO_SIZE], 4096);
    ck_assert_int_eq(t.v[0][RB_IO_OFFSET], 4096);
    ck_assert_int_eq(t.v[0][RB_IO_FINISH], 1750000);
    ck_assert_int_eq(t.v[0][RB_IO_DEVICE], 3);
    ck_assert_int_eq(t.v[1][RB_IO_TIME], 2000000);
    ck_assert_int_eq(t.v[1][RB_IO_OP], RB_OP_WRITE);
    ck_assert_int_eq(t.v[1][RB_IO_FINISH], RB_ABSENT);
    ck_assert_int_eq(t.v[1][RB_IO_DEVICE], 16);
    ck_assert_int_eq(t.v[1][RB_IO_PID], RB_ABSENT);

    ReadAll(&t, FIX "csv/small.tsv", "csv", RB_ONERROR_STOP, opts);
    ck_assert_int_eq(t.rc, -1);
    ck_assert_ptr_nonnull(strstr(t.err.msg, "record 4 at byte offset 64: "
	    "line 4: field 2 (op) \"X\" is neither a read nor a write value "
	    "(bad-op)"));
}
END_TEST

/* io.csv names I/O fields in its header, as rubicon convert writes it,
 * so it is sniffed and needs no map. */
START_TEST(csv_self_describing_header)
{
    Trace t;

    ReadAll(&t, FIX "csv/io.csv", NULL, RB_ONERROR_STOP, NULL);
    ck_assert_int_eq(t.rc, 0);
    ck_assert_str_eq(t.format, "csv");
    ck_assert_int_eq(t.n, 2);
    ck_assert_int_eq(t.v[0][RB_IO_OFFSET], 8192);
    ck_assert_int_eq(t.v[0][RB_IO_FINISH], RB_ABSENT);
    ck_assert_int_eq(t.v[1][RB_IO_TIME], 100);
    ck_assert_int_eq(t.v[1][RB_IO_FINISH], 150);
    ck_assert_int_eq(t.v[1][RB_IO_OP], RB_OP_WRITE);
    ck_assert_int_eq(t.v[1][RB_IO_DEVICE], 2);
}
END_TEST

START_TEST(csv_option_errors_name_the_option)
{
    Trace t;

    ReadAll(&t, FIX "csv/io.csv", "csv", RB_ONERROR_STOP, "colums {time 1}");
    ck_assert_int_eq(t.rc, -2);
    ck_assert_ptr_nonnull(strstr(t.err.msg, "unknown option"));
    ReadAll(&t, FIX "csv/io.csv", "csv", RB_ONERROR_STOP,
	    "columns {time 1 lbn 2}");
    ck_assert_ptr_nonnull(strstr(t.err.msg, "unknown field \"lbn\""));
    ReadAll(&t, FIX "csv/io.csv", "csv", RB_ONERROR_STOP,
	    "columns {size 3}");
    ck_assert_ptr_nonnull(strstr(t.err.msg, "no column for the field"));
    ReadAll(&t, FIX "csv/io.csv", "csv", RB_ONERROR_STOP,
	    "columns {time nosuch}");
    ck_assert_ptr_nonnull(strstr(t.err.msg, "no header column is named"));
    ReadAll(&t, FIX "csv/io.csv", "csv", RB_ONERROR_STOP, "timeunit h");
    ck_assert_ptr_nonnull(strstr(t.err.msg, "timeunit"));
}
END_TEST

/*
 * The requests of blkparse/small.txt, worked out line by line:
 *  A: remapped from (8,17) sector 936, queued at 1 us as 1000+8; the bio
 *     1008+8 merges at its back, 992+8 at its front: 992+24 sectors
 *     (12288 bytes at 507904), 2 merges; issued 10 us, completed 30 us.
 *  B: read 5000+16 queued at 7 us behind A (queue length 1), issued
 *     11 us, completed 20 us, but delivered after A, queued before it.
 *  The completion of 7777 matches nothing; the FWS flush has no sector.
 *  C: 9000+8 queued at 40 us, split at 9004 into 9000+4 and 9004+4
 *     (the second sees the first outstanding), each issued and
 *     completed on its own.
 *  20000+8 is never completed; the line after it has a bad time.
 * dev 8,16 is 8 << 20 | 16 = 8388624, 8,17 is 8388625.
 */
static const int64_t blkWant[4][RB_IO_NFIELDS] = {
    /* time  start  finish devType queueLen op size dev offset lvNo
     * lvOffset pid thread machine flags */
    {1000, 10000, 30000, RB_ABSENT, 0, RB_OP_WRITE, 12288, 8388624, 507904,
	8388625, 479232, 100, RB_ABSENT, RB_ABSENT, 0x20102},
    {7000, 11000, 20000, RB_ABSENT, 1, RB_OP_READ, 8192, 8388624, 2560000,
	RB_ABSENT, RB_ABSENT, 200, RB_ABSENT, RB_ABSENT, 0x1},
    {40000, 42000, 43000, RB_ABSENT, 0, RB_OP_WRITE, 2048, 8388624, 4608000,
	RB_ABSENT, RB_ABSENT, 300, RB_ABSENT, RB_ABSENT, 0x22},
    {40000, 44000, 45000, RB_ABSENT, 1, RB_OP_WRITE, 2048, 8388624, 4610048,
	RB_ABSENT, RB_ABSENT, 300, RB_ABSENT, RB_ABSENT, 0x22},
};

/* Compares the four records of t with blkWant, field by field. */
static void
CheckBlkRecords(const Trace *t)
{
    int i, f;

    ck_assert_int_eq(t->n, 4);
    for (i = 0; i < 4; i++) {
	for (f = 0; f < RB_IO_NFIELDS; f++) {
	    ck_assert_msg(t->v[i][f] == blkWant[i][f], "record %d field %d: "
		    "%lld, not %lld", i, f, (long long)t->v[i][f],
		    (long long)blkWant[i][f]);
	}
    }
}

START_TEST(blkparse_fixture_by_hand)
{
    Trace t;

    ReadAll(&t, FIX "blkparse/small.txt", NULL, RB_ONERROR_SKIP, NULL);
    ck_assert_int_eq(t.rc, 0);
    ck_assert_str_eq(t.format, "blkparse");
    CheckBlkRecords(&t);
    ck_assert_int_eq(t.skipped, 1);
    ck_assert_str_eq(t.skipCounts, "unmatched-completion 1 flush 1 "
	    "bad-field 1 incomplete 1");

    /* Under stop, the four records before the bad line, then its error. */
    ReadAll(&t, FIX "blkparse/small.txt", "blkparse", RB_ONERROR_STOP, NULL);
    ck_assert_int_eq(t.rc, -1);
    ck_assert_int_eq(t.n, 4);
    ck_assert_ptr_nonnull(strstr(t.err.msg, "small.txt: record 27 at byte "
	    "offset "));
    ck_assert_ptr_nonnull(strstr(t.err.msg, "(bad-field)"));
}
END_TEST

/* The same events in binary (mkblktrace.tcl; Debian's blkparse prints
 * them as the lines of small.txt), over two per-CPU files. */
START_TEST(blktrace_fixture_same_as_blkparse)
{
    Trace t;

    ReadAll(&t, FIX "blktrace/small.blktrace.0", NULL, RB_ONERROR_STOP,
	    NULL);
    ck_assert_int_eq(t.rc, 0);
    ck_assert_str_eq(t.format, "blktrace");
    CheckBlkRecords(&t);
    ck_assert_int_eq(t.skipped, 0);
    ck_assert_str_eq(t.skipCounts, "unmatched-completion 1 flush 1 "
	    "incomplete 1");

    /* Given the other file first, the merge is the same. */
    ReadAll(&t, FIX "blktrace/small.blktrace.1", NULL, RB_ONERROR_STOP,
	    NULL);
    CheckBlkRecords(&t);

    /* CPU 0 alone: the read's issue and completion are on CPU 1. */
    ReadAll(&t, FIX "blktrace/small.blktrace.0", NULL, RB_ONERROR_STOP,
	    "siblings 0");
    ck_assert_int_eq(t.n, 3);
    ck_assert_str_eq(t.skipCounts, "unmatched-completion 1 flush 1 "
	    "incomplete 2");
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("readers");
    TCase *tc = tcase_create("readers");

    tcase_add_unchecked_fixture(tc, Setup, NULL);
    tcase_add_test(tc, parse_scaled_is_exact);
    tcase_add_test(tc, parse_whole_numbers_at_the_edges_of_the_short_path);
    tcase_add_test(tc, split_trims_fields_and_keeps_the_rest_in_the_last);
    tcase_add_test(tc, msr_fixture_by_hand);
    tcase_add_test(tc, msr_malformed_lines_by_policy);
    tcase_add_test(tc, spc_fixture_by_hand);
    tcase_add_test(tc, disksim_fixtures_by_hand);
    tcase_add_test(tc, csv_column_map_by_header_names);
    tcase_add_test(tc, csv_self_describing_header);
    tcase_add_test(tc, csv_option_errors_name_the_option);
    tcase_add_test(tc, blkparse_fixture_by_hand);
    tcase_add_test(tc, blktrace_fixture_same_as_blkparse);
    suite_add_tcase(s, tc);
    return s;
}
