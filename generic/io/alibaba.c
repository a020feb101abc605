/*
 * alibaba.c --
 *
 *	Reader of the Alibaba Cloud block traces (alibaba/block-traces):
 *	CSV lines "device_id,opcode,offset,length,timestamp" with the
 *	opcode R or W, offset and length in bytes and the timestamp in
 *	microseconds (Unix time).  Field mapping in doc/alibaba.n.
 */

#include "io/text.h"
#include "io/readers.h"

/* device_id,opcode,offset,length,timestamp; bytes, us. */
static const Rb_BlockCsv columns = {
    0, 2, 3, 4, "device_id", "offset", "length", "timestamp", 1,
    4600000000000000LL
};

typedef struct AlibabaState {
    Rb_Text tx;
} AlibabaState;

/*
 * Opcode --
 *	RB_OP_READ for "R", RB_OP_WRITE for "W", -1 for anything else.
 */
static int
Opcode(const char *s)
{
    if (s[0] != '\0' && s[1] == '\0') {
	if (s[0] == 'R') {
	    return RB_OP_READ;
	} else if (s[0] == 'W') {
	    return RB_OP_WRITE;
	}
    }
    return -1;
}

/*
 * AlibabaLineOk --
 *	A sniffed line: five fields, whole numbers but for an R/W opcode
 *	second.
 */
static int
AlibabaLineOk(char **f, int nf)
{
    int64_t v;

    return nf == 5 && RbParseInt(f[0], &v) && Opcode(f[1]) >= 0
	    && RbParseInt(f[2], &v) && RbParseInt(f[3], &v)
	    && RbParseInt(f[4], &v);
}

static int
AlibabaSniff(const unsigned char *head, size_t n)
{
    return RbTextSniff(head, n, ',', AlibabaLineOk) * 9 / 10;
}

/*
 * AlibabaOpen --
 *	Takes the epoch from the first line's timestamp, truncated to the
 *	second; a first line that cannot be read leaves epoch 0 and is
 *	reported by next like any other bad line.
 */
static int
AlibabaOpen(Rb_Reader *r, Rb_Error *err)
{
    int64_t us;
    int found;

    if (RbBlockCsvOpen(r, &((AlibabaState *)r->state)->tx, &columns, &us,
	    &found, err) != TCL_OK) {
	return TCL_ERROR;
    }
    if (found) {
	r->epochNs = us * 1000 - ((us * 1000 % 1000000000) + 1000000000)
		% 1000000000;
    }
    return TCL_OK;
}

/*
 * AlibabaParse --
 *	One CSV line into record i.
 */
static const char *
AlibabaParse(Rb_Reader *r, Rb_TextLine *l, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    const char *kind;
    int64_t us;
    int op;

    if ((kind = RbBlockCsvParse(&columns, l, b, i, &us, why, whyLen))
	    != NULL) {
	return kind;
    }
    if ((op = Opcode(l->field[1])) < 0) {
	snprintf(why, whyLen, "opcode \"%.20s\" is neither R nor W",
		l->field[1]);
	return "bad-op";
    }
    b->col[RB_IO_TIME][i] = us * 1000 - r->epochNs;
    b->col[RB_IO_OP][i] = op;
    return NULL;
}

static int
AlibabaNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    return RbTextNext(r, &((AlibabaState *)r->state)->tx, b, AlibabaParse,
	    err);
}

const Rb_ReaderClass Rb_AlibabaReaderClass = {
    "alibaba",
    "Alibaba Cloud block trace (CSV device_id,opcode,offset,length,"
	"timestamp in us)",
    sizeof(AlibabaState),
    AlibabaSniff,
    AlibabaOpen,
    AlibabaNext,
    NULL,
};
