/*
 * filterInt.h --
 *
 *	Declarations shared by the files of the filter language: the tokens
 *	of the lexer, and the compiled program, a tree of selection-vector
 *	operators (leaves compare a field, inner nodes are n-ary and/or).
 *	"not" never survives compilation: it is pushed down to the leaves
 *	(De Morgan), where it costs one xor per record.
 */

#ifndef RB_FILTER_INT_H
#define RB_FILTER_INT_H

#include "core/rbInt.h"

/*
 * Tokens.
 */

typedef enum FTokType {
    TK_END = 0,
    TK_IDENT,			/* field name */
    TK_NUMBER,			/* decimal, hex or time literal */
    TK_STRING,			/* "quoted" or 'quoted' */
    TK_LPAREN,
    TK_RPAREN,
    TK_MINUS,			/* sign of a number */
    TK_LT, TK_GT, TK_LE, TK_GE, TK_EQ, TK_NE,
    TK_NOT,			/* not, ! */
    TK_AND,			/* and, && */
    TK_OR,			/* or, || */
    TK_BETWEEN,
    TK_READ,
    TK_WRITE,
    TK_DELETE,			/* op = RB_OP_DELETE (object traces) */
    TK_BITAND			/* & (a bit test against a constant) */
} FTokType;

typedef struct FToken {
    FTokType type;
    int col;			/* 1-based byte column in the expression */
    const char *text;		/* Source span, for messages. */
    int len;
    /* TK_NUMBER: */
    int isInt;			/* ival is the exact value */
    int64_t ival;
    double dval;		/* the value as a double, always set */
    int isTime;			/* written with ':' (a time literal) */
    int nsOk;			/* ns holds the value in ns (fits int64) */
    int64_t ns;
    /* TK_STRING: unescaped text, malloc'd, owned by the parser. */
    char *str;
    size_t strLen;
} FToken;

typedef struct FLexer {
    const char *src;		/* Whole expression. */
    const char *p;		/* Next character to read. */
    Rb_Error *err;
} FLexer;

int		RbFilterLex(FLexer *lx, FToken *t);
void		RbFilterSyntaxError(Rb_Error *err, int col, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));
const char *	RbFilterDescribe(const FToken *t, char *buf, size_t n);

/*
 * The compiled program.
 */

typedef enum FCmp {
    CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE
} FCmp;

typedef enum FNodeKind {
    FN_TRUE,			/* selects every input record */
    FN_FALSE,			/* selects none */
    FN_INT_EQ,			/* col == lo */
    FN_INT_NE,			/* col != lo, col present */
    FN_INT_GE,			/* col >= lo (lo > RB_ABSENT) */
    FN_INT_RANGE,		/* lo <= col <= hi (lo > RB_ABSENT) */
    FN_DBL_CMP,			/* double col <op> dlo, present */
    FN_DBL_RANGE,		/* dlo <= double col <= dhi, present */
    FN_FF_INT,			/* int col <op> int col2, both present */
    FN_FF_DBL,			/* col <op> col2 as doubles, both present */
    FN_INT_BITS,		/* (col & lo) != 0, col present */
    FN_AND,
    FN_OR
} FNodeKind;

typedef struct FNode {
    FNodeKind kind;
    int neg;			/* Leaves: select where the test fails. */
    FCmp op;			/* FN_DBL_CMP, FN_FF_* */
    int field, field2;
    int dbl1, dbl2;		/* FN_FF_DBL: the field holds a double */
    int64_t lo, hi;
    double dlo, dhi;
    int level;			/* FN_AND, FN_OR: which scratch pair */
    int relTime;		/* lo, hi are rlo, rhi + the trace's start */
    int64_t rlo, rhi;		/* relTime: bounds from the trace's start */
    int nkids, kidCap;
    struct FNode **kids;
} FNode;

struct Rb_FilterProg {
    char *source;
    Rb_Schema *schema;		/* Retained: string ids are its own. */
    FNode *root;
    FNode **nodes;		/* Every node allocated, for freeing. */
    int nnodes, nodeCap;
    int nlevels;		/* Depth of and/or nesting. */
    uint32_t *scratch;		/* 2 * nlevels * RB_BATCH_SIZE entries */
};

int		RbFilterEval(const Rb_FilterProg *p, const FNode *n,
		    const Rb_Batch *b, const uint32_t *in, int nIn,
		    uint32_t *out);
int		RbFilterEvalAndExcept(const Rb_FilterProg *p, const FNode *n,
		    int skip, const Rb_Batch *b, const uint32_t *in, int nIn,
		    uint32_t *out);

#endif /* RB_FILTER_INT_H */
