/*
 * test_native.c --
 *
 *	The native format: records with hand-chosen values (absent values,
 *	extremes, a string schema) written and read back equal; the I/O
 *	schema comes back as itself; truncated and corrupt files are errors
 *	that name the file.
 */

#include <zlib.h>
#include <unistd.h>
#include "rbtest.h"
#include "io/native.h"

void RbReaderKitInit(void);

static void
Setup(void)
{
    rbtest_tmpdir_make("native");
    RbReaderKitInit();
}

static void
Teardown(void)
{
    rbtest_tmpdir_remove();
}

/* Reads every record of path into one batch of capacity cap. */
static Rb_Batch *
ReadBack(const char *path, int cap, Rb_Reader **rp, Rb_Error *err, int *rc)
{
    Rb_Reader *r = Rb_ReaderOpen(path, NULL, RB_ONERROR_STOP, NULL, err);
    Rb_Batch *b;
    int n;

    ck_assert_msg(r != NULL, "open: %s", err->msg);
    ck_assert_str_eq(r->cls->name, "native");
    b = Rb_BatchCreate(r->schema, cap);
    do {
	n = Rb_ReaderNext(r, b, err);
    } while (n > 0 && b->n < b->cap);
    *rc = n > 0 ? Rb_ReaderNext(r, b, err) : n;
    *rp = r;
    return b;
}

START_TEST(io_records_round_trip)
{
    static const int64_t pick[] = {0, 1, -1, RB_ABSENT, INT64_MAX,
	INT64_MIN + 1, 0x1f016000, 123456789012345LL};
    Rb_Schema *io = Rb_IoSchema();
    Rb_Batch *in = Rb_BatchCreate(io, 0), *out;
    Rb_NativeWriter *w;
    Rb_Reader *r;
    Rb_Error err;
    int i, f, rc;

    for (i = 0; i < in->cap; i++) {
	Rb_BatchAppend(in);
	for (f = 0; f < io->nfields; f++) {
	    in->col[f][i] = pick[(i + 3 * f) % 8];
	}
    }
    w = RbNativeWriterOpen(NULL, rbtest_tmp("io.rbn"), io, 1053281044000000000LL,
	    &err);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(RbNativeWriterWrite(w, in, NULL, 0, &err), TCL_OK);
    ck_assert_int_eq(RbNativeWriterWrite(w, in, NULL, 0, &err), TCL_OK);
    ck_assert_int_eq(access(rbtest_tmp("io.rbn"), F_OK), -1);
    ck_assert_int_eq(RbNativeWriterClose(w, &err), TCL_OK);
    out = ReadBack(rbtest_tmp("io.rbn"), 3 * RB_BATCH_SIZE, &r, &err, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_eq(r->schema, io);
    ck_assert_int_eq(r->epochNs, 1053281044000000000LL);
    ck_assert_int_eq(out->n, 2 * in->n);
    for (i = 0; i < out->n; i++) {
	for (f = 0; f < io->nfields; f++) {
	    ck_assert_int_eq(out->col[f][i], in->col[f][i % in->n]);
	}
    }
    Rb_ReaderClose(r);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
}
END_TEST

START_TEST(string_schema_and_selection_round_trip)
{
    Rb_Schema *s = Rb_SchemaCreate("event");
    Rb_Batch *in, *out;
    Rb_NativeWriter *w;
    Rb_Reader *r;
    Rb_Error err;
    uint32_t sel[] = {0, 2, 3};
    const char *words[] = {"GET /index", "", "POST \"x\"", "GET /index"};
    int i, rc, fName, fLat, fUrl;

    fName = Rb_SchemaAddField(s, "name", RB_FT_STRING, RB_UNIT_NONE,
	    "event name");
    fLat = Rb_SchemaAddField(s, "latency", RB_FT_DOUBLE, RB_UNIT_NS, NULL);
    fUrl = Rb_SchemaAddField(s, "url", RB_FT_STRING, RB_UNIT_NONE, NULL);
    in = Rb_BatchCreate(s, 0);
    for (i = 0; i < 4; i++) {
	Rb_BatchAppend(in);
	in->col[0][i] = 1000 * i;
	in->col[fName][i] = Rb_SchemaIntern(s, words[i], strlen(words[i]));
	Rb_SetDouble(in, fLat, i, 0.5 * i);
    }
    in->col[fUrl][3] = Rb_SchemaIntern(s, "/late", 5);
    w = RbNativeWriterOpen(NULL, rbtest_tmp("ev.rbn"), s, 0, &err);
    /* Record 3 alone first: its strings are defined before record 0's. */
    ck_assert_int_eq(RbNativeWriterWrite(w, in, sel + 2, 1, &err), TCL_OK);
    ck_assert_int_eq(RbNativeWriterWrite(w, in, sel, 3, &err), TCL_OK);
    ck_assert_int_eq(RbNativeWriterClose(w, &err), TCL_OK);

    out = ReadBack(rbtest_tmp("ev.rbn"), 0, &r, &err, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_ne(r->schema, s);
    ck_assert_str_eq(r->schema->name, "event");
    ck_assert_int_eq(r->schema->nfields, 4);
    ck_assert_str_eq(r->schema->fields[fName].name, "name");
    ck_assert_int_eq(r->schema->fields[fName].type, RB_FT_STRING);
    ck_assert_str_eq(r->schema->fields[fName].help, "event name");
    ck_assert_int_eq(r->schema->fields[fLat].type, RB_FT_DOUBLE);
    ck_assert_int_eq(r->schema->fields[fLat].unit, RB_UNIT_NS);
    ck_assert_int_eq(out->n, 4);
    ck_assert_int_eq(out->col[0][0], 3000);
    ck_assert_str_eq(Rb_SchemaString(r->schema, out->col[fName][0]),
	    "GET /index");
    ck_assert_str_eq(Rb_SchemaString(r->schema, out->col[fUrl][0]), "/late");
    ck_assert(Rb_GetDouble(out, fLat, 0) == 1.5);
    ck_assert_int_eq(out->col[0][2], 2000);
    ck_assert_str_eq(Rb_SchemaString(r->schema, out->col[fName][2]),
	    "POST \"x\"");
    ck_assert_int_eq(out->col[fUrl][2], RB_ABSENT);
    ck_assert_int_eq(out->col[0][3], 3000);
    ck_assert_int_eq(out->col[fName][3], out->col[fName][0]);
    Rb_ReaderClose(r);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    Rb_SchemaRelease(s);
}
END_TEST

/* Writes n I/O records with time i to path. */
static void
WriteIo(const char *path, int n)
{
    Rb_Batch *b = Rb_BatchCreate(Rb_IoSchema(), n);
    Rb_NativeWriter *w;
    Rb_Error err;
    int i;

    for (i = 0; i < n; i++) {
	Rb_BatchAppend(b);
	b->col[RB_IO_TIME][i] = i;
	b->col[RB_IO_SIZE][i] = 4096;
    }
    w = RbNativeWriterOpen(NULL, path, Rb_IoSchema(), 0, &err);
    ck_assert_int_eq(RbNativeWriterWrite(w, b, NULL, 0, &err), TCL_OK);
    ck_assert_int_eq(RbNativeWriterClose(w, &err), TCL_OK);
    Rb_BatchFree(b);
}

/* Reads path (plain or gzip) whole into memory. */
static unsigned char *
Slurp(const char *path, long *n)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf;

    ck_assert_ptr_nonnull(fp);
    fseek(fp, 0, SEEK_END);
    *n = ftell(fp);
    rewind(fp);
    buf = malloc(*n);
    ck_assert_uint_eq(fread(buf, 1, *n, fp), (size_t)*n);
    fclose(fp);
    return buf;
}

START_TEST(truncated_file_is_an_error_naming_it)
{
    const char *path = rbtest_tmp("t.rbn"), *cut = rbtest_tmp("cut.rbn");
    unsigned char *buf;
    Rb_Batch *b;
    Rb_Reader *r;
    Rb_Error err;
    long n;
    int rc;

    WriteIo(path, 10000);
    buf = Slurp(path, &n);
    rbtest_write_file(cut, buf, n * 2 / 3);
    free(buf);
    b = ReadBack(cut, 20000, &r, &err, &rc);
    ck_assert_int_eq(rc, -1);
    ck_assert_str_eq(err.code, "RUBICON READER TRUNCATED");
    ck_assert_ptr_nonnull(strstr(err.msg, cut));
    ck_assert_int_eq(b->n % RB_BATCH_SIZE, 0);
    Rb_ReaderClose(r);
    Rb_BatchFree(b);
}
END_TEST

/* Rewrites the native file at path decompressed, with edit applied. */
static const char *
PlainVariant(const char *path, const char *name, long at, const char *bytes,
	int nbytes, long keep)
{
    gzFile gz = gzopen(path, "rb");
    unsigned char *buf = malloc(1 << 22);
    const char *out = rbtest_tmp(name);
    int n;

    n = gzread(gz, buf, 1 << 22);
    gzclose(gz);
    ck_assert_int_gt(n, 0);
    if (nbytes > 0) {
	memcpy(buf + at, bytes, nbytes);
    }
    rbtest_write_file(out, buf, keep >= 0 ? keep : n);
    free(buf);
    return out;
}

START_TEST(corrupt_block_names_file_block_and_offset)
{
    /* Header of the I/O schema, then block 1 of 4096 records at hdr. */
    const char *path = rbtest_tmp("c.rbn");
    Rb_Error err;
    Rb_Batch *b;
    Rb_Reader *r;
    long hdr, block2;
    int rc;
    char where[128];

    WriteIo(path, 5000);
    {
	Rb_Schema *io = Rb_IoSchema();
	int f;

	hdr = 8 + 4 + 8 + 4 + 2 + 4;
	for (f = 0; f < io->nfields; f++) {
	    hdr += 4 + strlen(io->fields[f].name) + 8 + 4
		    + strlen(io->fields[f].help);
	}
    }
    block2 = hdr + 4 + 4 + 4 + 8L * 4096 * RB_IO_NFIELDS;
    path = PlainVariant(path, "c2.rbn", block2, "XXXX", 4, -1);
    b = ReadBack(path, 8192, &r, &err, &rc);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(b->n, 4096);
    ck_assert_str_eq(err.code, "RUBICON READER CORRUPT");
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    snprintf(where, sizeof(where), "record 4097 at byte offset %ld: block 2",
	    block2);
    ck_assert_msg(strstr(err.msg, where) != NULL, "message: %s", err.msg);
    ck_assert_ptr_nonnull(strstr(err.msg, "bad-block"));
    Rb_ReaderClose(r);
    Rb_BatchFree(b);

    /* The same file cut inside block 2, uncompressed. */
    path = PlainVariant(rbtest_tmp("c.rbn"), "c3.rbn", 0, "", 0, block2 + 100);
    b = ReadBack(path, 8192, &r, &err, &rc);
    ck_assert_int_eq(rc, -1);
    ck_assert_str_eq(err.code, "RUBICON READER TRUNCATED");
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_ptr_nonnull(strstr(err.msg, "block 2"));
    Rb_ReaderClose(r);
    Rb_BatchFree(b);

    /* Cut exactly before the end marker. */
    path = PlainVariant(rbtest_tmp("c.rbn"), "c4.rbn", 0, "", 0,
	    block2 + 12 + 8L * (5000 - 4096) * RB_IO_NFIELDS);
    b = ReadBack(path, 8192, &r, &err, &rc);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(b->n, 5000);
    ck_assert_str_eq(err.code, "RUBICON READER TRUNCATED");
    Rb_ReaderClose(r);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(failed_write_leaves_no_file)
{
    Rb_Error err;
    char path[600];

    snprintf(path, sizeof(path), "%s/no-dir/x.rbn", rbtest_tmpdir());
    ck_assert_ptr_null(RbNativeWriterOpen(NULL, path, Rb_IoSchema(), 0, &err));
    ck_assert_str_eq(err.code, "RUBICON NATIVE WRITE");
    ck_assert_ptr_nonnull(strstr(err.msg, path));
}
END_TEST

START_TEST(empty_file_round_trips)
{
    Rb_NativeWriter *w;
    Rb_Reader *r;
    Rb_Batch *b;
    Rb_Error err;
    int rc;

    w = RbNativeWriterOpen(NULL, rbtest_tmp("e.rbn"), Rb_IoSchema(), 7, &err);
    ck_assert_int_eq(RbNativeWriterClose(w, &err), TCL_OK);
    b = ReadBack(rbtest_tmp("e.rbn"), 0, &r, &err, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(b->n, 0);
    ck_assert_int_eq(r->epochNs, 7);
    Rb_ReaderClose(r);
    Rb_BatchFree(b);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("native");
    TCase *tc = tcase_create("native");

    tcase_add_unchecked_fixture(tc, Setup, Teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, io_records_round_trip);
    tcase_add_test(tc, string_schema_and_selection_round_trip);
    tcase_add_test(tc, truncated_file_is_an_error_naming_it);
    tcase_add_test(tc, corrupt_block_names_file_block_and_offset);
    tcase_add_test(tc, failed_write_leaves_no_file);
    tcase_add_test(tc, empty_file_round_trips);
    suite_add_tcase(s, tc);
    return s;
}
