/*
 * test_native.c --
 *
 *	The native format: records with hand-chosen values (absent values,
 *	extremes, a string schema) written and read back equal under each
 *	compression (zstd, none and gzip: versions 2 and 1); the I/O schema
 *	comes back as itself; version 2's bytes are those doc/native.n
 *	lays out; truncated and corrupt files (a damaged zstd frame among
 *	them) are errors that name the file and block, with the decoding
 *	thread and without.
 */

#include <stdlib.h>
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
    /* The tests' values are any integers, not times: no -maxgap. */
    r->maxGap = 0;
    b = Rb_BatchCreate(r->schema, cap);
    do {
	n = Rb_ReaderNext(r, b, err);
    } while (n > 0 && b->n < b->cap);
    *rc = n > 0 ? Rb_ReaderNext(r, b, err) : n;
    *rp = r;
    return b;
}

/* The compressions of the loop tests, by _i. */
static const int compressions[] = {RB_NATIVE_ZSTD, RB_NATIVE_NONE,
    RB_NATIVE_GZIP};

START_TEST(io_records_round_trip)
{
    static const int64_t pick[] = {0, 1, -1, RB_ABSENT, INT64_MAX,
	INT64_MIN + 1, 0x1f016000, 123456789012345LL};
    Rb_Schema *io = Rb_IoSchema();
    Rb_Batch *in = Rb_BatchCreate(io, 0), *out;
    Rb_NativeWriter *w;
    Rb_Reader *r;
    Rb_Error err;
    char name[32];
    const char *path;
    int i, f, rc;

    snprintf(name, sizeof(name), "io%d.rbn", _i);
    path = rbtest_tmp(name);
    for (i = 0; i < in->cap; i++) {
	Rb_BatchAppend(in);
	for (f = 0; f < io->nfields; f++) {
	    in->col[f][i] = pick[(i + 3 * f) % 8];
	}
    }
    w = RbNativeWriterOpen(NULL, path, io, 1053281044000000000LL,
	    compressions[_i], &err);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(RbNativeWriterWrite(w, in, NULL, 0, &err), TCL_OK);
    ck_assert_int_eq(RbNativeWriterWrite(w, in, NULL, 0, &err), TCL_OK);
    ck_assert_int_eq(access(path, F_OK), -1);
    ck_assert_int_eq(RbNativeWriterClose(w, &err), TCL_OK);
    out = ReadBack(path, 3 * RB_BATCH_SIZE, &r, &err, &rc);
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
    w = RbNativeWriterOpen(NULL, rbtest_tmp("ev.rbn"), s, 0, compressions[_i],
	    &err);
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

/* Writes n I/O records with time i to path (version 1, gzip). */
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
    w = RbNativeWriterOpen(NULL, path, Rb_IoSchema(), 0, RB_NATIVE_GZIP, &err);
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

/* Little-endian words of a file's bytes. */
static uint32_t
Le32(const unsigned char *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
Le64(const unsigned char *p)
{
    return Le32(p) | (uint64_t)Le32(p + 4) << 32;
}

/* The bytes of version 2's header for the I/O schema, by doc/native.n:
 * magic, version, compression, epoch, name "io", field count, each
 * field, zeros to a multiple of 8. */
static long
V2HeaderBytes(void)
{
    Rb_Schema *io = Rb_IoSchema();
    long n = 8 + 4 + 4 + 8 + 4 + 2 + 4;
    int f;

    for (f = 0; f < io->nfields; f++) {
	n += 4 + strlen(io->fields[f].name) + 4 + 4 + 4
		+ strlen(io->fields[f].help);
    }
    return n + (8 - n % 8) % 8;
}

/* Writes n I/O records to path under compression: time 1000 i + i % 7
 * (rising unevenly), size 512 (i % 9), deviceNo i % 3, the rest absent. */
static void
WriteVaried(const char *path, int n, int compression)
{
    Rb_Batch *b = Rb_BatchCreate(Rb_IoSchema(), n);
    Rb_NativeWriter *w;
    Rb_Error err;
    int i;

    for (i = 0; i < n; i++) {
	Rb_BatchAppend(b);
	b->col[RB_IO_TIME][i] = 1000LL * i + i % 7;
	b->col[RB_IO_SIZE][i] = 512 * (i % 9);
	b->col[RB_IO_DEVICE][i] = i % 3;
    }
    w = RbNativeWriterOpen(NULL, path, Rb_IoSchema(), 0, compression, &err);
    ck_assert_int_eq(RbNativeWriterWrite(w, b, NULL, 0, &err), TCL_OK);
    ck_assert_int_eq(RbNativeWriterClose(w, &err), TCL_OK);
    Rb_BatchFree(b);
}

START_TEST(uncompressed_layout_is_the_documented_one)
{
    const char *path = rbtest_tmp("raw.rbn");
    long n, hdr = V2HeaderBytes(), at, col;
    unsigned char *buf;
    int f, i;

    WriteVaried(path, 5000, RB_NATIVE_NONE);
    buf = Slurp(path, &n);
    ck_assert(memcmp(buf, "RBNATIVE", 8) == 0);
    ck_assert_uint_eq(Le32(buf + 8), 2);
    ck_assert_uint_eq(Le32(buf + 12), 0);
    ck_assert_uint_eq(Le64(buf + 16), 0);
    ck_assert_uint_eq(Le32(buf + 24), 2);
    ck_assert(memcmp(buf + 28, "io", 2) == 0);
    /* Block 1: head, column table, no strings, then the columns: time,
     * size and deviceNo raw, each of the others one RB_ABSENT. */
    at = hdr;
    ck_assert(memcmp(buf + at, "RBBK", 4) == 0);
    ck_assert_uint_eq(Le32(buf + at + 4), 24 + 8 * RB_IO_NFIELDS
	    + 3 * 8 * 4096 + 8 * (RB_IO_NFIELDS - 3));
    ck_assert_uint_eq(Le32(buf + at + 8), 4096);
    ck_assert_uint_eq(Le32(buf + at + 12), 0);
    ck_assert_uint_eq(Le32(buf + at + 16), 0);
    col = at + 24 + 8 * RB_IO_NFIELDS;
    for (f = 0; f < RB_IO_NFIELDS; f++) {
	int raw = f == RB_IO_TIME || f == RB_IO_SIZE || f == RB_IO_DEVICE;

	ck_assert_uint_eq(Le32(buf + at + 24 + 8 * f), raw ? 0 : 1);
	ck_assert_uint_eq(Le32(buf + at + 28 + 8 * f), raw ? 8 * 4096 : 8);
	if (f == RB_IO_TIME) {
	    for (i = 0; i < 4096; i++) {
		ck_assert_uint_eq(Le64(buf + col + 8 * i),
			1000ULL * i + i % 7);
	    }
	} else if (f == RB_IO_SIZE) {
	    ck_assert_uint_eq(Le64(buf + col + 8 * 10), 512);
	} else if (!raw) {
	    ck_assert_uint_eq(Le64(buf + col), (uint64_t)RB_ABSENT);
	}
	col += raw ? 8 * 4096 : 8;
    }
    /* Block 2 (904 records), then the end marker closes the file. */
    at += Le32(buf + at + 4);
    ck_assert_int_eq(at, col);
    ck_assert(memcmp(buf + at, "RBBK", 4) == 0);
    ck_assert_uint_eq(Le32(buf + at + 8), 904);
    at += Le32(buf + at + 4);
    ck_assert(memcmp(buf + at, "RBEN", 4) == 0);
    ck_assert_uint_eq(Le32(buf + at + 4), 0);
    ck_assert_uint_eq(Le64(buf + at + 8), 5000);
    ck_assert_int_eq(at + 16, n);
    free(buf);
}
END_TEST

/* Reads path with the decoding thread (_i 0) or inline (_i 1), only the
 * fields in `fields` (0: all). */
static Rb_Batch *
ReadV2(const char *path, int cap, uint64_t fields, Rb_Reader **rp,
	Rb_Error *err, int *rc, int inlineOnly)
{
    Rb_Reader *r;
    Rb_Batch *b;
    int n;

    if (inlineOnly) {
	setenv("RUBICON_THREADS", "0", 1);
    } else {
	unsetenv("RUBICON_THREADS");
    }
    r = Rb_ReaderOpen(path, NULL, RB_ONERROR_STOP, NULL, err);
    ck_assert_msg(r != NULL, "open: %s", err->msg);
    if (fields != 0) {
	r->fields = fields;
    }
    b = Rb_BatchCreate(r->schema, cap);
    do {
	n = Rb_ReaderNext(r, b, err);
    } while (n > 0 && b->n < b->cap);
    *rc = n > 0 ? Rb_ReaderNext(r, b, err) : n;
    *rp = r;
    unsetenv("RUBICON_THREADS");
    return b;
}

START_TEST(zstd_reads_only_the_fields_asked_for)
{
    const char *path = rbtest_tmp("f.rbn");
    Rb_Reader *r;
    Rb_Batch *b;
    Rb_Error err;
    int i, rc;

    WriteVaried(path, 10000, RB_NATIVE_ZSTD);
    b = ReadV2(path, 10000, RB_FIELD_BIT(RB_IO_SIZE), &r, &err, &rc, _i);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(b->n, 10000);
    for (i = 0; i < 10000; i++) {
	/* The time always comes; deviceNo was not asked for. */
	ck_assert_int_eq(b->col[RB_IO_TIME][i], 1000LL * i + i % 7);
	ck_assert_int_eq(b->col[RB_IO_SIZE][i], 512 * (i % 9));
	ck_assert_int_eq(b->col[RB_IO_DEVICE][i], RB_ABSENT);
    }
    Rb_ReaderClose(r);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(every_column_encoding_round_trips)
{
    /* Columns chosen to take each encoding of doc/native.n: a
     * constant (1), random 64-bit values (0), random bytes (4: zstd
     * cannot save a third), random rising steps (5), a short repeating
     * cycle of sizes (2), an even rise (3). */
    Rb_Schema *s = Rb_SchemaCreate("kinds");
    const char *path = rbtest_tmp("kinds.rbn");
    static const int64_t cycle[] = {4096, 8192, 65536, 512, 131072};
    Rb_Batch *in, *out;
    Rb_NativeWriter *w;
    Rb_Reader *r;
    Rb_Error err;
    unsigned char *buf;
    uint64_t x = 88172645463325252ULL, seen = 0;
    int64_t rise = 0;
    long n, at;
    int i, f, rc;

    for (f = 1; f <= 6; f++) {
	char name[16];

	snprintf(name, sizeof(name), "c%d", f);
	Rb_SchemaAddField(s, name, RB_FT_INT, RB_UNIT_NONE, NULL);
    }
    in = Rb_BatchCreate(s, 0);
    for (i = 0; i < in->cap; i++) {
	Rb_BatchAppend(in);
	x ^= x << 13; x ^= x >> 7; x ^= x << 17;	/* xorshift64 */
	rise += 1 + (int64_t)(x % 200);
	in->col[0][i] = 1000 * i;
	in->col[1][i] = 7;
	in->col[2][i] = (int64_t)x;
	in->col[3][i] = (int64_t)(x >> 56);
	in->col[4][i] = rise;
	in->col[5][i] = cycle[i % 5];
	in->col[6][i] = 100000 + 3 * i;
    }
    w = RbNativeWriterOpen(NULL, path, s, 0, RB_NATIVE_ZSTD, &err);
    ck_assert_int_eq(RbNativeWriterWrite(w, in, NULL, 0, &err), TCL_OK);
    ck_assert_int_eq(RbNativeWriterClose(w, &err), TCL_OK);
    buf = Slurp(path, &n);
    /* The header: magic, version, compression, epoch, "kinds", 7
     * fields, each name, type, unit and help; zeros to 8. */
    at = 8 + 4 + 4 + 8 + 4 + 5 + 4;
    for (f = 0; f <= 6; f++) {
	at += 4 + strlen(s->fields[f].name) + 4 + 4 + 4
		+ strlen(s->fields[f].help);
    }
    at += (8 - at % 8) % 8;
    ck_assert(memcmp(buf + at, "RBBK", 4) == 0);
    for (f = 1; f <= 6; f++) {
	seen |= 1u << Le32(buf + at + 24 + 8 * f);
    }
    free(buf);
    ck_assert_uint_eq(seen, 0x3f);
    for (i = 0; i < 2; i++) {
	out = ReadV2(path, 0, 0, &r, &err, &rc, i);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(out->n, in->n);
	for (f = 0; f <= 6; f++) {
	    ck_assert(memcmp(out->col[f], in->col[f],
		    sizeof(int64_t) * in->n) == 0);
	}
	Rb_ReaderClose(r);
	Rb_BatchFree(out);
    }
    Rb_BatchFree(in);
    Rb_SchemaRelease(s);
}
END_TEST

START_TEST(constant_columns_change_between_blocks)
{
    /* Field size: 7 in block 1, absent in block 2, varied in block 3,
     * 7 in block 4, then a short block 5 absent; the reader reuses one
     * batch of a block's size, so a value it left there must never
     * stand for the next block's.  startTime (a time, moved in place
     * for a later trace) constant 5 in blocks 1 and 2. */
    const char *path = rbtest_tmp("consts.rbn");
    Rb_Batch *in = Rb_BatchCreate(Rb_IoSchema(), 5 * 4096), *b;
    Rb_NativeWriter *w;
    Rb_Reader *r;
    Rb_Error err;
    int i, n, blk, total = 4 * 4096 + 100;

    for (i = 0; i < total; i++) {
	Rb_BatchAppend(in);
	blk = i / 4096;
	in->col[RB_IO_TIME][i] = i;
	in->col[RB_IO_START][i] = blk < 2 ? 5 : i;
	in->col[RB_IO_SIZE][i] = blk == 0 || blk == 3 ? 7 : blk == 2
		? 512 * (i % 5) : RB_ABSENT;
    }
    w = RbNativeWriterOpen(NULL, path, Rb_IoSchema(), 0, compressions[_i], &err);
    ck_assert_int_eq(RbNativeWriterWrite(w, in, NULL, 0, &err), TCL_OK);
    ck_assert_int_eq(RbNativeWriterClose(w, &err), TCL_OK);
    r = Rb_ReaderOpen(path, NULL, RB_ONERROR_STOP, NULL, &err);
    ck_assert_ptr_nonnull(r);
    b = Rb_BatchCreate(r->schema, 4096);
    n = 0;
    for (;;) {
	int got;

	Rb_BatchClear(b);
	got = Rb_ReaderNext(r, b, &err);
	ck_assert_int_ge(got, 0);
	if (got == 0) {
	    break;
	}
	for (i = 0; i < b->n; i++) {
	    ck_assert_int_eq(b->col[RB_IO_TIME][i], n + i);
	    ck_assert_int_eq(b->col[RB_IO_START][i],
		    in->col[RB_IO_START][n + i]);
	    ck_assert_int_eq(b->col[RB_IO_SIZE][i],
		    in->col[RB_IO_SIZE][n + i]);
	}
	n += b->n;
    }
    ck_assert_int_eq(n, total);
    Rb_ReaderClose(r);
    Rb_BatchFree(b);
    Rb_BatchFree(in);
}
END_TEST

/* The offset of block k (1-based) of a version 2 file in buf. */
static long
V2Block(const unsigned char *buf, int k)
{
    long at = V2HeaderBytes();

    while (--k > 0) {
	at += Le32(buf + at + 4);
    }
    return at;
}

START_TEST(damaged_zstd_block_names_file_block_and_column)
{
    const char *path = rbtest_tmp("z.rbn"), *bad = rbtest_tmp("zbad.rbn");
    unsigned char *buf;
    long n, at, size, flip;
    Rb_Reader *r;
    Rb_Batch *b;
    Rb_Error err;
    char where[128];
    int rc;

    WriteVaried(path, 10000, RB_NATIVE_ZSTD);
    buf = Slurp(path, &n);
    at = V2Block(buf, 2);
    /* The size column (field 6) is a zstd frame after the strings
     * (none) and the time..op columns: flip a byte in its middle. */
    {
	long col = at + 24 + 8 * RB_IO_NFIELDS;
	int f;

	for (f = 0; f < RB_IO_SIZE; f++) {
	    long len = Le32(buf + at + 28 + 8 * f);

	    col += len + (8 - len % 8) % 8;
	}
	/* packed values or differences, in a zstd frame */
	ck_assert_uint_ge(Le32(buf + at + 24 + 8 * RB_IO_SIZE), 2);
	size = Le32(buf + at + 28 + 8 * RB_IO_SIZE);
	flip = col + size / 2;
	buf[flip] ^= 0x55;
    }
    rbtest_write_file(bad, buf, n);
    b = ReadV2(bad, 20000, 0, &r, &err, &rc, _i);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(b->n, 4096);
    ck_assert_str_eq(err.code, "RUBICON READER CORRUPT");
    ck_assert_ptr_nonnull(strstr(err.msg, bad));
    snprintf(where, sizeof(where), "record 4097 at byte offset %ld: block 2",
	    at);
    ck_assert_msg(strstr(err.msg, where) != NULL, "message: %s", err.msg);
    ck_assert_msg(strstr(err.msg, "column \"size\": zstd") != NULL,
	    "message: %s", err.msg);
    Rb_ReaderClose(r);
    Rb_BatchFree(b);

    /* The file (undamaged) cut inside block 2: the records of block 1,
     * then the error naming block 2. */
    buf[flip] ^= 0x55;
    rbtest_write_file(bad, buf, at + 100);
    b = ReadV2(bad, 20000, 0, &r, &err, &rc, _i);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(b->n, 4096);
    ck_assert_str_eq(err.code, "RUBICON READER TRUNCATED");
    ck_assert_ptr_nonnull(strstr(err.msg, bad));
    ck_assert_msg(strstr(err.msg, "inside block 2") != NULL, "message: %s",
	    err.msg);
    Rb_ReaderClose(r);
    Rb_BatchFree(b);

    /* Cut before the end marker. */
    rbtest_write_file(bad, buf, V2Block(buf, 4));
    b = ReadV2(bad, 20000, 0, &r, &err, &rc, _i);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(b->n, 10000);
    ck_assert_str_eq(err.code, "RUBICON READER TRUNCATED");
    ck_assert_msg(strstr(err.msg, "before block 4 or the end marker")
	    != NULL, "message: %s", err.msg);
    Rb_ReaderClose(r);
    Rb_BatchFree(b);
    free(buf);
}
END_TEST

/* ReadBroken -- reads bad (buf[0..n) written there) whole; checks the
 * records read before the error, its code, and that the message names
 * the file and holds want. */
static void
ReadBroken(const char *bad, const unsigned char *buf, long n, int records,
	const char *code, const char *want)
{
    Rb_Reader *r;
    Rb_Batch *b;
    Rb_Error err;
    int rc;

    rbtest_write_file(bad, buf, n);
    b = ReadV2(bad, 20000, 0, &r, &err, &rc, 1);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(b->n, records);
    ck_assert_str_eq(err.code, code);
    ck_assert_ptr_nonnull(strstr(err.msg, bad));
    ck_assert_msg(strstr(err.msg, want) != NULL, "message: %s", err.msg);
    Rb_ReaderClose(r);
    Rb_BatchFree(b);
}

START_TEST(uncompressed_file_cut_or_broken_names_file_and_block)
{
    /* An uncompressed file is walked with pread, not its map: its
     * blocks' heads, column tables and constants are read, its raw
     * columns read into the batch.  Each damage below is reported as
     * the documented layout (uncompressed_layout_is_the_documented_one)
     * places it. */
    const char *path = rbtest_tmp("u.rbn"), *bad = rbtest_tmp("ubad.rbn");
    unsigned char *buf, save[4];
    long n, at;

    WriteVaried(path, 10000, RB_NATIVE_NONE);
    buf = Slurp(path, &n);
    at = V2Block(buf, 2);
    /* Cut inside block 2's raw columns: block 1 read, then the error. */
    ReadBroken(bad, buf, at + 24 + 8 * RB_IO_NFIELDS + 1000, 4096,
	    "RUBICON READER TRUNCATED", "inside block 2");
    /* Cut before the end marker. */
    ReadBroken(bad, buf, V2Block(buf, 4), 10000, "RUBICON READER TRUNCATED",
	    "before block 4 or the end marker");
    /* Block 2 says it is 32 bytes long: shorter than its column table. */
    memcpy(save, buf + at + 4, 4);
    buf[at + 4] = 32;
    buf[at + 5] = buf[at + 6] = buf[at + 7] = 0;
    ReadBroken(bad, buf, n, 4096, "RUBICON READER CORRUPT",
	    "block 2: its strings run past its end");
    /* A block length that is not a multiple of 8. */
    buf[at + 4] = 33;
    ReadBroken(bad, buf, n, 4096, "RUBICON READER CORRUPT",
	    "a block length of 33 bytes");
    memcpy(buf + at + 4, save, 4);
    /* No block magic at block 2. */
    memcpy(buf + at, "XXXX", 4);
    ReadBroken(bad, buf, n, 4096, "RUBICON READER CORRUPT",
	    "block 2: no block magic");
    free(buf);
}
END_TEST

START_TEST(failed_write_leaves_no_file)
{
    Rb_Error err;
    char path[600];

    snprintf(path, sizeof(path), "%s/no-dir/x.rbn", rbtest_tmpdir());
    ck_assert_ptr_null(RbNativeWriterOpen(NULL, path, Rb_IoSchema(), 0,
	    compressions[_i], &err));
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

    w = RbNativeWriterOpen(NULL, rbtest_tmp("e.rbn"), Rb_IoSchema(), 7,
	    compressions[_i], &err);
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
    tcase_add_loop_test(tc, io_records_round_trip, 0, 3);
    tcase_add_loop_test(tc, string_schema_and_selection_round_trip, 0, 3);
    tcase_add_test(tc, truncated_file_is_an_error_naming_it);
    tcase_add_test(tc, corrupt_block_names_file_block_and_offset);
    tcase_add_test(tc, uncompressed_layout_is_the_documented_one);
    tcase_add_loop_test(tc, zstd_reads_only_the_fields_asked_for, 0, 2);
    tcase_add_test(tc, every_column_encoding_round_trips);
    tcase_add_loop_test(tc, constant_columns_change_between_blocks, 0, 3);
    tcase_add_loop_test(tc, damaged_zstd_block_names_file_block_and_column,
	    0, 2);
    tcase_add_test(tc, uncompressed_file_cut_or_broken_names_file_and_block);
    tcase_add_loop_test(tc, failed_write_leaves_no_file, 0, 3);
    tcase_add_loop_test(tc, empty_file_round_trips, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}
