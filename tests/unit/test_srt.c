/*
 * test_srt.c --
 *
 *	The SRT v7 reader on the real HP trace, checked against a second,
 *	deliberately simple decoder written here (whole file into memory,
 *	explicit shifts), and on malformed copies of the trace.
 */

#include <bzlib.h>
#include <unistd.h>
#include "rbtest.h"
#include "io/srt.h"

#define TRACE "srt/hourly.03126.srt.bz2"
#define HEADER_END 297		/* offset of the form feed */
#define REC 88

void RbReaderKitInit(void);

static unsigned char *raw;	/* the decompressed trace */
static size_t rawLen;

/* Decompresses the trace with libbz2's own stdio interface. */
static void
Setup(void)
{
    FILE *fp = fopen(rbtest_data(TRACE), "rb");
    size_t cap = 4 << 20;
    BZFILE *bz;
    int bzerr, n;

    rbtest_tmpdir_make("srt");
    ck_assert_ptr_nonnull(fp);
    bz = BZ2_bzReadOpen(&bzerr, fp, 0, 0, NULL, 0);
    raw = malloc(cap);
    rawLen = 0;
    do {
	if (rawLen == cap) {
	    cap *= 2;
	    raw = realloc(raw, cap);
	}
	n = BZ2_bzRead(&bzerr, bz, raw + rawLen, (int)(cap - rawLen));
	rawLen += n > 0 ? (size_t)n : 0;
    } while (bzerr == BZ_OK);
    ck_assert_int_eq(bzerr, BZ_STREAM_END);
    BZ2_bzReadClose(&bzerr, bz);
    fclose(fp);
    RbReaderKitInit();
}

static void
Teardown(void)
{
    rbtest_tmpdir_remove();
    free(raw);
}

/* Word w of the record at byte offset off, big-endian. */
static uint32_t
Word(const unsigned char *base, size_t off, int w)
{
    const unsigned char *p = base + off + 4 * w;

    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16)
	    | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/* What the simple decoder and the reader both compute. */
typedef struct Summary {
    uint64_t records, bytes, reads;
    int64_t firstUs, lastUs;	/* enqueue, Unix microseconds */
    int ndev;
    uint32_t dev[256];
    uint64_t devCount[256];
} Summary;

static void
CountDevice(Summary *s, uint32_t dev)
{
    int i;

    for (i = 0; i < s->ndev; i++) {
	if (s->dev[i] == dev) {
	    s->devCount[i]++;
	    return;
	}
    }
    ck_assert_int_lt(s->ndev, 256);
    s->dev[s->ndev] = dev;
    s->devCount[s->ndev++] = 1;
}

static void
SimpleSummary(Summary *s)
{
    size_t off;

    memset(s, 0, sizeof(*s));
    ck_assert_int_eq(raw[HEADER_END], 0x0c);
    for (off = HEADER_END + 1; off + REC <= rawLen; off += REC) {
	int64_t us = (int64_t)Word(raw, off, 2) * 1000000 + Word(raw, off, 3);

	ck_assert_uint_eq(Word(raw, off, 0), REC);
	if (s->records == 0) {
	    s->firstUs = us;
	}
	s->lastUs = us;
	s->records++;
	s->bytes += Word(raw, off, 6);
	s->reads += (Word(raw, off, 11) >> 19) & 1;
	CountDevice(s, Word(raw, off, 8));
    }
}

/* Reads path to the end with the given policy, decoding the given fields
 * (the time always), summing as above; *absent gets how many values of
 * the fields not asked for were other than RB_ABSENT. */
static int
ReaderSummaryOf(const char *path, const char *format, Rb_OnError policy,
	uint64_t fields, Summary *s, uint64_t *absent, Rb_Reader **rp,
	Rb_Error *err)
{
    Rb_Reader *r = Rb_ReaderOpen(path, format, policy, NULL, err);
    Rb_Batch *b;
    int n, i, f, rc = 0;

    memset(s, 0, sizeof(*s));
    *absent = 0;
    if (r == NULL) {
	return -1;
    }
    r->fields = fields;
    b = Rb_BatchCreate(r->schema, 0);
    for (;;) {
	Rb_BatchClear(b);
	n = Rb_ReaderNext(r, b, err);
	if (n <= 0) {
	    rc = n;
	    break;
	}
	for (i = 0; i < b->n; i++) {
	    int64_t us = (r->epochNs + b->col[RB_IO_TIME][i]) / 1000;

	    if (s->records == 0) {
		s->firstUs = us;
	    }
	    s->lastUs = us;
	    s->records++;
	    s->bytes += b->col[RB_IO_SIZE][i];
	    s->reads += b->col[RB_IO_OP][i] == RB_OP_READ;
	    CountDevice(s, (uint32_t)b->col[RB_IO_DEVICE][i]);
	    for (f = 1; f < RB_IO_NFIELDS; f++) {
		*absent += !(fields & RB_FIELD_BIT(f))
			&& b->col[f][i] != RB_ABSENT;
	    }
	}
    }
    Rb_BatchFree(b);
    if (rp != NULL) {
	*rp = r;
    } else {
	Rb_ReaderClose(r);
    }
    return rc;
}

/* ReaderSummaryOf with every field decoded. */
static int
ReaderSummary(const char *path, const char *format, Rb_OnError policy,
	Summary *s, Rb_Reader **rp, Rb_Error *err)
{
    uint64_t absent;

    return ReaderSummaryOf(path, format, policy, RB_ALL_FIELDS, s, &absent,
	    rp, err);
}

/* Expects two summaries to agree. */
static void
CheckSameSummary(const Summary *got, const Summary *want)
{
    int i;

    ck_assert_uint_eq(got->records, want->records);
    ck_assert_int_eq(got->firstUs, want->firstUs);
    ck_assert_int_eq(got->lastUs, want->lastUs);
    ck_assert_uint_eq(got->bytes, want->bytes);
    ck_assert_uint_eq(got->reads, want->reads);
    ck_assert_int_eq(got->ndev, want->ndev);
    for (i = 0; i < want->ndev; i++) {
	ck_assert_uint_eq(got->dev[i], want->dev[i]);
	ck_assert_uint_eq(got->devCount[i], want->devCount[i]);
    }
}

START_TEST(real_trace_matches_simple_decoder)
{
    Summary want, got;
    Rb_Error err;
    Rb_Reader *r;

    SimpleSummary(&want);
    ck_assert_uint_eq(want.records, 43000);
    ck_assert_int_eq(ReaderSummary(rbtest_data(TRACE), NULL,
	    RB_ONERROR_STOP, &got, &r, &err), 0);
    ck_assert_str_eq(r->cls->name, "srt");
    ck_assert_uint_eq(r->records, 43000);
    ck_assert_uint_eq(r->skipped, 0);
    CheckSameSummary(&got, &want);
    ck_assert_int_eq(r->epochNs, (want.firstUs / 1000000) * 1000000000LL);
    ck_assert_ptr_nonnull(strstr(RbSrtHeader(r), "43000 records read"));
    ck_assert_ptr_nonnull(strstr(RbSrtHeader(r), "version = 1.7;"));
    Rb_ReaderClose(r);
}
END_TEST

START_TEST(first_record_by_hand)
{
    Rb_Error err;
    Rb_Reader *r = Rb_ReaderOpen(rbtest_data(TRACE), "srt",
	    RB_ONERROR_STOP, NULL, &err);
    Rb_Batch *b;

    ck_assert_ptr_nonnull(r);
    ck_assert_ptr_eq(r->schema, Rb_IoSchema());
    b = Rb_BatchCreate(r->schema, 0);
    ck_assert_int_eq(Rb_ReaderNext(r, b, &err), RB_BATCH_SIZE);
    ck_assert_int_eq(b->firstRecord, 1);
    ck_assert_int_eq(r->epochNs, 1053281044LL * 1000000000);
    ck_assert_int_eq(b->col[RB_IO_TIME][0], 630058000LL);
    ck_assert_int_eq(b->col[RB_IO_START][0], 630058000LL + 3000);
    ck_assert_int_eq(b->col[RB_IO_FINISH][0], 630058000LL + 7487000);
    ck_assert_int_eq(b->col[RB_IO_SIZE][0], 4096);
    ck_assert_int_eq(b->col[RB_IO_DEVICE][0], 0x1f016000);
    ck_assert_int_eq(b->col[RB_IO_OFFSET][0], 0x079e2000);
    ck_assert_int_eq(b->col[RB_IO_LVNO][0], 0x40000002);
    ck_assert_int_eq(b->col[RB_IO_PID][0], 0x2c99);
    ck_assert_int_eq(b->col[RB_IO_MACHINE][0], 0x287e0c73);
    ck_assert_int_eq(b->col[RB_IO_FLAGS][0], 0x0020401b);
    ck_assert_int_eq(b->col[RB_IO_OP][0], RB_OP_WRITE);
    ck_assert_int_eq(b->col[RB_IO_DEVTYPE][0], 0xb);
    ck_assert_int_eq(b->col[RB_IO_QUEUELEN][0], 0);
    ck_assert_int_eq(b->col[RB_IO_LVOFFSET][0], 0);
    ck_assert_int_eq(b->col[RB_IO_THREAD][0], RB_ABSENT);
    Rb_BatchClear(b);
    ck_assert_int_eq(Rb_ReaderNext(r, b, &err), RB_BATCH_SIZE);
    ck_assert_int_eq(b->firstRecord, RB_BATCH_SIZE + 1);
    Rb_BatchFree(b);
    Rb_ReaderClose(r);
}
END_TEST

START_TEST(fields_nothing_reads_are_left_absent)
{
    uint64_t fields = RB_FIELD_BIT(RB_IO_SIZE) | RB_FIELD_BIT(RB_IO_OP)
	    | RB_FIELD_BIT(RB_IO_DEVICE), absent;
    Summary want, got;
    Rb_Error err;

    SimpleSummary(&want);
    ck_assert_int_eq(ReaderSummaryOf(rbtest_data(TRACE), NULL,
	    RB_ONERROR_STOP, fields, &got, &absent, NULL, &err), 0);
    CheckSameSummary(&got, &want);
    ck_assert_uint_eq(absent, 0);
}
END_TEST

/* Writes the trace with edits: the first n bytes, then optionally one
 * word of one record replaced. */
static const char *
MakeVariant(const char *name, size_t n, long recNo, int word, uint32_t v)
{
    unsigned char *copy = malloc(rawLen);
    const char *path = rbtest_tmp(name);

    memcpy(copy, raw, rawLen);
    if (recNo > 0) {
	unsigned char *p = copy + HEADER_END + 1 + (recNo - 1) * REC + 4 * word;

	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
    }
    rbtest_write_file(path, copy, n);
    free(copy);
    return path;
}

/* Expects an error naming path, record recNo and byte offset. */
static void
CheckNamed(const Rb_Error *err, const char *path, long recNo, long offset,
	const char *kind)
{
    char where[128];

    ck_assert_str_eq(err->code, "RUBICON READER CORRUPT");
    ck_assert_ptr_nonnull(strstr(err->msg, path));
    snprintf(where, sizeof(where), "record %ld at byte offset %ld", recNo,
	    offset);
    ck_assert_msg(strstr(err->msg, where) != NULL, "message: %s", err->msg);
    ck_assert_ptr_nonnull(strstr(err->msg, kind));
}

START_TEST(truncated_mid_record)
{
    long offLast = HEADER_END + 1 + 42999L * REC;
    const char *path = MakeVariant("cut.srt", rawLen - 40, 0, 0, 0);
    Summary s;
    Rb_Error err;
    Rb_Reader *r;

    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_STOP, &s, NULL,
	    &err), -1);
    ck_assert_uint_eq(s.records, 42999);
    CheckNamed(&err, path, 43000, offLast, "short-record");
    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_SKIP, &s, &r,
	    &err), 0);
    ck_assert_uint_eq(s.records, 42999);
    ck_assert_uint_eq(r->skipped, 1);
    Rb_ReaderClose(r);
}
END_TEST

START_TEST(header_without_form_feed)
{
    unsigned char *junk = malloc(70000);
    const char *path = rbtest_tmp("nohead.srt");
    Rb_Error err;

    memset(junk, 'x', 70000);
    memcpy(junk, "$$TR_IOREC-1.7 : garbage", 24);
    rbtest_write_file(path, junk, 70000);
    free(junk);
    ck_assert_ptr_null(Rb_ReaderOpen(path, NULL, RB_ONERROR_SKIP, NULL,
	    &err));
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_ptr_nonnull(strstr(err.msg, "bad-header"));
}
END_TEST

START_TEST(wrong_length_word_stops_even_under_skip)
{
    long recNo = 5000, offset = HEADER_END + 1 + (recNo - 1) * REC;
    const char *path = MakeVariant("len.srt", rawLen, recNo, 0, 92);
    Summary s;
    Rb_Error err;
    Rb_Reader *r;

    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_STOP, &s, NULL,
	    &err), -1);
    ck_assert_uint_eq(s.records, recNo - 1);
    CheckNamed(&err, path, recNo, offset, "bad-length");
    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_SKIP, &s, &r,
	    &err), -1);
    ck_assert_uint_eq(s.records, recNo - 1);
    CheckNamed(&err, path, recNo, offset, "bad-length");
    ck_assert_uint_eq(r->skipped, 1);
    Rb_ReaderClose(r);
}
END_TEST

START_TEST(unknown_record_type_is_skippable)
{
    long recNo = 12345, offset = HEADER_END + 1 + (recNo - 1) * REC;
    const char *path = MakeVariant("type.srt", rawLen, recNo, 1, 0x00070009);
    Summary s;
    Rb_Error err;
    Rb_Reader *r;
    Tcl_Obj *key, *cnt;

    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_STOP, &s, NULL,
	    &err), -1);
    ck_assert_uint_eq(s.records, recNo - 1);
    CheckNamed(&err, path, recNo, offset, "bad-type");
    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_SKIP, &s, &r,
	    &err), 0);
    ck_assert_uint_eq(s.records, 42999);
    ck_assert_uint_eq(r->skipped, 1);
    ck_assert_uint_eq(r->recordNo, 43000);
    key = Tcl_NewStringObj("bad-type", -1);
    Tcl_IncrRefCount(key);
    ck_assert_int_eq(Tcl_DictObjGet(NULL, r->skipCounts, key, &cnt), TCL_OK);
    Tcl_DecrRefCount(key);
    ck_assert_ptr_nonnull(cnt);
    ck_assert_str_eq(Tcl_GetString(cnt), "1");
    Rb_ReaderClose(r);
}
END_TEST

START_TEST(skipped_record_leaves_narrowed_fields_in_step)
{
    long recNo = 12345, offset = HEADER_END + 1 + (recNo - 1) * REC;
    const char *path = MakeVariant("type.srt", rawLen, recNo, 1, 0x00070009);
    uint64_t absent;
    Summary want, got;
    Rb_Error err;

    /* The simple decoder's sums less the one skipped record. */
    SimpleSummary(&want);
    want.records--;
    want.bytes -= Word(raw, offset, 6);
    want.reads -= (Word(raw, offset, 11) >> 19) & 1;
    ck_assert_int_eq(ReaderSummaryOf(path, NULL, RB_ONERROR_SKIP,
	    RB_FIELD_BIT(RB_IO_SIZE) | RB_FIELD_BIT(RB_IO_OP), &got, &absent,
	    NULL, &err), 0);
    ck_assert_uint_eq(got.records, want.records);
    ck_assert_uint_eq(got.bytes, want.bytes);
    ck_assert_uint_eq(got.reads, want.reads);
    ck_assert_uint_eq(absent, 0);
}
END_TEST

START_TEST(time_going_back_is_reported_not_reordered)
{
    long recNo = 20000, offset = HEADER_END + 1 + (recNo - 1) * REC;
    uint32_t sec = Word(raw, offset, 2) - 100;
    const char *path = MakeVariant("ooo.srt", rawLen, recNo, 2, sec);
    Summary s;
    Rb_Error err;
    Rb_Reader *r;

    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_STOP, &s, NULL,
	    &err), -1);
    CheckNamed(&err, path, recNo, offset, "out-of-order");
    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_SKIP, &s, &r,
	    &err), 0);
    ck_assert_uint_eq(s.records, 42999);
    ck_assert_uint_eq(r->skipped, 1);
    Rb_ReaderClose(r);
    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_WARN, &s, &r,
	    &err), 0);
    ck_assert_uint_eq(s.records, 43000);
    ck_assert_uint_eq(r->skipped, 0);
    Rb_ReaderClose(r);
}
END_TEST

START_TEST(other_header_version_is_refused)
{
    unsigned char *copy = malloc(rawLen);
    unsigned char *v;
    const char *path = rbtest_tmp("v16.srt");
    Rb_Error err;

    memcpy(copy, raw, rawLen);
    v = memmem(copy, HEADER_END, "version = 1.7;", 14);
    ck_assert_ptr_nonnull(v);
    v[12] = '6';
    rbtest_write_file(path, copy, rawLen);
    free(copy);
    ck_assert_ptr_null(Rb_ReaderOpen(path, NULL, RB_ONERROR_SKIP, NULL,
	    &err));
    ck_assert_str_eq(err.code, "RUBICON READER FORMAT");
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_ptr_nonnull(strstr(err.msg, "1.6"));
}
END_TEST

START_TEST(header_only_trace_has_no_records)
{
    const char *path = MakeVariant("empty.srt", HEADER_END + 1, 0, 0, 0);
    Summary s;
    Rb_Error err;

    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_STOP, &s, NULL,
	    &err), 0);
    ck_assert_uint_eq(s.records, 0);
}
END_TEST

START_TEST(truncated_bzip2_trace_keeps_records_read)
{
    const char *path = rbtest_tmp("cut.srt.bz2");
    FILE *fp = fopen(rbtest_data(TRACE), "rb");
    char *buf = malloc(200000);
    Summary s;
    Rb_Error err;

    ck_assert_uint_eq(fread(buf, 1, 200000, fp), 200000);
    fclose(fp);
    rbtest_write_file(path, buf, 200000);
    free(buf);
    ck_assert_int_eq(ReaderSummary(path, NULL, RB_ONERROR_SKIP, &s, NULL,
	    &err), -1);
    ck_assert_str_eq(err.code, "RUBICON READER TRUNCATED");
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_uint_gt(s.records, 0);
    ck_assert_uint_lt(s.records, 43000);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("srt");
    TCase *tc = tcase_create("srt");

    tcase_add_unchecked_fixture(tc, Setup, Teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, real_trace_matches_simple_decoder);
    tcase_add_test(tc, first_record_by_hand);
    tcase_add_test(tc, fields_nothing_reads_are_left_absent);
    tcase_add_test(tc, skipped_record_leaves_narrowed_fields_in_step);
    tcase_add_test(tc, truncated_mid_record);
    tcase_add_test(tc, header_without_form_feed);
    tcase_add_test(tc, wrong_length_word_stops_even_under_skip);
    tcase_add_test(tc, unknown_record_type_is_skippable);
    tcase_add_test(tc, time_going_back_is_reported_not_reordered);
    tcase_add_test(tc, other_header_version_is_refused);
    tcase_add_test(tc, header_only_trace_has_no_records);
    tcase_add_test(tc, truncated_bzip2_trace_keeps_records_read);
    suite_add_tcase(s, tc);
    return s;
}
