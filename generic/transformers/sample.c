/*
 * sample.c --
 *
 *	SampleTransformer: passes one record in N.  Without -key it keeps
 *	the 1st, (N+1)th, ... record it sees.  With -key it keeps the
 *	records whose key hashes to 0 modulo N, so that every record of a
 *	kept key is kept (all I/Os of one process, one file, one request):
 *	the same keys are chosen in every run and every trace.
 *
 *	With -blocksize B it samples blocks, not records: of each I/O it
 *	keeps the B-byte blocks (numbered by the offset field, -key, on the
 *	I/O's deviceNo) whose 64-bit hash is at most (2^64 - 1) / N, each
 *	run of consecutive kept blocks as one record cut to the run.  Every
 *	access to a kept block is kept, whatever I/O makes it, as SHARDS
 *	samples (Waldspurger et al., FAST 2015): the block analyzers behind
 *	see 1 block in N.
 */

#include "transformers.h"

typedef struct SampleState {
    int64_t every;		/* -every N */
    char *key;			/* -key field, or "" */
    int64_t seed;		/* -seed, mixed into the hash */
    int64_t blockSize;		/* -blocksize B, 0: sample records */
    uint64_t seen;
    int fKey;			/* -1: no key */
    int fDevice, fSize, fLvOffset;	/* -blocksize: -1 if missing */
    int64_t resume;		/* -blocksize: the block the first record of
				 * the next call resumes at, -1 none */
    const Rb_Schema *schema;
} SampleState;

static const Rb_Option sampleOptions[] = {
    {"-every", RB_OPT_INT, offsetof(SampleState, every), "10",
	"keep one record in N"},
    {"-key", RB_OPT_STRING, offsetof(SampleState, key), "",
	"field whose hash chooses the records (empty: every Nth record)"},
    {"-seed", RB_OPT_INT, offsetof(SampleState, seed), "0",
	"varies which keys a keyed sample keeps"},
    {"-blocksize", RB_OPT_INT, offsetof(SampleState, blockSize), "0",
	"sample blocks of this many bytes of the -key offset (0: records)"},
    {NULL}
};

/*
 * SampleInit --
 *	Checks -every.
 */
static int
SampleInit(Rb_Transformer *t, Tcl_Interp *interp)
{
    SampleState *st = t->state;

    if (st->every < 1) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-every must be at least 1, not %lld", (long long)st->every);
    }
    if (st->blockSize < 0) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-blocksize must be 0 (records) or a positive number of "
		"bytes, not %lld", (long long)st->blockSize);
    }
    return TCL_OK;
}

/*
 * SampleStart --
 *	Restarts the count and resolves -key.
 */
static int
SampleStart(Rb_Transformer *t, const Rb_RunInfo *run)
{
    SampleState *st = t->state;

    st->seen = 0;
    st->fKey = -1;
    st->resume = -1;
    st->schema = run->schema;
    if (st->blockSize > 0) {
	st->fDevice = Rb_SchemaFieldIndex(run->schema, "deviceNo");
	st->fLvOffset = Rb_SchemaFieldIndex(run->schema, "lvOffset");
	return RbXfField(t, run->schema, st->key && st->key[0] ? st->key
		: "devOffset", &st->fKey) != TCL_OK
		|| RbXfField(t, run->schema, "size", &st->fSize) != TCL_OK
		? TCL_ERROR : TCL_OK;
    }
    if (st->key && st->key[0]) {
	return RbXfField(t, run->schema, st->key, &st->fKey);
    }
    return TCL_OK;
}

/*
 * KeyHash --
 *	Hash of the key of record i.  A string key is hashed by its text
 *	(FNV-1a), not its interned id, which depends on the order strings
 *	were first seen.
 */
static uint64_t
KeyHash(const SampleState *st, const Rb_Batch *in, int i)
{
    int64_t v = in->col[st->fKey][i];
    uint64_t h;

    if (st->schema->fields[st->fKey].type == RB_FT_STRING
	    && v != RB_ABSENT) {
	const unsigned char *s =
		(const unsigned char *)Rb_SchemaString(st->schema, v);

	for (h = 0xcbf29ce484222325ULL; s && *s; s++) {
	    h = (h ^ *s) * 0x100000001b3ULL;
	}
    } else {
	h = (uint64_t)v;
    }
    return Rb_HashKey((int64_t)(h ^ (uint64_t)st->seed));
}

/*
 * BlockKept --
 *	Whether block blockNo of the device whose hash is devHash is in the
 *	-blocksize sample: whether its hash is at most below, (2^64 - 1) / N
 *	(a comparison, not a division per block).
 */
/* Mixed into each device's hash, so that the sample is independent of
 * the sketches that hash blocks the same way without it (FootprintAnalyzer's
 * HyperLogLog, RbDistinctOfBlocks): kept blocks would otherwise all have
 * small sketch hashes, and a sketch behind the sample would count a tiny
 * fraction of them. */
#define BLOCK_SALT 0x2545F4914F6CDD1DULL

static inline int
BlockKept(uint64_t devHash, int64_t blockNo, uint64_t below)
{
    return (uint64_t)Rb_HashKey((int64_t)(devHash ^ (uint64_t)blockNo))
	    <= below;
}

/*
 * SampleBlocks --
 *	-blocksize: appends the runs of kept blocks of each selected I/O,
 *	each a copy of the I/O cut to the run (its offset, size and
 *	lvOffset moved with it).  An I/O without a device (when the records
 *	have deviceNo), an offset or a size, or with a negative one, passes
 *	as it is: the block analyzers behind count it as one they skip.
 *	When out is full it stops, setting t->taken, and resumes at the same
 *	block of the same I/O.
 */
static void
SampleBlocks(Rb_Transformer *t, const Rb_Batch *in, const uint32_t *sel,
	int nsel, Rb_Batch *out)
{
    SampleState *st = t->state;
    const int64_t *offsets = in->col[st->fKey], *sizes = in->col[st->fSize];
    int64_t bs = st->blockSize;
    uint64_t below = UINT64_MAX / (uint64_t)st->every;
    /* A shift for a block size that is a power of two (the offsets here
     * are not negative). */
    int shift = (bs & (bs - 1)) == 0 ? __builtin_ctzll((uint64_t)bs) : -1;
    int j;

    for (j = 0; j < nsel; j++) {
	int i = (int)sel[j];
	int64_t off = offsets[i], size = sizes[i], dev = 0, first, last, k;
	uint64_t devHash;

	if (st->fDevice >= 0) {
	    dev = in->col[st->fDevice][i];
	}
	if (off == RB_ABSENT || size == RB_ABSENT || off < 0 || size < 0
		|| size > INT64_MAX - off || dev == RB_ABSENT) {
	    if (out->n == out->cap) {
		t->taken = j;
		return;
	    }
	    Rb_BatchCopyRecord(out, in, i);
	    continue;
	}
	devHash = Rb_HashKey((int64_t)((uint64_t)dev ^ (uint64_t)st->seed
		^ BLOCK_SALT));
	if (shift >= 0) {
	    first = off >> shift;
	    last = size > 0 ? (off + size - 1) >> shift : first;
	} else {
	    first = off / bs;
	    last = size > 0 ? (off + size - 1) / bs : first;
	}
	k = j == 0 && st->resume >= 0 ? st->resume : first;
	st->resume = -1;
	for (; k <= last; k++) {
	    int64_t runFirst, lo, hi;
	    int o;

	    if (!BlockKept(devHash, k, below)) {
		continue;
	    }
	    if (out->n == out->cap) {
		t->taken = j;
		st->resume = k;
		return;
	    }
	    for (runFirst = k++; k <= last && BlockKept(devHash, k, below);
		    k++) {
	    }
	    lo = runFirst * bs > off ? runFirst * bs : off;
	    hi = k * bs < off + size ? k * bs : off + size;
	    o = Rb_BatchCopyRecord(out, in, i);
	    out->col[st->fKey][o] = lo;
	    out->col[st->fSize][o] = hi - lo;
	    if (st->fLvOffset >= 0 && st->fLvOffset != st->fKey
		    && out->col[st->fLvOffset][o] != RB_ABSENT) {
		out->col[st->fLvOffset][o] += lo - off;
	    }
	}
    }
}

/*
 * SampleTransform --
 *	Copies the chosen records.
 */
static int
SampleTransform(Rb_Transformer *t, const Rb_Batch *in, const uint32_t *sel,
	int nsel, Rb_Batch *out)
{
    SampleState *st = t->state;
    uint64_t every = (uint64_t)st->every;
    int j;

    if (st->blockSize > 0) {
	SampleBlocks(t, in, sel, nsel, out);
	return TCL_OK;
    }
    for (j = 0; j < nsel; j++) {
	int keep = st->fKey >= 0 ? KeyHash(st, in, sel[j]) % every == 0
		: st->seen++ % every == 0;

	if (keep) {
	    Rb_BatchCopyRecord(out, in, sel[j]);
	}
    }
    return TCL_OK;
}

const Rb_TransformerClass Rb_SampleTransformerClass = {
    "SampleTransformer",
    "passes one record in N, the records of one key in N, or with "
	"-blocksize the parts of I/Os on one block in N",
    sizeof(SampleState), sampleOptions,
    SampleInit, SampleStart, SampleTransform, NULL, NULL,
    1
};
