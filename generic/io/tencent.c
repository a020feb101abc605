/*
 * tencent.c --
 *
 *	Reader of the Tencent Cloud Block Storage traces (SNIA IOTTA, the
 *	OSCA paper's): CSV lines "Timestamp,Offset,Size,IOType,VolumeID"
 *	with the timestamp in Unix seconds, offset and size in 512-byte
 *	sectors and IOType 0 for a read, 1 for a write.  Field mapping in
 *	doc/tencent.n.
 */

#include "io/text.h"
#include "io/readers.h"

/* Timestamp,Offset,Size,IOType,VolumeID; s, 512-byte sectors. */
static const Rb_BlockCsv columns = {
    4, 1, 2, 0, "VolumeID", "Offset", "Size", "Timestamp", 512,
    4600000000LL
};

typedef struct TencentState {
    Rb_Text tx;
} TencentState;

/*
 * TencentLineOk --
 *	A sniffed line: five whole numbers, the fourth 0 or 1, the first a
 *	time after 2001 (what tells it from other CSV of five numbers is
 *	little, so the score is modest).
 */
static int
TencentLineOk(char **f, int nf)
{
    int64_t v;

    return nf == 5 && RbParseInt(f[0], &v) && v >= 1000000000
	    && v <= columns.timeRange && RbParseInt(f[1], &v)
	    && RbParseInt(f[2], &v)
	    && (strcmp(f[3], "0") == 0 || strcmp(f[3], "1") == 0)
	    && RbParseInt(f[4], &v);
}

static int
TencentSniff(const unsigned char *head, size_t n)
{
    return RbTextSniff(head, n, ',', TencentLineOk) * 6 / 10;
}

/*
 * TencentOpen --
 *	Takes the epoch from the first line's timestamp; a first line that
 *	cannot be read leaves epoch 0 and is reported by next like any
 *	other bad line.
 */
static int
TencentOpen(Rb_Reader *r, Rb_Error *err)
{
    int64_t s;
    int found;

    if (RbBlockCsvOpen(r, &((TencentState *)r->state)->tx, &columns, &s,
	    &found, err) != TCL_OK) {
	return TCL_ERROR;
    }
    if (found) {
	r->epochNs = s * 1000000000;
    }
    return TCL_OK;
}

/*
 * TencentParse --
 *	One CSV line into record i.
 */
static const char *
TencentParse(Rb_Reader *r, Rb_TextLine *l, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    const char *kind, *type = l->field[3];
    int64_t s;

    if ((kind = RbBlockCsvParse(&columns, l, b, i, &s, why, whyLen))
	    != NULL) {
	return kind;
    }
    if ((type[0] != '0' && type[0] != '1') || type[1] != '\0') {
	snprintf(why, whyLen, "IOType \"%.20s\" is neither 0 (read) nor 1 "
		"(write)", type);
	return "bad-op";
    }
    b->col[RB_IO_TIME][i] = s * 1000000000 - r->epochNs;
    b->col[RB_IO_OP][i] = type[0] == '0' ? RB_OP_READ : RB_OP_WRITE;
    return NULL;
}

static int
TencentNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    return RbTextNext(r, &((TencentState *)r->state)->tx, b, TencentParse,
	    err);
}

const Rb_ReaderClass Rb_TencentReaderClass = {
    "tencent",
    "Tencent Cloud Block Storage trace (CSV Timestamp,Offset,Size,IOType,"
	"VolumeID; s, sectors)",
    sizeof(TencentState),
    TencentSniff,
    TencentOpen,
    TencentNext,
    NULL,
};
