/*
 * oracleGeneral.c --
 *
 *	Reader of libCacheSim's "oracleGeneral" binary object traces:
 *	records of 24 bytes, little-endian, no header: uint32 time (s),
 *	uint64 object id, uint32 object size (bytes), int64 the virtual
 *	time (request number) of the object's next request, -1 for none.
 *	Records of the object schema.  Field mapping in
 *	doc/oraclegeneral.n.
 */

#include "io/fixed.h"
#include "io/readers.h"

#define REC_LEN 24
/* A next-access value past this is not a request number (text read as
 * a record gives about 2^61): sniffing refuses it. */
#define NEXT_MAX ((int64_t)1 << 48)

typedef struct OracleState {
    Rb_Fixed fx;
} OracleState;

/*
 * OracleSniff --
 *	Every whole record of head (at least two) has times that never go
 *	back and a next access that is -1 or a later request number below
 *	2^48.  Nothing in the format marks it, so the score is low: any
 *	format with a mark of its own wins.
 */
static int
OracleSniff(const unsigned char *head, size_t n)
{
    size_t k, nrec = n / REC_LEN;
    uint32_t last = 0;

    if (nrec < 2) {
	return 0;
    }
    for (k = 0; k < nrec; k++) {
	const unsigned char *p = head + k * REC_LEN;
	int64_t next = (int64_t)RbLe64(p + 16);
	uint32_t t = RbLe32(p);

	if (t < last || (next != -1 && (next <= (int64_t)k
		|| next > NEXT_MAX))) {
	    return 0;
	}
	last = t;
    }
    return 40;
}

static int
OracleOpen(Rb_Reader *r, Rb_Error *err)
{
    OracleState *st = r->state;

    st->fx.recLen = REC_LEN;
    /* The fields OracleParse writes; the rest stay absent. */
    st->fx.writes = RB_FIELD_BIT(RB_OBJ_TIME) | RB_FIELD_BIT(RB_OBJ_ID)
	    | RB_FIELD_BIT(RB_OBJ_SIZE) | RB_FIELD_BIT(RB_OBJ_NEXTACCESS);
    RbInputSetRecordLength(r->in, REC_LEN);
    r->schema = Rb_ObjectSchema();
    r->epochNs = 0;
    return TCL_OK;
}

/*
 * OracleParse --
 *	One record into record i: time, objectId, objectSize and nextAccess.
 */
static inline const char *
OracleParse(Rb_Reader *r, const unsigned char *rec, Rb_Batch *b, int i,
	char *why, size_t whyLen)
{
    int64_t next = (int64_t)RbLe64(rec + 16);

    if (next < -1) {
	snprintf(why, whyLen, "next access %lld is neither -1 nor a request "
		"number", (long long)next);
	return "bad-field";
    }
    b->col[RB_OBJ_TIME][i] = (int64_t)RbLe32(rec) * 1000000000;
    b->col[RB_OBJ_ID][i] = (int64_t)RbLe64(rec + 4);
    b->col[RB_OBJ_SIZE][i] = RbLe32(rec + 12);
    b->col[RB_OBJ_NEXTACCESS][i] = next;
    return NULL;
}

static int
OracleNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    return RbFixedNext(r, &((OracleState *)r->state)->fx, b, OracleParse,
	    err);
}

static void
OracleClose(Rb_Reader *r)
{
    RbFixedFree(&((OracleState *)r->state)->fx);
}

const Rb_ReaderClass Rb_OracleGeneralReaderClass = {
    "oraclegeneral",
    "libCacheSim oracleGeneral binary object trace (24-byte records)",
    sizeof(OracleState),
    OracleSniff,
    OracleOpen,
    OracleNext,
    OracleClose,
};
