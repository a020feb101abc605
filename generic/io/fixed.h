/*
 * fixed.h --
 *
 *	Input of binary traces of fixed-length records with no header
 *	(oraclegeneral, vscsi): records read a batch at a time, each turned
 *	into one record by the reader's parse proc, with the malformed-
 *	record and out-of-order policy applied.
 */

#ifndef RB_FIXED_H
#define RB_FIXED_H

#include "io/ioInt.h"

/* The state a fixed-record reader keeps inside its own state struct. */
typedef struct Rb_Fixed {
    size_t recLen;		/* Bytes per record, set by the reader. */
    int done;
    int failed;			/* pending holds an error for the next call. */
    Rb_Error pending;
    unsigned char *buf;		/* Room for a batch of records. */
} Rb_Fixed;

/* Parses the recLen bytes at rec into record i of b (appended with every
 * field absent).  Returns NULL when the record is good, or the malformed
 * kind ("bad-field", ...) with a detail in why. */
typedef const char *(Rb_FixedParseProc)(Rb_Reader *r,
		    const unsigned char *rec, Rb_Batch *b, int i, char *why,
		    size_t whyLen);

int		RbFixedNext(Rb_Reader *r, Rb_Fixed *fx, Rb_Batch *b,
		    Rb_FixedParseProc *parse, Rb_Error *err);
void		RbFixedFree(Rb_Fixed *fx);

/* Little-endian fields of a record. */
static inline uint16_t
RbLe16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
RbLe32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
	    | (uint32_t)p[3] << 24;
}

static inline uint64_t
RbLe64(const unsigned char *p)
{
    return (uint64_t)RbLe32(p) | (uint64_t)RbLe32(p + 4) << 32;
}

#endif /* RB_FIXED_H */
