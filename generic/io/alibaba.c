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

/* Microseconds either side of 1970 taken (about 146 years), so that
 * times in ns and their differences fit an int64. */
#define US_RANGE 4600000000000000LL

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
    AlibabaState *st = r->state;
    char head[128], *p;
    long n;
    int64_t us;
    int k;

    st->tx.delim = ',';
    st->tx.comment = '#';
    n = Rb_InputPeek(r->in, head, sizeof(head) - 1, err);
    if (n < 0) {
	return TCL_ERROR;
    }
    head[n] = '\0';
    head[strcspn(head, "\r\n")] = '\0';
    for (p = head, k = 0; k < 4 && (p = strchr(p, ',')) != NULL; k++) {
	p++;
    }
    if (k == 4 && RbParseInt(p, &us) && us >= -US_RANGE && us <= US_RANGE) {
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

    if ((kind = RbTextFields(l, 5, 5, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 0, "device_id", 1, 1,
		&b->col[RB_IO_DEVICE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 2, "offset", 1, 1,
		&b->col[RB_IO_OFFSET][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 3, "length", 1, 1,
		&b->col[RB_IO_SIZE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 4, "timestamp", 1, 1, &us, why,
		whyLen)) != NULL) {
	return kind;
    }
    if (b->col[RB_IO_OFFSET][i] < 0 || b->col[RB_IO_SIZE][i] < 0) {
	snprintf(why, whyLen, "%s is negative", b->col[RB_IO_SIZE][i] < 0
		? "length" : "offset");
	return "bad-field";
    }
    if (us < -US_RANGE || us > US_RANGE) {
	snprintf(why, whyLen, "timestamp %lld is not a time between 1824 and "
		"2115", (long long)us);
	return "bad-field";
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
