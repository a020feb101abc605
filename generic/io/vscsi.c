/*
 * vscsi.c --
 *
 *	Reader of the CloudPhysics VMware vSCSI binary block traces, as
 *	libCacheSim reads them: records with no header, little-endian C
 *	structs of two versions, told apart by the version number in the
 *	high byte of the 16-bit ver field:
 *	  version 1, 32 bytes: uint32 sn, len, nSG; uint16 cmd, ver;
 *	    uint64 lbn, ts;
 *	  version 2, 40 bytes: uint16 cmd, ver; uint32 sn, len, nSG;
 *	    uint64 lbn, ts, rt;
 *	len in bytes, lbn in 512-byte sectors, ts and rt in microseconds,
 *	cmd the SCSI operation code.  Field mapping in doc/vscsi.n.
 */

#include "io/fixed.h"
#include "io/readers.h"

#define V1_LEN 32
#define V2_LEN 40
#define SECTOR 512
/* Records of head checked by sniffing and at open (all of them, when
 * fewer). */
#define PROBE 8

typedef struct VscsiState {
    Rb_Fixed fx;
    int version;
} VscsiState;

/*
 * Version --
 *	The record version of the n bytes at head: 2 when its first
 *	records (up to PROBE, at least one) all say version 2 at offset 2
 *	of 40-byte records, else 1 when they all say 1 at offset 14 of
 *	32-byte records, else 0 (libCacheSim tests version 2 first too).
 */
static int
Version(const unsigned char *head, size_t n)
{
    int v;

    for (v = 2; v >= 1; v--) {
	size_t len = v == 2 ? V2_LEN : V1_LEN, at = v == 2 ? 2 : 14, k;
	size_t nrec = n / len < PROBE ? n / len : PROBE;

	for (k = 0; k < nrec; k++) {
	    if (RbLe16(head + k * len + at) >> 8 != v) {
		break;
	    }
	}
	if (nrec > 0 && k == nrec) {
	    return v;
	}
    }
    return 0;
}

static int
VscsiSniff(const unsigned char *head, size_t n)
{
    /* One byte per record marks the format: with fewer than two records
     * that is too weak to claim it. */
    return n >= 2 * V2_LEN && Version(head, n) ? 70 : 0;
}

/*
 * VscsiOpen --
 *	Tells the version from the first records.
 */
static int
VscsiOpen(Rb_Reader *r, Rb_Error *err)
{
    VscsiState *st = r->state;
    unsigned char head[PROBE * V2_LEN];
    long n = Rb_InputPeek(r->in, head, sizeof(head), err);

    if (n < 0) {
	return TCL_ERROR;
    }
    st->version = Version(head, (size_t)n);
    if (n < V1_LEN) {
	st->version = 1;	/* no whole record: a short one, or none */
    } else if (st->version == 0) {
	Rb_SetError(err, "RUBICON READER CORRUPT", "%s: byte offset 0: not "
		"a vSCSI trace: the first records say neither version 1 "
		"(byte 15 of 32-byte records) nor version 2 (byte 3 of "
		"40-byte records)", Rb_InputPath(r->in));
	return TCL_ERROR;
    }
    st->fx.recLen = st->version == 2 ? V2_LEN : V1_LEN;
    /* The fields VscsiParse writes (the finish time in version 2 only);
     * the rest stay absent. */
    st->fx.writes = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_OP)
	    | RB_FIELD_BIT(RB_IO_FLAGS) | RB_FIELD_BIT(RB_IO_SIZE)
	    | RB_FIELD_BIT(RB_IO_DEVICE) | RB_FIELD_BIT(RB_IO_OFFSET)
	    | (st->version == 2 ? RB_FIELD_BIT(RB_IO_FINISH) : 0);
    RbInputSetRecordLength(r->in, st->fx.recLen);
    r->epochNs = 0;
    return TCL_OK;
}

/*
 * ScsiOp --
 *	RB_OP_READ for the SCSI READ commands (6, 10, 12, 16), RB_OP_WRITE
 *	for WRITE, else RB_ABSENT.
 */
static int64_t
ScsiOp(unsigned cmd)
{
    switch (cmd) {
    case 0x08: case 0x28: case 0xa8: case 0x88:
	return RB_OP_READ;
    case 0x0a: case 0x2a: case 0xaa: case 0x8a:
	return RB_OP_WRITE;
    }
    return RB_ABSENT;
}

/*
 * VscsiParse --
 *	One record into record i.
 */
static const char *
VscsiParse(Rb_Reader *r, const unsigned char *rec, Rb_Batch *b, int i,
	char *why, size_t whyLen)
{
    VscsiState *st = r->state;
    int v2 = st->version == 2;
    unsigned ver = RbLe16(rec + (v2 ? 2 : 14)) >> 8;
    unsigned cmd = RbLe16(rec + (v2 ? 0 : 12));
    uint64_t len = RbLe32(rec + (v2 ? 8 : 4));
    uint64_t lbn = RbLe64(rec + 16), ts = RbLe64(rec + 24);

    if (ver != (unsigned)st->version) {
	snprintf(why, whyLen, "version %u in a trace of version %d records",
		ver, st->version);
	return "bad-version";
    }
    if (lbn > (uint64_t)INT64_MAX / SECTOR
	    || ts > (uint64_t)INT64_MAX / 2000) {
	snprintf(why, whyLen, "%s %llu is out of range", lbn
		> (uint64_t)INT64_MAX / SECTOR ? "lbn" : "ts",
		(unsigned long long)(lbn > (uint64_t)INT64_MAX / SECTOR
		? lbn : ts));
	return "bad-field";
    }
    b->col[RB_IO_TIME][i] = (int64_t)ts * 1000;
    b->col[RB_IO_OP][i] = ScsiOp(cmd);
    b->col[RB_IO_FLAGS][i] = cmd;
    b->col[RB_IO_SIZE][i] = (int64_t)len;
    b->col[RB_IO_DEVICE][i] = 0;
    b->col[RB_IO_OFFSET][i] = (int64_t)lbn * SECTOR;
    if (v2) {
	uint64_t rt = RbLe64(rec + 32);

	if (rt > (uint64_t)INT64_MAX / 2000) {
	    snprintf(why, whyLen, "rt %llu is out of range",
		    (unsigned long long)rt);
	    return "bad-field";
	}
	b->col[RB_IO_FINISH][i] = (int64_t)(ts + rt) * 1000;
    }
    return NULL;
}

static int
VscsiNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    return RbFixedNext(r, &((VscsiState *)r->state)->fx, b, VscsiParse,
	    err);
}

static void
VscsiClose(Rb_Reader *r)
{
    RbFixedFree(&((VscsiState *)r->state)->fx);
}

const Rb_ReaderClass Rb_VscsiReaderClass = {
    "vscsi",
    "CloudPhysics VMware vSCSI binary block trace (versions 1 and 2)",
    sizeof(VscsiState),
    VscsiSniff,
    VscsiOpen,
    VscsiNext,
    VscsiClose,
};
