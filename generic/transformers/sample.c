/*
 * sample.c --
 *
 *	SampleTransformer: passes one record in N.  Without -key it keeps
 *	the 1st, (N+1)th, ... record it sees.  With -key it keeps the
 *	records whose key hashes to 0 modulo N, so that every record of a
 *	kept key is kept (all I/Os of one process, one file, one request):
 *	the same keys are chosen in every run and every trace.
 */

#include "transformers.h"

typedef struct SampleState {
    int64_t every;		/* -every N */
    char *key;			/* -key field, or "" */
    int64_t seed;		/* -seed, mixed into the hash */
    uint64_t seen;
    int fKey;			/* -1: no key */
    const Rb_Schema *schema;
} SampleState;

static const Rb_Option sampleOptions[] = {
    {"-every", RB_OPT_INT, offsetof(SampleState, every), "10",
	"keep one record in N"},
    {"-key", RB_OPT_STRING, offsetof(SampleState, key), "",
	"field whose hash chooses the records (empty: every Nth record)"},
    {"-seed", RB_OPT_INT, offsetof(SampleState, seed), "0",
	"varies which keys a keyed sample keeps"},
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
    st->schema = run->schema;
    if (st->key && st->key[0]) {
	return RbXfField(t, run->schema, st->key, &st->fKey);
    }
    return TCL_OK;
}

/*
 * Mix --
 *	A 64-bit finalizer (splitmix64): nearby keys land far apart.
 */
static uint64_t
Mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
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
    return Mix(h ^ (uint64_t)st->seed);
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
    "passes one record in N, or the records of one key in N",
    sizeof(SampleState), sampleOptions,
    SampleInit, SampleStart, SampleTransform, NULL, NULL,
    1
};
