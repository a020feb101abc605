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

#define SECTOR 512
/* Seconds either side of 1970 taken (about 146 years). */
#define S_RANGE 4600000000LL

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
	    && v <= S_RANGE && RbParseInt(f[1], &v) && RbParseInt(f[2], &v)
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
    TencentState *st = r->state;
    char head[64];
    long n;
    int64_t s;

    st->tx.delim = ',';
    st->tx.comment = '#';
    n = Rb_InputPeek(r->in, head, sizeof(head) - 1, err);
    if (n < 0) {
	return TCL_ERROR;
    }
    head[n] = '\0';
    head[strcspn(head, ",\r\n")] = '\0';
    if (RbParseInt(head, &s) && s >= -S_RANGE && s <= S_RANGE) {
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

    if ((kind = RbTextFields(l, 5, 5, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 0, "Timestamp", 1, 1, &s, why,
		whyLen)) != NULL
	    || (kind = RbTextNumber(l, 1, "Offset", SECTOR, 1,
		&b->col[RB_IO_OFFSET][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 2, "Size", SECTOR, 1,
		&b->col[RB_IO_SIZE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 4, "VolumeID", 1, 1,
		&b->col[RB_IO_DEVICE][i], why, whyLen)) != NULL) {
	return kind;
    }
    if (b->col[RB_IO_OFFSET][i] < 0 || b->col[RB_IO_SIZE][i] < 0) {
	snprintf(why, whyLen, "%s is negative", b->col[RB_IO_SIZE][i] < 0
		? "Size" : "Offset");
	return "bad-field";
    }
    if (s < -S_RANGE || s > S_RANGE) {
	snprintf(why, whyLen, "Timestamp %lld is not a time between 1824 and "
		"2115", (long long)s);
	return "bad-field";
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
