/*
 * test_input.c --
 *
 *	Rb_Input: plain, gzip and bzip2 files of the same content read the
 *	same; lines of every ending and length; concatenated members; and
 *	truncated, corrupt and missing files give errors that name them.
 *	Every test runs twice: with compressed input decompressed on a
 *	thread of its own (when two cores are online) and inline
 *	(RUBICON_THREADS=0).
 */

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <zlib.h>
#include <bzlib.h>
#include <zstd.h>
#include <fcntl.h>
#include <unistd.h>
#include "rbtest.h"
#include "core/rbInt.h"
#include "io/zstdInput.h"

/* The test content: a short line, a CRLF line, an empty line, a line far
 * longer than the input buffer, and a last line without newline. */
#define LONG_LINE (3 * 1024 * 1024 + 17)
static char *content;
static size_t contentLen;

static void
Setup(void)
{
    size_t i, n = 0;

    rbtest_tmpdir_make("input");
    content = malloc(LONG_LINE + 100);
    n += sprintf(content + n, "alpha\nbeta\r\n\n");
    for (i = 0; i < LONG_LINE; i++) {
	content[n++] = 'a' + (char)(i * 7 % 26);
    }
    n += sprintf(content + n, "\r\nlast");
    contentLen = n;
}

static void
Teardown(void)
{
    rbtest_tmpdir_remove();
    free(content);
}

/* Appends data as one gzip member (gzopen "ab" starts a new member). */
static void
AppendGzip(const char *path, const void *data, size_t n)
{
    gzFile gz = gzopen(path, "ab");

    ck_assert_ptr_nonnull(gz);
    ck_assert_int_eq(gzwrite(gz, data, (unsigned)n), (int)n);
    ck_assert_int_eq(gzclose(gz), Z_OK);
}

/* Appends data as one bzip2 stream. */
static void
AppendBzip2(const char *path, const void *data, size_t n)
{
    unsigned int outLen = (unsigned)(n + n / 100 + 1000);
    char *out = malloc(outLen);
    FILE *fp;

    ck_assert_int_eq(BZ2_bzBuffToBuffCompress(out, &outLen, (char *)data,
	    (unsigned)n, 9, 0, 0), BZ_OK);
    fp = fopen(path, "ab");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(out, 1, outLen, fp), outLen);
    fclose(fp);
    free(out);
}

/* Reads the whole stream with Rb_InputRead in odd-sized pieces. */
static char *
ReadAll(const char *path, size_t *n, Rb_Error *err, int *failed)
{
    Rb_Input *in = Rb_InputOpen(path, err);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    long got;

    ck_assert_ptr_nonnull(in);
    *failed = 0;
    for (;;) {
	if (cap - len < 40000) {
	    cap *= 2;
	    buf = realloc(buf, cap);
	}
	got = Rb_InputRead(in, buf + len, 39999, err);
	if (got < 0) {
	    *failed = 1;
	    break;
	}
	if (got == 0) {
	    break;
	}
	len += (size_t)got;
	ck_assert_uint_eq(Rb_InputOffset(in), len);
    }
    Rb_InputClose(in);
    *n = len;
    return buf;
}

static void
CheckSameBytes(const char *path, const char *expectComp)
{
    Rb_Error err;
    Rb_Input *in;
    size_t n;
    int failed;
    char *got = ReadAll(path, &n, &err, &failed);

    ck_assert_int_eq(failed, 0);
    ck_assert_uint_eq(n, contentLen);
    ck_assert(memcmp(got, content, n) == 0);
    free(got);
    in = Rb_InputOpen(path, &err);
    ck_assert_str_eq(Rb_InputCompression(in), expectComp);
    Rb_InputClose(in);
}

static void
CheckLines(const char *path)
{
    Rb_Error err;
    Rb_Input *in = Rb_InputOpen(path, &err);
    size_t len, i;
    char *line;

    ck_assert_ptr_nonnull(in);
    line = Rb_InputGetLine(in, &len, &err);
    ck_assert_str_eq(line, "alpha");
    ck_assert_uint_eq(Rb_InputLineNo(in), 1);
    ck_assert_uint_eq(Rb_InputOffset(in), 6);
    line = Rb_InputGetLine(in, &len, &err);
    ck_assert_str_eq(line, "beta");
    ck_assert_uint_eq(len, 4);
    line = Rb_InputGetLine(in, &len, &err);
    ck_assert_str_eq(line, "");
    ck_assert_uint_eq(Rb_InputLineNo(in), 3);
    line = Rb_InputGetLine(in, &len, &err);
    ck_assert_ptr_nonnull(line);
    ck_assert_uint_eq(len, LONG_LINE);
    for (i = 0; i < LONG_LINE; i += 4099) {
	ck_assert_int_eq(line[i], 'a' + (char)(i * 7 % 26));
    }
    ck_assert_int_eq(line[len], '\0');
    line = Rb_InputGetLine(in, &len, &err);
    ck_assert_str_eq(line, "last");
    ck_assert_uint_eq(Rb_InputLineNo(in), 5);
    ck_assert_uint_eq(Rb_InputOffset(in), contentLen);
    ck_assert_ptr_null(Rb_InputGetLine(in, &len, &err));
    ck_assert_str_eq(err.code, "");
    Rb_InputClose(in);
}

START_TEST(plain_gzip_bzip2_give_same_bytes)
{
    rbtest_write_file(rbtest_tmp("c.txt"), content, contentLen);
    AppendGzip(rbtest_tmp("c.txt.gz"), content, contentLen);
    AppendBzip2(rbtest_tmp("c.txt.bz2"), content, contentLen);
    CheckSameBytes(rbtest_tmp("c.txt"), "none");
    CheckSameBytes(rbtest_tmp("c.txt.gz"), "gzip");
    CheckSameBytes(rbtest_tmp("c.txt.bz2"), "bzip2");
}
END_TEST

START_TEST(plain_gzip_bzip2_give_same_lines)
{
    rbtest_write_file(rbtest_tmp("l.txt"), content, contentLen);
    AppendGzip(rbtest_tmp("l.txt.gz"), content, contentLen);
    AppendBzip2(rbtest_tmp("l.txt.bz2"), content, contentLen);
    CheckLines(rbtest_tmp("l.txt"));
    CheckLines(rbtest_tmp("l.txt.gz"));
    CheckLines(rbtest_tmp("l.txt.bz2"));
}
END_TEST

START_TEST(concatenated_members_read_as_one_stream)
{
    size_t cut = 1000003;

    AppendGzip(rbtest_tmp("m.gz"), content, cut);
    AppendGzip(rbtest_tmp("m.gz"), content + cut, 10);
    AppendGzip(rbtest_tmp("m.gz"), content + cut + 10, contentLen - cut - 10);
    CheckSameBytes(rbtest_tmp("m.gz"), "gzip");
    CheckLines(rbtest_tmp("m.gz"));
    AppendBzip2(rbtest_tmp("m.bz2"), content, cut);
    AppendBzip2(rbtest_tmp("m.bz2"), content + cut, contentLen - cut);
    CheckSameBytes(rbtest_tmp("m.bz2"), "bzip2");
}
END_TEST

START_TEST(peek_does_not_consume)
{
    Rb_Error err;
    Rb_Input *in;
    char a[16], b[16];

    AppendGzip(rbtest_tmp("p.gz"), content, contentLen);
    in = Rb_InputOpen(rbtest_tmp("p.gz"), &err);
    ck_assert_int_eq(Rb_InputPeek(in, a, 11, &err), 11);
    ck_assert(memcmp(a, "alpha\nbeta\r", 11) == 0);
    ck_assert_uint_eq(Rb_InputOffset(in), 0);
    ck_assert_int_eq(Rb_InputReadFull(in, b, 11, &err), 1);
    ck_assert(memcmp(a, b, 11) == 0);
    Rb_InputClose(in);
}
END_TEST

START_TEST(read_full_tells_clean_end_from_short)
{
    Rb_Error err;
    Rb_Input *in;
    char buf[8];

    rbtest_write_file(rbtest_tmp("s.bin"), "0123456789", 10);
    in = Rb_InputOpen(rbtest_tmp("s.bin"), &err);
    ck_assert_int_eq(Rb_InputReadFull(in, buf, 5, &err), 1);
    ck_assert_int_eq(Rb_InputReadFull(in, buf, 5, &err), 1);
    ck_assert_int_eq(Rb_InputReadFull(in, buf, 5, &err), 0);
    Rb_InputClose(in);
    in = Rb_InputOpen(rbtest_tmp("s.bin"), &err);
    ck_assert_int_eq(Rb_InputReadFull(in, buf, 8, &err), 1);
    ck_assert_int_eq(Rb_InputReadFull(in, buf, 8, &err), -1);
    ck_assert_str_eq(err.code, "RUBICON READER TRUNCATED");
    ck_assert_ptr_nonnull(strstr(err.msg, rbtest_tmp("s.bin")));
    Rb_InputClose(in);
}
END_TEST

/* Copies the first n bytes of src to dst. */
static void
CutFile(const char *src, const char *dst, long n)
{
    FILE *fp = fopen(src, "rb");
    char *buf = malloc(n);

    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fread(buf, 1, n, fp), (size_t)n);
    fclose(fp);
    rbtest_write_file(dst, buf, n);
    free(buf);
}

static long
FileSize(const char *path)
{
    FILE *fp = fopen(path, "rb");
    long n;

    ck_assert_ptr_nonnull(fp);
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fclose(fp);
    return n;
}

/* Reading a cut file: a prefix of the content, then an error naming the
 * file and the number of bytes delivered. */
static void
CheckTruncated(const char *path, const char *code)
{
    Rb_Error err;
    size_t n;
    int failed;
    char *got = ReadAll(path, &n, &err, &failed), expect[128];

    ck_assert_int_eq(failed, 1);
    ck_assert_str_eq(err.code, code);
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    snprintf(expect, sizeof(expect), "truncated after %zu uncompressed "
	    "bytes", n);
    ck_assert_msg(strstr(err.msg, expect) != NULL, "message: %s", err.msg);
    ck_assert_uint_le(n, contentLen);
    ck_assert(memcmp(got, content, n) == 0);
    free(got);
}

START_TEST(truncated_gzip_is_an_error_naming_the_file)
{
    AppendGzip(rbtest_tmp("t.gz"), content, contentLen);
    CutFile(rbtest_tmp("t.gz"), rbtest_tmp("cut.gz"),
	    FileSize(rbtest_tmp("t.gz")) / 2);
    CheckTruncated(rbtest_tmp("cut.gz"), "RUBICON READER TRUNCATED");
    /* Cut inside the 8-byte trailer: every data byte is there. */
    CutFile(rbtest_tmp("t.gz"), rbtest_tmp("cut2.gz"),
	    FileSize(rbtest_tmp("t.gz")) - 3);
    CheckTruncated(rbtest_tmp("cut2.gz"), "RUBICON READER TRUNCATED");
}
END_TEST

START_TEST(truncated_bzip2_is_an_error_naming_the_file)
{
    const char *real = rbtest_data("srt/hourly.03126.srt.bz2");
    Rb_Error err;
    size_t n;
    int failed;
    char *got;

    CutFile(real, rbtest_tmp("cut.srt.bz2"), FileSize(real) / 2);
    got = ReadAll(rbtest_tmp("cut.srt.bz2"), &n, &err, &failed);
    ck_assert_int_eq(failed, 1);
    ck_assert_str_eq(err.code, "RUBICON READER TRUNCATED");
    ck_assert_ptr_nonnull(strstr(err.msg, rbtest_tmp("cut.srt.bz2")));
    ck_assert_ptr_nonnull(strstr(err.msg, "truncated after"));
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_lt(n, 3784298);
    free(got);
}
END_TEST

START_TEST(corrupt_gzip_is_an_error_naming_the_file)
{
    Rb_Error err;
    size_t n;
    int failed;
    long size;
    char *got, *buf;
    FILE *fp;

    AppendGzip(rbtest_tmp("x.gz"), content, contentLen);
    size = FileSize(rbtest_tmp("x.gz"));
    buf = malloc(size);
    fp = fopen(rbtest_tmp("x.gz"), "rb");
    ck_assert_uint_eq(fread(buf, 1, size, fp), (size_t)size);
    fclose(fp);
    buf[size / 2] ^= 0x55;
    buf[size / 2 + 1] ^= 0xaa;
    rbtest_write_file(rbtest_tmp("x.gz"), buf, size);
    free(buf);
    got = ReadAll(rbtest_tmp("x.gz"), &n, &err, &failed);
    ck_assert_int_eq(failed, 1);
    ck_assert_str_eq(err.code, "RUBICON READER CORRUPT");
    ck_assert_ptr_nonnull(strstr(err.msg, rbtest_tmp("x.gz")));
    free(got);
}
END_TEST

START_TEST(missing_file_is_an_open_error)
{
    Rb_Error err;

    ck_assert_ptr_null(Rb_InputOpen(rbtest_tmp("no-such-file"), &err));
    ck_assert_str_eq(err.code, "RUBICON READER OPEN");
    ck_assert_ptr_nonnull(strstr(err.msg, rbtest_tmp("no-such-file")));
    ck_assert_ptr_nonnull(strstr(err.msg, strerror(ENOENT)));
}
END_TEST

START_TEST(empty_file_reads_as_empty)
{
    Rb_Error err;
    Rb_Input *in;
    size_t len;
    char c;

    rbtest_write_file(rbtest_tmp("empty"), "", 0);
    in = Rb_InputOpen(rbtest_tmp("empty"), &err);
    ck_assert_ptr_nonnull(in);
    ck_assert_int_eq(Rb_InputPeek(in, &c, 1, &err), 0);
    ck_assert_int_eq(Rb_InputRead(in, &c, 1, &err), 0);
    ck_assert_ptr_null(Rb_InputGetLine(in, &len, &err));
    ck_assert_str_eq(err.code, "");
    Rb_InputClose(in);
}
END_TEST

/* The number of threads of this process. */
static int
Threads(void)
{
    DIR *dir = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    ck_assert_ptr_nonnull(dir);
    while ((e = readdir(dir)) != NULL) {
	n += e->d_name[0] != '.';
    }
    closedir(dir);
    return n;
}

START_TEST(compressed_input_has_a_thread_while_open)
{
    const char *env = getenv("RUBICON_THREADS");
    int before = Threads(), expect;
    Rb_Error err;
    Rb_Input *in;

    expect = sysconf(_SC_NPROCESSORS_ONLN) >= 2
	    && (env == NULL || strcmp(env, "0") != 0);
    AppendGzip(rbtest_tmp("t.gz"), content, contentLen);
    rbtest_write_file(rbtest_tmp("t.txt"), content, contentLen);
    in = Rb_InputOpen(rbtest_tmp("t.gz"), &err);
    ck_assert_int_eq(Threads(), before + expect);
    Rb_InputClose(in);
    ck_assert_int_eq(Threads(), before);
    in = Rb_InputOpen(rbtest_tmp("t.txt"), &err);
    ck_assert_int_eq(Threads(), before);
    Rb_InputClose(in);
}
END_TEST

START_TEST(closing_early_stops_decompression)
{
    int before = Threads(), i;
    Rb_Error err;
    Rb_Input *in;
    char buf[10];

    /* 3 MiB of content fill the ring ahead: the thread waits for room
     * when close comes, or is in the middle of a chunk. */
    AppendGzip(rbtest_tmp("e.gz"), content, contentLen);
    AppendBzip2(rbtest_tmp("e.bz2"), content, contentLen);
    for (i = 0; i < 20; i++) {
	in = Rb_InputOpen(rbtest_tmp(i % 2 ? "e.gz" : "e.bz2"), &err);
	ck_assert_ptr_nonnull(in);
	if (i % 4 < 2) {
	    ck_assert_int_eq(Rb_InputReadFull(in, buf, 10, &err), 1);
	    ck_assert(memcmp(buf, content, 10) == 0);
	}
	Rb_InputClose(in);
    }
    ck_assert_int_eq(Threads(), before);
}
END_TEST

static void
InlineOn(void)
{
    setenv("RUBICON_THREADS", "0", 1);
}

static void
InlineOff(void)
{
    unsetenv("RUBICON_THREADS");
}

/*
 * WindowRecords --
 *	Reads path in windows cut at the byte offsets cuts[0..ncuts) (and 0
 *	and the end), as the ranks of a split run do, each window after a
 *	header of headerLen bytes; appends every record read to out, lines
 *	with their newline, SRT records (srt) whole.
 * Results: the number of records read.
 */
static int WindowRecordsPer(const char *path, size_t headerLen, int srt,
	const uint64_t *cuts, int ncuts, uint64_t size, char *out,
	size_t *outLen, int *per);

static int
WindowRecords(const char *path, size_t headerLen, int srt,
	const uint64_t *cuts, int ncuts, uint64_t size, char *out,
	size_t *outLen)
{
    return WindowRecordsPer(path, headerLen, srt, cuts, ncuts, size, out,
	    outLen, NULL);
}

/*
 * WindowRecordsPer --
 *	WindowRecords, also giving each window's count in per[] (when not
 *	NULL) and, for lines, checking the first line of each window: its
 *	line number and byte offset with RbInputBases added are those of
 *	the lines before it counted in out (the whole, when the caller finds
 *	out equal to the file).
 */
static int
WindowRecordsPer(const char *path, size_t headerLen, int srt,
	const uint64_t *cuts, int ncuts, uint64_t size, char *out,
	size_t *outLen, int *per)
{
    int w, records = 0;

    *outLen = 0;
    for (w = 0; w <= ncuts; w++) {
	uint64_t begin = w == 0 ? 0 : cuts[w - 1];
	uint64_t end = w == ncuts ? size : cuts[w];
	Rb_Error err;
	Rb_Input *in = Rb_InputOpen(path, &err);
	char head[64];

	ck_assert_ptr_nonnull(in);
	err.code[0] = '\0';	/* a clean end of SRT records sets none */
	if (headerLen > 0) {
	    ck_assert_int_eq(Rb_InputReadFull(in, head, headerLen, &err), 1);
	}
	ck_assert_int_eq(RbInputWindow(in, begin, end, srt, &err), TCL_OK);
	if (per != NULL) {
	    per[w] = records;
	}
	if (srt) {
	    unsigned char len[4];

	    while (Rb_InputReadFull(in, len, 4, &err) == 1) {
		size_t n = (size_t)len[0] << 24 | (size_t)len[1] << 16
			| (size_t)len[2] << 8 | len[3];

		memcpy(out + *outLen, len, 4);
		ck_assert_int_eq(Rb_InputReadFull(in, out + *outLen + 4,
			n - 4, &err), 1);
		*outLen += n;
		records++;
	    }
	} else {
	    char *line;
	    size_t n;

	    uint64_t at = Rb_InputOffset(in);

	    while ((line = Rb_InputGetLine(in, &n, &err)) != NULL) {
		if (at != UINT64_MAX) {
		    uint64_t lines, bytes, before = 0;
		    size_t k;

		    for (k = 0; k < *outLen; k++) {
			before += out[k] == '\n';
		    }
		    RbInputBases(in, &lines, &bytes);
		    ck_assert_uint_eq(at + bytes, headerLen + *outLen);
		    ck_assert_uint_eq(Rb_InputLineNo(in) + lines, before + 1
			    + (headerLen > 0));
		    at = UINT64_MAX;
		}
		memcpy(out + *outLen, line, n);
		out[*outLen + n] = '\n';
		*outLen += n + 1;
		records++;
	    }
	}
	ck_assert_int_eq(err.code[0], 0);
	Rb_InputClose(in);
	if (per != NULL) {
	    per[w] = records - per[w];
	}
    }
    return records;
}

START_TEST(windows_tile_a_file_with_no_record_lost_or_read_twice)
{
    enum { NLINES = 500, NREC = 300 };
    char *text = malloc(64 * NLINES), *got = malloc(64 * NLINES + 64);
    unsigned char *srt = malloc(64 * NREC + 16);
    size_t textLen = 0, srtLen = 0, gotLen;
    const char *textPath = rbtest_tmp("window.txt");
    const char *srtPath = rbtest_tmp("window.srt");
    uint64_t cuts[3];
    int i, a;

    /* Lines of 1 to 40 bytes after a 6-byte header line; SRT-like
     * records of 8 to 60 bytes, each led by its big-endian length, after
     * a 5-byte header. */
    textLen = (size_t)sprintf(text, "head:\n");
    for (i = 0; i < NLINES; i++) {
	textLen += (size_t)sprintf(text + textLen, "%d %.*s\n", i,
		i * 7 % 36, "abcdefghijklmnopqrstuvwxyzabcdefghij");
    }
    memcpy(srt, "HEAD\f", 5);
    srtLen = 5;
    for (i = 0; i < NREC; i++) {
	size_t n = 8 + (size_t)(i * 13 % 53);

	srt[srtLen] = 0;
	srt[srtLen + 1] = 0;
	srt[srtLen + 2] = 0;
	srt[srtLen + 3] = (unsigned char)n;
	memset(srt + srtLen + 4, 'a' + i % 26, n - 4);
	srtLen += n;
    }
    rbtest_write_file(textPath, text, textLen);
    rbtest_write_file(srtPath, srt, srtLen);

    /* Cut points across the file (the header, line ends, the middle of
     * lines and records), each with more after it: the windows together
     * give each record once, in order. */
    for (a = 0; a <= (int)textLen; a += 211) {
	cuts[0] = (uint64_t)a;
	cuts[1] = (uint64_t)a + (textLen - (size_t)a) / 3;
	cuts[2] = (uint64_t)a + 2 * (textLen - (size_t)a) / 3;
	ck_assert_int_eq(WindowRecords(textPath, 0, 0, cuts, 3, textLen,
		got, &gotLen), NLINES + 1);
	ck_assert_uint_eq(gotLen, textLen);
	ck_assert(memcmp(got, text, textLen) == 0);
    }
    for (a = 0; a <= (int)srtLen; a += 113) {
	cuts[0] = (uint64_t)a;
	cuts[1] = (uint64_t)a + (srtLen - (size_t)a) / 2;
	ck_assert_int_eq(WindowRecords(srtPath, 5, 1, cuts, 2, srtLen,
		got, &gotLen), NREC);
	ck_assert_uint_eq(gotLen, srtLen - 5);
	ck_assert(memcmp(got, srt + 5, srtLen - 5) == 0);
    }
    free(text);
    free(got);
    free(srt);
}
END_TEST

/*
 * CompressedWindows --
 *	text (textLen bytes, lines) written as gzip members (or bzip2
 *	streams) of the given sizes, cut anywhere but at line ends, is read
 *	in windows cut at many places: the windows together give every line
 *	once, in order.  Cuts at the second and third members' starts give
 *	each window lines (so the file is really shared out); a window that
 *	holds no member start is empty.
 */
static void
CompressedWindows(const char *path, int bzip2, const char *text,
	size_t textLen, int nlines)
{
    static const size_t parts[] = {1000, 3001, 2222, 17, 4500};
    uint64_t starts[32], cuts[3], size = 0;
    char *got = malloc(textLen + 64);
    size_t done = 0, gotLen;
    int nm = 0, a, per[4];
    struct stat sb;

    unlink(path);
    while (done < textLen) {
	size_t n = parts[nm % 5] < textLen - done ? parts[nm % 5]
		: textLen - done;

	starts[nm] = nm == 0 || stat(path, &sb) != 0 ? 0
		: (uint64_t)sb.st_size;
	nm++;
	if (bzip2) {
	    AppendBzip2(path, text + done, n);
	} else {
	    AppendGzip(path, text + done, n);
	}
	done += n;
	ck_assert_int_lt(nm, 32);
    }
    ck_assert_int_eq(stat(path, &sb), 0);
    size = (uint64_t)sb.st_size;
    for (a = 0; a <= (int)size; a += 37) {
	cuts[0] = (uint64_t)a;
	cuts[1] = (uint64_t)a + (size - (uint64_t)a) / 3;
	cuts[2] = (uint64_t)a + 2 * (size - (uint64_t)a) / 3;
	ck_assert_int_eq(WindowRecords(path, 0, RB_WINDOW_LINES, cuts, 3,
		size, got, &gotLen), nlines);
	ck_assert_uint_eq(gotLen, textLen);
	ck_assert(memcmp(got, text, textLen) == 0);
    }
    cuts[0] = starts[1];
    cuts[1] = starts[1] + 1;
    cuts[2] = starts[2];
    ck_assert_int_eq(WindowRecordsPer(path, 0, RB_WINDOW_LINES, cuts, 3,
	    size, got, &gotLen, per), nlines);
    ck_assert(memcmp(got, text, textLen) == 0);
    ck_assert_int_gt(per[0], 0);
    ck_assert_int_gt(per[1], 0);
    ck_assert_int_eq(per[2], 0);
    ck_assert_int_gt(per[3], 0);
    free(got);
}

START_TEST(windows_tile_gzip_members_and_bzip2_streams)
{
    enum { NLINES = 800 };
    char *text = malloc(64 * NLINES);
    size_t textLen = 0;
    int i;

    for (i = 0; i < NLINES; i++) {
	textLen += (size_t)sprintf(text + textLen, "%d %.*s\n", i,
		i * 7 % 36, "abcdefghijklmnopqrstuvwxyzabcdefghij");
    }
    CompressedWindows(rbtest_tmp("window.gz"), 0, text, textLen, NLINES);
    CompressedWindows(rbtest_tmp("window.bz2"), 1, text, textLen, NLINES);
    free(text);
}
END_TEST

START_TEST(one_gzip_member_is_read_by_the_first_window)
{
    const char *path = rbtest_tmp("window1.gz");
    Rb_Error err;
    Rb_Input *in;
    char *line;
    int n;

    AppendGzip(path, "a\nb\n", 4);
    in = Rb_InputOpen(path, &err);
    ck_assert_ptr_nonnull(in);
    ck_assert_int_eq(RbInputWindow(in, 2, 4, RB_WINDOW_LINES, &err), TCL_OK);
    ck_assert_ptr_null(Rb_InputGetLine(in, NULL, &err));
    ck_assert_int_eq(err.code[0], 0);
    Rb_InputClose(in);
    in = Rb_InputOpen(path, &err);
    ck_assert_int_eq(RbInputWindow(in, 0, 2, RB_WINDOW_LINES, &err), TCL_OK);
    for (n = 0; (line = Rb_InputGetLine(in, NULL, &err)) != NULL; n++) {
	ck_assert_str_eq(line, n == 0 ? "a" : "b");
    }
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(RbInputWindow(in, 0, 2, RB_WINDOW_SRT, &err),
	    TCL_ERROR);
    ck_assert_str_eq(err.code, "RUBICON READER SPLIT");
    Rb_InputClose(in);
}
END_TEST

/*
 * The progress line of rubicon::run, worked by hand: 1000 records in 2 s
 * are 500 records/s; 250000 of 1000000 bytes read is 25.0%, and the other
 * 750000 at 125000 bytes/s take 6 s more.
 */
START_TEST(progress_line_gives_share_rate_and_time_left)
{
    char buf[256];

    RbProgressText(buf, sizeof(buf), "t.csv", 1000, 4000000, 250000,
	    1000000, 2.0, 0);
    ck_assert_str_eq(buf, "rubicon: t.csv: 1000 records, 25.0% of 1.0 MB, "
	    "500 records/s, 6 s left");
    /* A pipe (no total): MB read and time so far. */
    RbProgressText(buf, sizeof(buf), "standard input", 1000, 2500000, 0,
	    0, 2.0, 0);
    ck_assert_str_eq(buf, "rubicon: standard input: 1000 records, 2.5 MB, "
	    "500 records/s, 2.0 s");
    /* The final line. */
    RbProgressText(buf, sizeof(buf), "t.csv", 3000, 4000000, 1000000,
	    1000000, 4.0, 1);
    ck_assert_str_eq(buf, "rubicon: t.csv: 3000 records, 4.0 MB, "
	    "750 records/s, 4.0 s");
}
END_TEST

/* RbZstdFrameAt walks a file of a frame that declares its size, a
 * skippable frame, a frame of one repeated byte (RLE blocks) and a
 * frame that does not declare its size, by their headers alone: each
 * next offset is where ZSTD_compress's own lengths put it. */
START_TEST(zstd_frames_walked_by_their_headers)
{
    enum { A = 5000, R = 300000, B = 3000 };
    unsigned char *a = malloc(A), *rle = malloc(R), *b = malloc(B);
    size_t capA = ZSTD_compressBound(A), capR = ZSTD_compressBound(R);
    size_t capB = ZSTD_compressBound(B), lenA, lenR, lenB, i;
    unsigned char *ca = malloc(capA), *cr = malloc(capR), *cb = malloc(capB);
    unsigned char skip[15] = {0x50, 0x2a, 0x4d, 0x18, 7, 0, 0, 0};
    uint64_t content, next, at;
    const char *path = rbtest_tmp("frames.zst");
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    FILE *fp;
    int fd;

    for (i = 0; i < A; i++) {
	a[i] = (unsigned char)(i * 7919 >> 3);
    }
    for (i = 0; i < B; i++) {
	b[i] = (unsigned char)(i * 31 + (i >> 5));
    }
    memset(rle, 'x', R);
    lenA = ZSTD_compress(ca, capA, a, A, 3);
    lenR = ZSTD_compress(cr, capR, rle, R, 3);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    lenB = ZSTD_compress2(cctx, cb, capB, b, B);
    ck_assert(!ZSTD_isError(lenA) && !ZSTD_isError(lenR)
	    && !ZSTD_isError(lenB));
    fp = fopen(path, "wb");
    fwrite(ca, 1, lenA, fp);
    fwrite(skip, 1, sizeof(skip), fp);
    fwrite(cr, 1, lenR, fp);
    fwrite(cb, 1, lenB, fp);
    fclose(fp);
    fd = open(path, O_RDONLY);
    at = 0;
    ck_assert(RbZstdFrameAt(fd, at, lenA + 15 + lenR + lenB, &content, &next));
    ck_assert_uint_eq(content, A);
    ck_assert_uint_eq(next, lenA);
    at = next;
    ck_assert(RbZstdFrameAt(fd, at, lenA + 15 + lenR + lenB, &content, &next));
    ck_assert_uint_eq(content, 0);
    ck_assert_uint_eq(next, lenA + 15);
    at = next;
    ck_assert(RbZstdFrameAt(fd, at, lenA + 15 + lenR + lenB, &content, &next));
    ck_assert_uint_eq(content, R);
    ck_assert_uint_eq(next, lenA + 15 + lenR);
    at = next;
    ck_assert(RbZstdFrameAt(fd, at, lenA + 15 + lenR + lenB, &content, &next));
    ck_assert_uint_eq(content, UINT64_MAX);
    ck_assert_uint_eq(next, lenA + 15 + lenR + lenB);
    /* Cut short, the last frame is not a whole one; past the end, none. */
    ck_assert(!RbZstdFrameAt(fd, at, lenA + 15 + lenR + lenB - 1, &content,
	    &next));
    ck_assert(!RbZstdFrameAt(fd, lenA + 15 + lenR + lenB,
	    lenA + 15 + lenR + lenB, &content, &next));
    /* Not at a frame's start: no frame. */
    ck_assert(!RbZstdFrameAt(fd, 1, lenA + 15 + lenR + lenB, &content,
	    &next));
    close(fd);
    ZSTD_freeCCtx(cctx);
    free(a); free(rle); free(b); free(ca); free(cr); free(cb);
}
END_TEST

/* A test case of every test; inline ones decompress on the caller's
 * thread. */
static TCase *
Tests(const char *name, int inlineOnly)
{
    TCase *tc = tcase_create(name);

    tcase_add_unchecked_fixture(tc, Setup, Teardown);
    if (inlineOnly) {
	tcase_add_checked_fixture(tc, InlineOn, InlineOff);
    }
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, plain_gzip_bzip2_give_same_bytes);
    tcase_add_test(tc, plain_gzip_bzip2_give_same_lines);
    tcase_add_test(tc, concatenated_members_read_as_one_stream);
    tcase_add_test(tc, peek_does_not_consume);
    tcase_add_test(tc, read_full_tells_clean_end_from_short);
    tcase_add_test(tc, truncated_gzip_is_an_error_naming_the_file);
    tcase_add_test(tc, truncated_bzip2_is_an_error_naming_the_file);
    tcase_add_test(tc, corrupt_gzip_is_an_error_naming_the_file);
    tcase_add_test(tc, missing_file_is_an_open_error);
    tcase_add_test(tc, empty_file_reads_as_empty);
    tcase_add_test(tc, compressed_input_has_a_thread_while_open);
    tcase_add_test(tc, closing_early_stops_decompression);
    tcase_add_test(tc, windows_tile_a_file_with_no_record_lost_or_read_twice);
    tcase_add_test(tc, windows_tile_gzip_members_and_bzip2_streams);
    tcase_add_test(tc, one_gzip_member_is_read_by_the_first_window);
    tcase_add_test(tc, progress_line_gives_share_rate_and_time_left);
    tcase_add_test(tc, zstd_frames_walked_by_their_headers);
    return tc;
}

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("input");

    suite_add_tcase(s, Tests("threaded", 0));
    suite_add_tcase(s, Tests("inline", 1));
    return s;
}
