/*
 * filter.c --
 *
 *	The filter language of Rubicon's Appendix B: a recursive-descent
 *	parser that compiles an expression straight into the tree that
 *	filterExec.c runs over selection vectors.  Every check (field names,
 *	types, literal ranges) happens here, so a program that compiled
 *	never fails at run time.
 *
 *	Grammar (tightest last):
 *	    or      := and { ("or" | "||") and }
 *	    and     := not { ("and" | "&&") not }
 *	    not     := { "not" | "!" } primary
 *	    primary := "(" or ")" | "read" | "write" | "delete"
 *		     | operand cmp operand
 *		     | operand "between" operand "and" operand
 *	    operand := field | ["-"] number | string
 *	    cmp     := "<" | ">" | "<=" | ">=" | "=" | "==" | "<>" | "!="
 *
 *	"not" is not a node: the parser carries a negation flag down and
 *	applies De Morgan, so "not (a or b)" compiles to "!a and !b" with the
 *	negation in the leaves.  Since a record is either selected or not,
 *	this is exact, absent values included.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "filter/filterInt.h"

/* Deepest parenthesis nesting accepted; bounds recursion and scratch. */
#define MAX_NESTING 100

/* 2^63: the first double that does not fit an int64_t. */
#define TWO63 9223372036854775808.0

typedef struct Parser {
    FLexer lx;
    FToken tok;			/* Lookahead. */
    Rb_Schema *schema;
    Rb_FilterProg *prog;	/* Owns every node made. */
    Rb_Error *err;
    int nesting;
} Parser;

/* One side of a comparison. */
typedef enum OperandKind { OPD_FIELD, OPD_NUMBER, OPD_STRING } OperandKind;

typedef struct Operand {
    OperandKind kind;
    int col;
    const char *text;		/* Source span, for messages. */
    int len;
    int field;			/* OPD_FIELD */
    FToken tok;			/* OPD_NUMBER (sign applied), OPD_STRING */
} Operand;

/* An integer predicate before it becomes a leaf: a closed interval that
 * excludes RB_ABSENT, "not equal to lo", or nothing at all. */
typedef enum IntPredKind { IP_NONE, IP_RANGE, IP_NE } IntPredKind;

typedef struct IntPred {
    IntPredKind kind;
    int64_t lo, hi;
} IntPred;

static int	ParseOr(Parser *ps, int neg, FNode **out);

/*
 * NewNode --
 *	Allocates a zeroed node owned by the program being built.
 */
static FNode *
NewNode(Parser *ps, FNodeKind kind, int neg)
{
    Rb_FilterProg *p = ps->prog;
    FNode *n = Rb_Alloc(sizeof(*n));

    if (p->nnodes == p->nodeCap) {
	p->nodeCap = p->nodeCap ? 2 * p->nodeCap : 16;
	p->nodes = Rb_ReallocArray(p->nodes, p->nodeCap, sizeof(FNode *));
    }
    p->nodes[p->nnodes++] = n;
    n->kind = kind;
    n->neg = neg;
    return n;
}

/*
 * ConstNode --
 *	A leaf that is always true (or false), negation already applied.
 */
static FNode *
ConstNode(Parser *ps, int value, int neg)
{
    return NewNode(ps, (value ^ neg) ? FN_TRUE : FN_FALSE, 0);
}

/*
 * AddKid --
 *	Appends kid to an and/or node, splicing in its children when kid is
 *	of the same kind so that chains stay flat (no deep recursion).
 */
static void
AddKid(FNode *n, FNode *kid)
{
    int i;

    if (kid->kind == n->kind) {
	for (i = 0; i < kid->nkids; i++) {
	    AddKid(n, kid->kids[i]);
	}
	return;
    }
    if (n->nkids == n->kidCap) {
	n->kidCap = n->kidCap ? 2 * n->kidCap : 4;
	n->kids = Rb_ReallocArray(n->kids, n->kidCap, sizeof(FNode *));
    }
    n->kids[n->nkids++] = kid;
}

/*
 * Combine --
 *	Makes the and (or the or) of kids, folding constants: a true kid of
 *	an and is dropped, a false one makes it false, and dually for or.
 *	A first kid that is already a node of this kind is extended in place
 *	(it belongs to no one else), so chains cost linear time.
 * Results: the node, which is a kid itself when only one remains.
 */
static FNode *
Combine(Parser *ps, FNodeKind kind, FNode **kids, int nkids)
{
    FNodeKind absorbing = kind == FN_AND ? FN_FALSE : FN_TRUE;
    FNodeKind neutral = kind == FN_AND ? FN_TRUE : FN_FALSE;
    FNode *n = NULL;
    int i;

    for (i = 0; i < nkids; i++) {
	if (kids[i]->kind == absorbing) {
	    return kids[i];
	}
    }
    for (i = 0; i < nkids; i++) {
	if (kids[i]->kind == neutral) {
	    continue;
	}
	if (n == NULL) {
	    n = kids[i];
	    continue;
	}
	if (n->kind != kind) {
	    FNode *first = n;

	    n = NewNode(ps, kind, 0);
	    AddKid(n, first);
	}
	AddKid(n, kids[i]);
    }
    return n ? n : NewNode(ps, neutral, 0);
}

/*
 * Advance --
 *	Reads the next token into the lookahead.
 * Results: 0, or -1 with the error set.
 */
static int
Advance(Parser *ps)
{
    free(ps->tok.str);
    ps->tok.str = NULL;
    return RbFilterLex(&ps->lx, &ps->tok);
}

/*
 * Expected --
 *	Sets a syntax error at the lookahead: "expected WHAT, found TOKEN".
 * Results: -1.
 */
static int
Expected(Parser *ps, const char *what)
{
    char found[200];

    RbFilterSyntaxError(ps->err, ps->tok.col, "expected %s, found %s", what,
	    RbFilterDescribe(&ps->tok, found, sizeof(found)));
    return -1;
}

/*
 * TypeError --
 *	Sets a "RUBICON FILTER SYNTAX" error about a comparison that the
 *	types of its sides rule out.
 * Results: -1.
 */
static int
TypeError(Parser *ps, int col, const char *what, const Rb_Field *f)
{
    RbFilterSyntaxError(ps->err, col, "%s field \"%s\"", what, f->name);
    return -1;
}

/*
 * FieldError --
 *	Sets a "RUBICON FILTER FIELD" error: detail, then the schema's
 *	field names so the user sees what was meant.
 * Results: -1.
 */
static int
FieldError(Parser *ps, const char *detail)
{
    char *known = Rb_SchemaFieldList(ps->schema);

    Rb_SetError(ps->err, "RUBICON FILTER FIELD", "%s; known fields: %s",
	    detail, known);
    free(known);
    return -1;
}

/*
 * OpCode --
 *	The op code a word of the language stands for: "read" RB_OP_READ,
 *	"write" RB_OP_WRITE, "delete" RB_OP_DELETE (object traces).
 */
static int
OpCode(FTokType type)
{
    return type == TK_WRITE ? RB_OP_WRITE : type == TK_DELETE
	    ? RB_OP_DELETE : RB_OP_READ;
}

/*
 * ParseOperand --
 *	Parses a field name, a number (with an optional minus sign) or a
 *	string.  "after" names what came before, for the message.
 * Results: 0 with *o filled (o->tok.str then belongs to o), or -1 with
 *	the error set ("RUBICON FILTER FIELD" for an unknown name).
 */
static int
ParseOperand(Parser *ps, Operand *o, const char *after)
{
    char what[120];

    memset(o, 0, sizeof(*o));
    o->col = ps->tok.col;
    o->text = ps->tok.text;
    o->len = ps->tok.len;
    switch (ps->tok.type) {
    case TK_IDENT: {
	char name[256];
	int len = ps->tok.len < 255 ? ps->tok.len : 255;

	memcpy(name, ps->tok.text, len);
	name[len] = '\0';
	o->kind = OPD_FIELD;
	o->field = ps->tok.len < 255 ? Rb_SchemaFieldIndex(ps->schema, name)
		: -1;
	if (o->field < 0) {
	    char detail[160];

	    snprintf(detail, sizeof(detail),
		    "unknown field \"%.*s\" at column %d",
		    ps->tok.len > 64 ? 64 : ps->tok.len, ps->tok.text,
		    ps->tok.col);
	    return FieldError(ps, detail);
	}
	return Advance(ps);
    }
    case TK_MINUS:
	if (Advance(ps) < 0) {
	    return -1;
	}
	if (ps->tok.type != TK_NUMBER) {
	    return Expected(ps, "a number after \"-\"");
	}
	o->kind = OPD_NUMBER;
	o->tok = ps->tok;
	o->len = (int)(ps->tok.text + ps->tok.len - o->text);
	o->tok.ival = -o->tok.ival;
	o->tok.dval = -o->tok.dval;
	o->tok.ns = -o->tok.ns;
	return Advance(ps);
    case TK_NUMBER:
	o->kind = OPD_NUMBER;
	o->tok = ps->tok;
	return Advance(ps);
    case TK_READ:
    case TK_WRITE:
    case TK_DELETE:
	/* "operation = read": the words are the op codes. */
	o->kind = OPD_NUMBER;
	o->tok.type = TK_NUMBER;
	o->tok.isInt = 1;
	o->tok.ival = OpCode(ps->tok.type);
	o->tok.dval = (double)o->tok.ival;
	return Advance(ps);
    case TK_STRING:
	o->kind = OPD_STRING;
	o->tok = ps->tok;
	ps->tok.str = NULL;	/* now o's */
	return Advance(ps);
    default:
	snprintf(what, sizeof(what), "a field, number or string %s", after);
	return Expected(ps, what);
    }
}

/*
 * IntPredExact --
 *	The integer predicate "x <op> c" for an exact integer c.
 */
static IntPred
IntPredExact(FCmp op, int64_t c)
{
    IntPred ip = {IP_RANGE, INT64_MIN + 1, INT64_MAX};

    switch (op) {
    case CMP_EQ:
	ip.lo = ip.hi = c;
	break;
    case CMP_NE:
	if (c != RB_ABSENT) {
	    ip.kind = IP_NE;
	    ip.lo = c;
	}
	break;
    case CMP_LT:
	if (c <= INT64_MIN + 1) {
	    ip.kind = IP_NONE;
	} else {
	    ip.hi = c - 1;
	}
	break;
    case CMP_LE:
	ip.hi = c;
	break;
    case CMP_GT:
	if (c == INT64_MAX) {
	    ip.kind = IP_NONE;
	} else if (c >= ip.lo) {
	    ip.lo = c + 1;
	}
	break;
    case CMP_GE:
	if (c > ip.lo) {
	    ip.lo = c;
	}
	break;
    }
    /* An interval at RB_ABSENT could only match absent values. */
    if (ip.kind == IP_RANGE && (ip.lo > ip.hi || ip.lo == RB_ABSENT)) {
	ip.kind = IP_NONE;
    }
    return ip;
}

/*
 * IntPredDouble --
 *	The integer predicate "x <op> d" for a literal d that is not an
 *	integer or lies outside int64: "size > 1.5" is "size >= 2", and
 *	"size = 1.5" is never true.
 */
static IntPred
IntPredDouble(FCmp op, double d)
{
    IntPred ip = {IP_RANGE, INT64_MIN + 1, INT64_MAX};
    double lo = -TWO63, hi = TWO63;

    if (d == floor(d) && d >= -TWO63 && d < TWO63) {
	return IntPredExact(op, (int64_t)d);
    }
    switch (op) {
    case CMP_EQ: ip.kind = IP_NONE; return ip;
    case CMP_NE: return ip;
    case CMP_LT: hi = ceil(d) - 1; break;
    case CMP_LE: hi = floor(d); break;
    case CMP_GT: lo = floor(d) + 1; break;
    case CMP_GE: lo = ceil(d); break;
    }
    /* Bounds beyond int64 clip to the range of present values. */
    if (lo >= TWO63 || hi < -TWO63 || lo > hi) {
	ip.kind = IP_NONE;
	return ip;
    }
    if (lo > -TWO63) {
	ip.lo = (int64_t)lo;
	if (ip.lo == INT64_MIN) {
	    ip.lo = INT64_MIN + 1;
	}
    }
    if (hi < TWO63) {
	ip.hi = (int64_t)hi;
    }
    if (ip.lo > ip.hi) {
	ip.kind = IP_NONE;
    }
    return ip;
}

/*
 * IsTimePoint --
 *	Whether field f holds a point in time (the record time, field 0 of
 *	every schema, or the I/O schema's issue and completion times), whose
 *	constants in a filter count from the start of the trace.  Other
 *	nanosecond fields are durations and compare as written.
 */
static int
IsTimePoint(const Rb_Schema *schema, int f)
{
    return f == 0 || (schema == Rb_IoSchema()
	    && (f == RB_IO_START || f == RB_IO_FINISH));
}

/*
 * IntLeaf --
 *	Turns an integer predicate on field f into the cheapest leaf.
 */
static FNode *
IntLeaf(Parser *ps, int f, IntPred ip, int neg)
{
    FNode *n;

    if (ip.kind == IP_NONE) {
	return ConstNode(ps, 0, neg);
    }
    if (ip.kind == IP_NE) {
	n = NewNode(ps, FN_INT_NE, neg);
    } else if (ip.lo == ip.hi) {
	n = NewNode(ps, FN_INT_EQ, neg);
    } else if (ip.hi == INT64_MAX) {
	n = NewNode(ps, FN_INT_GE, neg);
    } else {
	n = NewNode(ps, FN_INT_RANGE, neg);
    }
    n->field = f;
    n->lo = ip.lo;
    n->hi = ip.hi;
    if (IsTimePoint(ps->schema, f)) {
	n->relTime = 1;
	n->rlo = ip.lo;
	n->rhi = ip.hi;
    }
    return n;
}

/*
 * NumberForField --
 *	Checks that number o may be compared with field f and gives its
 *	value in the field's units: for a time field (RB_UNIT_NS) the
 *	literal is seconds and the value whole nanoseconds.
 * Results: 0 with *isInt, *iv, *dv set, or -1 with the error set.
 */
static int
NumberForField(Parser *ps, const Operand *o, const Rb_Field *f, int *isInt,
	int64_t *iv, double *dv)
{
    if (f->unit == RB_UNIT_NS) {
	if (!o->tok.nsOk) {
	    RbFilterSyntaxError(ps->err, o->col,
		    "time \"%.*s\" out of range for field \"%s\"",
		    o->len > 40 ? 40 : o->len, o->text, f->name);
	    return -1;
	}
	*isInt = 1;
	*iv = o->tok.ns;
	*dv = (double)o->tok.ns;
	return 0;
    }
    if (o->tok.isTime) {
	RbFilterSyntaxError(ps->err, o->col,
		"time literal \"%.*s\" compared with \"%s\", which is not a "
		"time field", o->len > 40 ? 40 : o->len, o->text,
		f->name);
	return -1;
    }
    *isInt = o->tok.isInt;
    *iv = o->tok.ival;
    *dv = o->tok.dval;
    return 0;
}

/*
 * FieldConst --
 *	Compiles "field <op> constant".
 * Results: 0 with *out set, or -1 with the error set.
 */
static int
FieldConst(Parser *ps, int f, FCmp op, const Operand *c, int neg,
	FNode **out)
{
    const Rb_Field *fd = &ps->schema->fields[f];
    int isInt;
    int64_t iv;
    double dv;
    FNode *n;

    if (fd->type == RB_FT_STRING) {
	if (c->kind != OPD_STRING) {
	    return TypeError(ps, c->col,
		    "a number cannot be compared with the string", fd);
	}
	if (op != CMP_EQ && op != CMP_NE) {
	    return TypeError(ps, c->col,
		    "only = and != apply to the string", fd);
	}
	iv = Rb_SchemaIntern(ps->schema, c->tok.str, c->tok.strLen);
	*out = IntLeaf(ps, f, IntPredExact(op, iv), neg);
	return 0;
    }
    if (c->kind == OPD_STRING) {
	return TypeError(ps, c->col,
		"a string cannot be compared with the numeric", fd);
    }
    if (NumberForField(ps, c, fd, &isInt, &iv, &dv) < 0) {
	return -1;
    }
    if (fd->type == RB_FT_INT) {
	*out = IntLeaf(ps, f, isInt ? IntPredExact(op, iv)
		: IntPredDouble(op, dv), neg);
	return 0;
    }
    n = NewNode(ps, FN_DBL_CMP, neg);
    n->field = f;
    n->op = op;
    n->dlo = dv;
    *out = n;
    return 0;
}

/*
 * FieldField --
 *	Compiles "field <op> field".  Strings compare by interned id, so
 *	only = and != apply to them; other mixes compare as doubles.
 * Results: 0 with *out set, or -1 with the error set.
 */
static int
FieldField(Parser *ps, const Operand *a, FCmp op, const Operand *b, int neg,
	FNode **out)
{
    const Rb_Field *fa = &ps->schema->fields[a->field];
    const Rb_Field *fb = &ps->schema->fields[b->field];
    int sa = fa->type == RB_FT_STRING, sb = fb->type == RB_FT_STRING;
    FNode *n;

    if (sa != sb) {
	return TypeError(ps, b->col, sa ? "a number cannot be compared with "
		"the string" : "a string cannot be compared with the numeric",
		sa ? fa : fb);
    }
    if (sa && op != CMP_EQ && op != CMP_NE) {
	return TypeError(ps, a->col, "only = and != apply to the string",
		fa);
    }
    if (fa->type == RB_FT_DOUBLE || fb->type == RB_FT_DOUBLE) {
	n = NewNode(ps, FN_FF_DBL, neg);
	n->dbl1 = fa->type == RB_FT_DOUBLE;
	n->dbl2 = fb->type == RB_FT_DOUBLE;
    } else {
	n = NewNode(ps, FN_FF_INT, neg);
    }
    n->op = op;
    n->field = a->field;
    n->field2 = b->field;
    *out = n;
    return 0;
}

/*
 * Compare --
 *	Compiles "a <op> b", either way round: "1 = deviceNo" is
 *	"deviceNo = 1".
 * Results: 0 with *out set, or -1 with the error set.
 */
static int
Compare(Parser *ps, const Operand *a, FCmp op, const Operand *b, int neg,
	FNode **out)
{
    static const FCmp flipped[] = {
	[CMP_LT] = CMP_GT, [CMP_LE] = CMP_GE, [CMP_GT] = CMP_LT,
	[CMP_GE] = CMP_LE, [CMP_EQ] = CMP_EQ, [CMP_NE] = CMP_NE
    };

    if (a->kind == OPD_FIELD && b->kind == OPD_FIELD) {
	return FieldField(ps, a, op, b, neg, out);
    }
    if (a->kind == OPD_FIELD) {
	return FieldConst(ps, a->field, op, b, neg, out);
    }
    if (b->kind == OPD_FIELD) {
	return FieldConst(ps, b->field, flipped[op], a, neg, out);
    }
    RbFilterSyntaxError(ps->err, a->col,
	    "comparison of two constants (one side must be a field)");
    return -1;
}

/*
 * Between --
 *	Compiles "x between lo and hi" (both ends included).  A field
 *	between two numbers is one range leaf; any other form is
 *	"x >= lo and x <= hi".
 * Results: 0 with *out set, or -1 with the error set.
 */
static int
Between(Parser *ps, const Operand *x, const Operand *lo, const Operand *hi,
	int neg, FNode **out)
{
    FNode *kids[2];

    if (x->kind == OPD_FIELD && lo->kind == OPD_NUMBER
	    && hi->kind == OPD_NUMBER
	    && ps->schema->fields[x->field].type != RB_FT_STRING) {
	const Rb_Field *fd = &ps->schema->fields[x->field];
	int isInt[2];
	int64_t iv[2];
	double dv[2];

	if (NumberForField(ps, lo, fd, &isInt[0], &iv[0], &dv[0]) < 0
		|| NumberForField(ps, hi, fd, &isInt[1], &iv[1], &dv[1]) < 0) {
	    return -1;
	}
	if (fd->type == RB_FT_INT) {
	    IntPred a = isInt[0] ? IntPredExact(CMP_GE, iv[0])
		    : IntPredDouble(CMP_GE, dv[0]);
	    IntPred b = isInt[1] ? IntPredExact(CMP_LE, iv[1])
		    : IntPredDouble(CMP_LE, dv[1]);

	    if (a.kind == IP_NONE || b.kind == IP_NONE || a.lo > b.hi) {
		a.kind = IP_NONE;
	    }
	    a.hi = b.hi;
	    *out = IntLeaf(ps, x->field, a, neg);
	} else {
	    FNode *n = NewNode(ps, FN_DBL_RANGE, neg);

	    n->field = x->field;
	    n->dlo = dv[0];
	    n->dhi = dv[1];
	    *out = n;
	}
	return 0;
    }
    if (Compare(ps, x, CMP_GE, lo, neg, &kids[0]) < 0
	    || Compare(ps, x, CMP_LE, hi, neg, &kids[1]) < 0) {
	return -1;
    }
    *out = Combine(ps, neg ? FN_OR : FN_AND, kids, 2);
    return 0;
}

/*
 * BitTest --
 *	Compiles "field & constant", true where the field has any of the
 *	constant's bits set (and is present).  The current token is the "&".
 * Results: 0 with *out set, or -1 with the error set.
 */
static int
BitTest(Parser *ps, const Operand *a, int neg, FNode **out)
{
    Operand mask;
    FNode *n;
    int rc = -1;

    memset(&mask, 0, sizeof(mask));
    if (Advance(ps) < 0 || ParseOperand(ps, &mask, "after \"&\"") < 0) {
	/* A string mask is mask's even when the token after it fails. */
	free(mask.tok.str);
	return -1;
    }
    if (a->kind != OPD_FIELD
	    || ps->schema->fields[a->field].type != RB_FT_INT) {
	RbFilterSyntaxError(ps->err, a->col, "\"&\" tests the bits of an "
		"integer field: \"%.*s\" is not one", a->len > 40 ? 40
		: a->len, a->text);
    } else if (mask.kind != OPD_NUMBER || !mask.tok.isInt
	    || mask.tok.isTime || mask.tok.ival <= 0) {
	RbFilterSyntaxError(ps->err, mask.col, "\"&\" needs a positive "
		"integer constant (a bit mask such as 0x4), not \"%.*s\"",
		mask.len > 40 ? 40 : mask.len, mask.text);
    } else {
	n = NewNode(ps, FN_INT_BITS, neg);
	n->field = a->field;
	n->lo = mask.tok.ival;
	*out = n;
	rc = 0;
    }
    free(mask.tok.str);
    return rc;
}

/*
 * OpOfToken --
 *	The comparison a token stands for.
 * Results: 1 with *op set, or 0 if the token is no comparison.
 */
static int
OpOfToken(FTokType type, FCmp *op)
{
    switch (type) {
    case TK_LT: *op = CMP_LT; return 1;
    case TK_LE: *op = CMP_LE; return 1;
    case TK_GT: *op = CMP_GT; return 1;
    case TK_GE: *op = CMP_GE; return 1;
    case TK_EQ: *op = CMP_EQ; return 1;
    case TK_NE: *op = CMP_NE; return 1;
    default: return 0;
    }
}

/*
 * ParseReadWrite --
 *	Compiles the bare words "read", "write" and "delete" as op =
 *	RB_OP_READ, RB_OP_WRITE and RB_OP_DELETE.
 * Results: 0 with *out set, or -1 with the error set (no field "op").
 */
static int
ParseReadWrite(Parser *ps, int neg, FNode **out)
{
    Operand field, value;
    int code = OpCode(ps->tok.type);
    int f = Rb_SchemaFieldIndex(ps->schema, "op");

    if (f < 0) {
	char detail[200];

	snprintf(detail, sizeof(detail), "\"%s\" at column %d needs a field "
		"\"op\", which schema \"%.64s\" lacks", code == RB_OP_READ
		? "read" : code == RB_OP_WRITE ? "write" : "delete",
		ps->tok.col, ps->schema->name);
	return FieldError(ps, detail);
    }
    memset(&field, 0, sizeof(field));
    memset(&value, 0, sizeof(value));
    field.kind = OPD_FIELD;
    field.field = f;
    field.col = value.col = ps->tok.col;
    value.kind = OPD_NUMBER;
    value.tok.isInt = 1;
    value.tok.ival = code;
    value.tok.dval = (double)value.tok.ival;
    if (Compare(ps, &field, CMP_EQ, &value, neg, out) < 0) {
	return -1;
    }
    return Advance(ps);
}

/*
 * ParsePrimary --
 *	Parses a parenthesized expression, read/write, a comparison or a
 *	between, negated when neg is set.
 * Results: 0 with *out set, or -1 with the error set.
 */
static int
ParsePrimary(Parser *ps, int neg, FNode **out)
{
    Operand a, b, c;
    FCmp op;
    int rc = -1;
    char after[120];

    if (ps->tok.type == TK_LPAREN) {
	if (++ps->nesting > MAX_NESTING) {
	    RbFilterSyntaxError(ps->err, ps->tok.col,
		    "parentheses nested deeper than %d", MAX_NESTING);
	    return -1;
	}
	if (Advance(ps) < 0 || ParseOr(ps, neg, out) < 0) {
	    return -1;
	}
	if (ps->tok.type != TK_RPAREN) {
	    return Expected(ps, "\"and\", \"or\" or \")\"");
	}
	ps->nesting--;
	return Advance(ps);
    }
    if (ps->tok.type == TK_READ || ps->tok.type == TK_WRITE
	    || ps->tok.type == TK_DELETE) {
	return ParseReadWrite(ps, neg, out);
    }
    memset(&b, 0, sizeof(b));
    memset(&c, 0, sizeof(c));
    if (ParseOperand(ps, &a, "(or \"(\", \"not\", \"read\", \"write\", "
	    "\"delete\")") < 0) {
	goto done;
    }
    snprintf(after, sizeof(after), "after \"%.*s\"", a.len > 40 ? 40 : a.len,
	    a.text);
    if (ps->tok.type == TK_BETWEEN) {
	if (Advance(ps) < 0
		|| ParseOperand(ps, &b, "after \"between\"") < 0) {
	    goto done;
	}
	if (ps->tok.type != TK_AND) {
	    Expected(ps, "\"and\" of \"between ... and ...\"");
	    goto done;
	}
	if (Advance(ps) < 0
		|| ParseOperand(ps, &c, "after \"between ... and\"") < 0) {
	    goto done;
	}
	rc = Between(ps, &a, &b, &c, neg, out);
    } else if (ps->tok.type == TK_BITAND) {
	rc = BitTest(ps, &a, neg, out);
    } else if (OpOfToken(ps->tok.type, &op)) {
	snprintf(after, sizeof(after), "after \"%.*s\"", ps->tok.len,
		ps->tok.text);
	if (Advance(ps) < 0 || ParseOperand(ps, &b, after) < 0) {
	    goto done;
	}
	rc = Compare(ps, &a, op, &b, neg, out);
    } else {
	char what[200];

	snprintf(what, sizeof(what), "a comparison operator, \"&\" or "
		"\"between\" %s", after);
	Expected(ps, what);
    }
  done:
    free(a.tok.str);
    free(b.tok.str);
    free(c.tok.str);
    return rc;
}

/*
 * ParseAnd --
 *	Parses not-terms joined by and (an or of negated terms under neg).
 * Results: 0 with *out set, or -1 with the error set.
 */
static int
ParseAnd(Parser *ps, int neg, FNode **out)
{
    FNode *kids[2];

    *out = NULL;
    for (;;) {
	int termNeg = neg;

	while (ps->tok.type == TK_NOT) {
	    termNeg = !termNeg;
	    if (Advance(ps) < 0) {
		return -1;
	    }
	}
	if (ParsePrimary(ps, termNeg, &kids[1]) < 0) {
	    return -1;
	}
	kids[0] = *out;
	*out = *out ? Combine(ps, neg ? FN_OR : FN_AND, kids, 2) : kids[1];
	if (ps->tok.type != TK_AND) {
	    return 0;
	}
	if (Advance(ps) < 0) {
	    return -1;
	}
    }
}

/*
 * ParseOr --
 *	Parses and-terms joined by or (an and of negated terms under neg).
 * Results: 0 with *out set, or -1 with the error set.
 */
static int
ParseOr(Parser *ps, int neg, FNode **out)
{
    FNode *kids[2];

    *out = NULL;
    for (;;) {
	if (ParseAnd(ps, neg, &kids[1]) < 0) {
	    return -1;
	}
	kids[0] = *out;
	*out = *out ? Combine(ps, neg ? FN_AND : FN_OR, kids, 2) : kids[1];
	if (ps->tok.type != TK_OR) {
	    return 0;
	}
	if (Advance(ps) < 0) {
	    return -1;
	}
    }
}

/*
 * AssignLevels --
 *	Gives each and/or node the scratch level of its depth among and/or
 *	nodes (nested ones must not share buffers).
 * Results: the number of levels under and including n.
 */
static int
AssignLevels(FNode *n, int depth)
{
    int i, levels = 0;

    if (n->kind != FN_AND && n->kind != FN_OR) {
	return 0;
    }
    n->level = depth;
    for (i = 0; i < n->nkids; i++) {
	int k = AssignLevels(n->kids[i], depth + 1);

	if (k > levels) {
	    levels = k;
	}
    }
    return levels + 1;
}

/*
 * RangeOf --
 *	Whether n is a plain test lo <= field <= hi of an integer field (not
 *	negated, no time constant), giving its bounds.
 */
static int
RangeOf(const FNode *n, int64_t *lo, int64_t *hi)
{
    if (n->neg || n->relTime) {
	return 0;
    }
    switch (n->kind) {
    case FN_INT_EQ:
	*lo = *hi = n->lo;
	return 1;
    case FN_INT_RANGE:
	*lo = n->lo;
	*hi = n->hi;
	return 1;
    case FN_INT_GE:
	*lo = n->lo;
	*hi = INT64_MAX;
	return 1;
    default:
	return 0;
    }
}

/*
 * FoldRanges --
 *	Merges the range tests on one field under each and into one
 *	("x >= lo and x < hi" is one test lo <= x <= hi - 1), so that a
 *	per-store Filter is a single range a Mux can index, and a record
 *	costs one test instead of two.  An empty intersection makes the and
 *	false.
 * Results: the node to use in n's place.
 */
static FNode *
FoldRanges(Parser *ps, FNode *n)
{
    int i, j, k;

    if (n->kind != FN_AND && n->kind != FN_OR) {
	return n;
    }
    for (i = 0; i < n->nkids; i++) {
	n->kids[i] = FoldRanges(ps, n->kids[i]);
    }
    if (n->kind != FN_AND) {
	return n;
    }
    for (i = 0; i < n->nkids; i++) {
	int64_t lo, hi, lo2, hi2;

	if (!RangeOf(n->kids[i], &lo, &hi)) {
	    continue;
	}
	for (j = i + 1; j < n->nkids; j++) {
	    if (n->kids[j]->field != n->kids[i]->field
		    || !RangeOf(n->kids[j], &lo2, &hi2)) {
		continue;
	    }
	    lo = lo2 > lo ? lo2 : lo;
	    hi = hi2 < hi ? hi2 : hi;
	    for (k = j; k + 1 < n->nkids; k++) {
		n->kids[k] = n->kids[k + 1];
	    }
	    n->nkids--;
	    j--;
	}
	if (lo > hi) {
	    return ConstNode(ps, 0, 0);
	}
	n->kids[i]->kind = lo == hi ? FN_INT_EQ
		: hi == INT64_MAX ? FN_INT_GE : FN_INT_RANGE;
	n->kids[i]->lo = lo;
	n->kids[i]->hi = hi;
    }
    return n->nkids == 1 ? n->kids[0] : n;
}

/*
 * Rb_FilterCompile --
 *	Compiles a filter expression against a schema.  String literals
 *	are interned in the schema, which the program retains.
 * Results: the program, or NULL with err set ("RUBICON FILTER SYNTAX" or
 *	"RUBICON FILTER FIELD", with the 1-based column).
 * Side effects: allocates the program (Rb_FilterFree frees it); takes a
 *	reference to schema; interns the expression's strings in it (they
 *	stay even when compiling fails).
 */
Rb_FilterProg *
Rb_FilterCompile(Rb_Schema *schema, const char *expr, Rb_Error *err)
{
    Rb_FilterProg *p = Rb_Alloc(sizeof(*p));
    Parser ps;

    memset(&ps, 0, sizeof(ps));
    p->source = Rb_Strdup(expr);
    p->schema = schema;
    Rb_SchemaRetain(schema);
    ps.lx.src = ps.lx.p = p->source;
    ps.lx.err = err;
    ps.schema = schema;
    ps.prog = p;
    ps.err = err;
    if (Advance(&ps) < 0) {
	goto fail;
    }
    if (ps.tok.type == TK_END) {
	RbFilterSyntaxError(err, 1, "empty expression");
	goto fail;
    }
    if (ParseOr(&ps, 0, &p->root) < 0) {
	goto fail;
    }
    if (ps.tok.type != TK_END) {
	Expected(&ps, ps.tok.type == TK_RPAREN
		? "end of expression (unbalanced \")\")"
		: "\"and\", \"or\" or end of expression");
	goto fail;
    }
    p->root = FoldRanges(&ps, p->root);
    p->nlevels = AssignLevels(p->root, 0);
    if (p->nlevels > 0) {
	p->scratch = Rb_AllocArray((size_t)p->nlevels * 2 * RB_BATCH_SIZE,
		sizeof(uint32_t));
    }
    free(ps.tok.str);
    return p;

  fail:
    free(ps.tok.str);
    Rb_FilterFree(p);
    return NULL;
}

/*
 * Rb_FilterFree --
 *	Ends a program from Rb_FilterCompile (NULL: nothing).
 * Results: none.
 * Side effects: frees the program, its nodes, scratch lists and source;
 *	releases its reference to the schema.
 */
void
Rb_FilterFree(Rb_FilterProg *p)
{
    int i;

    if (p == NULL) {
	return;
    }
    for (i = 0; i < p->nnodes; i++) {
	free(p->nodes[i]->kids);
	free(p->nodes[i]);
    }
    free(p->nodes);
    free(p->scratch);
    free(p->source);
    Rb_SchemaRelease(p->schema);
    free(p);
}

/*
 * Rb_FilterSource --
 *	Gives the expression a program was compiled from, as given.
 * Results: the program's copy, valid until Rb_FilterFree.
 * Side effects: none.
 */
const char *
Rb_FilterSource(const Rb_FilterProg *p)
{
    return p->source;
}

/*
 * RbFilterFields --
 *	The fields the program reads, RB_FIELD_BIT of each (any node ever
 *	compiled counts: a superset is safe).
 */
uint64_t
RbFilterFields(const Rb_FilterProg *p)
{
    uint64_t fields = 0;
    int i;

    for (i = 0; i < p->nnodes; i++) {
	const FNode *n = p->nodes[i];

	switch (n->kind) {
	case FN_TRUE:
	case FN_FALSE:
	case FN_AND:
	case FN_OR:
	    break;
	case FN_FF_INT:
	case FN_FF_DBL:
	    fields |= RB_FIELD_BIT(n->field2);
	    /* FALLTHRU */
	default:
	    fields |= RB_FIELD_BIT(n->field);
	    break;
	}
    }
    return fields;
}

/*
 * Rb_FilterIsEquality --
 *	Whether the whole program is "intField = integer constant" (either
 *	order; "read" and "write" count, being op = 0 and op = 1), so that a
 *	Mux can dispatch on the value with a table.  The value is in the
 *	field's stored units (ns for a time field).
 * Results: 1 with *field and *value set, else 0.
 * Side effects: none but *field and *value.
 */
int
Rb_FilterIsEquality(const Rb_FilterProg *p, int *field, int64_t *value)
{
    const FNode *n = p->root;

    if (n->kind != FN_INT_EQ || n->neg || n->relTime
	    || p->schema->fields[n->field].type != RB_FT_INT) {
	return 0;
    }
    *field = n->field;
    *value = n->lo;
    return 1;
}

/*
 * AddSat --
 *	a + b, held within (RB_ABSENT, INT64_MAX].
 */
static int64_t
AddSat(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) {
	return INT64_MAX;
    }
    if (b < 0 && a < INT64_MIN + 1 - b) {
	return INT64_MIN + 1;
    }
    return a + b;
}

/*
 * RbFilterSetTimeBase --
 *	Makes the program's time constants count from base, the time of the
 *	first record of the trace (the paper's Appendix B: times measure
 *	from the start of the trace).  Until it is called they count from
 *	time 0 of the trace's epoch.
 * Side effects: rewrites the bounds of the program's time leaves.
 */
void
RbFilterSetTimeBase(Rb_FilterProg *p, int64_t base)
{
    int i;

    for (i = 0; i < p->nnodes; i++) {
	FNode *n = p->nodes[i];

	if (!n->relTime) {
	    continue;
	}
	n->lo = n->rlo == INT64_MIN + 1 ? n->rlo : AddSat(n->rlo, base);
	n->hi = n->rhi == INT64_MAX ? n->rhi : AddSat(n->rhi, base);
    }
}

/*
 * KeyLeaf --
 *	Whether n is a leaf a Mux can dispatch on: a test lo <= field <= hi
 *	of an integer field, not negated, without time constants (those
 *	move with the trace's start).
 */
static int
KeyLeaf(const Rb_FilterProg *p, const FNode *n, int field, int64_t *lo,
	int64_t *hi)
{
    return n->field == field && p->schema->fields[field].type == RB_FT_INT
	    && RangeOf(n, lo, hi);
}

/*
 * RbFilterKeyOn --
 *	Whether the program is "lo <= field <= hi", or the and of such a test
 *	with other terms (its residual), so that a Mux can find the records
 *	it may pass by one lookup on field and then run only the residual.
 * Results: 1 with *lo, *hi and *residual (1 when other terms remain)
 *	set, else 0.
 */
int
RbFilterKeyOn(const Rb_FilterProg *p, int field, int64_t *lo, int64_t *hi,
	int *residual)
{
    const FNode *n = p->root;
    int i;

    if (KeyLeaf(p, n, field, lo, hi)) {
	*residual = 0;
	return 1;
    }
    if (n->kind != FN_AND) {
	return 0;
    }
    for (i = 0; i < n->nkids; i++) {
	if (KeyLeaf(p, n->kids[i], field, lo, hi)) {
	    *residual = 1;
	    return 1;
	}
    }
    return 0;
}

/*
 * RbFilterSelectResidual --
 *	Runs the residual of a program whose key (RbFilterKeyOn on field)
 *	the caller has already applied: every term of its root and but the
 *	first key leaf on field.
 * Results: the count of the members of in written to out.
 */
int
RbFilterSelectResidual(const Rb_FilterProg *p, int field, const Rb_Batch *b,
	const uint32_t *in, int nIn, uint32_t *out)
{
    const FNode *n = p->root;
    int64_t lo, hi;
    int i, skip = -1;

    for (i = 0; i < n->nkids && skip < 0; i++) {
	if (KeyLeaf(p, n->kids[i], field, &lo, &hi)) {
	    skip = i;
	}
    }
    return RbFilterEvalAndExcept(p, n, skip, b, in, nIn, out);
}

