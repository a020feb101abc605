/*
 * filterLex.c --
 *
 *	The lexer of the filter language: field names and keywords,
 *	operators, numbers (decimal, hex, fractional, time literals) and
 *	quoted strings.  Every token carries its 1-based column so that the
 *	parser's errors can point at it.
 */

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "filter/filterInt.h"

/* 2^63: the first double that does not fit an int64_t. */
#define TWO63 9223372036854775808.0

/*
 * RbFilterSyntaxError --
 *	Sets err to a "RUBICON FILTER SYNTAX" error at column col.
 */
void
RbFilterSyntaxError(Rb_Error *err, int col, const char *fmt, ...)
{
    char detail[900];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    Rb_SetError(err, "RUBICON FILTER SYNTAX", "syntax error at column %d: %s",
	    col, detail);
}

/*
 * RbFilterDescribe --
 *	Writes a short description of a token for an error message:
 *	"end of expression", or its text in quotes (shortened, with
 *	unprintable bytes escaped so messages stay one readable line).
 * Results: buf.
 */
const char *
RbFilterDescribe(const FToken *t, char *buf, size_t n)
{
    size_t o = 0;
    int i, len = t->len > 40 ? 40 : t->len;

    if (t->type == TK_END) {
	snprintf(buf, n, "end of expression");
	return buf;
    }
    o += snprintf(buf + o, n - o, "\"");
    for (i = 0; i < len && o + 8 < n; i++) {
	unsigned char c = (unsigned char)t->text[i];

	if (c < 0x20 || c >= 0x7f) {
	    o += snprintf(buf + o, n - o, "\\x%02x", c);
	} else {
	    buf[o++] = (char)c;
	}
    }
    snprintf(buf + o, n - o, "%s\"", len < t->len ? "..." : "");
    return buf;
}

/*
 * IsWordChar --
 *	Whether c may continue a field name (or end a number badly).
 */
static int
IsWordChar(int c)
{
    return isalnum(c) || c == '_' || c == '.';
}

/*
 * LexHex --
 *	Reads "0x" and hex digits at lx->p into t.
 * Results: 0, or -1 with err set (no digits, or above the int64 range).
 */
static int
LexHex(FLexer *lx, FToken *t)
{
    const char *p = lx->p + 2;
    uint64_t v = 0;
    int digits = 0;

    while (isxdigit((unsigned char)*p)) {
	int d = isdigit((unsigned char)*p) ? *p - '0'
		: tolower((unsigned char)*p) - 'a' + 10;

	if (v > ((uint64_t)INT64_MAX - d) / 16) {
	    RbFilterSyntaxError(lx->err, t->col,
		    "hex number out of range (at most 0x7fffffffffffffff)");
	    return -1;
	}
	v = v * 16 + d;
	digits++;
	p++;
    }
    if (digits == 0) {
	RbFilterSyntaxError(lx->err, t->col, "malformed hex number");
	return -1;
    }
    t->isInt = 1;
    t->ival = (int64_t)v;
    t->dval = (double)v;
    t->nsOk = t->ival <= INT64_MAX / 1000000000;
    t->ns = t->nsOk ? t->ival * 1000000000 : 0;
    lx->p = p;
    return 0;
}

/*
 * LexDecimal --
 *	Reads a decimal number, possibly fractional, or a time literal
 *	"[[[days] hours:] min:] seconds" (Rb_ParseTime decides how far a
 *	time literal reaches) at lx->p into t.
 * Results: 0, or -1 with err set.
 */
static int
LexDecimal(FLexer *lx, FToken *t)
{
    const char *s = lx->p, *p = s;
    char small[64], *copy = small;
    int64_t ns, iv = 0;
    int overflow = 0, frac = 0, timeLen;
    size_t plainLen;

    while (isdigit((unsigned char)*p)) {
	int d = *p++ - '0';

	if (iv > (INT64_MAX - d) / 10) {
	    overflow = 1;
	} else {
	    iv = iv * 10 + d;
	}
    }
    if (*p == '.' && isdigit((unsigned char)p[1])) {
	frac = 1;
	for (p++; isdigit((unsigned char)*p); p++) {
	}
    }
    plainLen = (size_t)(p - s);

    /* strtod alone would also accept exponents and "inf": parse a copy
     * of exactly the digits. */
    if (plainLen >= sizeof(small)) {
	copy = Rb_Alloc(plainLen + 1);
    }
    memcpy(copy, s, plainLen);
    copy[plainLen] = '\0';
    t->dval = strtod(copy, NULL);
    if (copy != small) {
	free(copy);
    }
    t->isInt = !frac && !overflow;
    t->ival = t->isInt ? iv : 0;

    timeLen = Rb_ParseTime(s, &ns);
    if (timeLen > (int)plainLen) {
	t->isTime = 1;
	t->nsOk = 1;
	t->ns = ns;
	lx->p = s + timeLen;
	return 0;
    }
    if (*p == ':') {
	RbFilterSyntaxError(lx->err, t->col,
		"malformed or out-of-range time literal");
	return -1;
    }
    if (t->isInt) {
	t->nsOk = iv <= INT64_MAX / 1000000000;
	t->ns = t->nsOk ? iv * 1000000000 : 0;
    } else {
	t->nsOk = timeLen == (int)plainLen && t->dval * 1e9 < TWO63;
	t->ns = t->nsOk ? ns : 0;
    }
    lx->p = p;
    return 0;
}

/*
 * LexString --
 *	Reads a string quoted with " or ' at lx->p; a backslash takes the
 *	next character literally.
 * Results: 0 with t->str malloc'd (the caller frees it), or -1 with err
 *	set for an unterminated string.
 */
static int
LexString(FLexer *lx, FToken *t)
{
    char quote = *lx->p;
    const char *p = lx->p + 1, *end;
    size_t n = 0;
    char *out;

    /* Find the end first, so the copy is sized to the string, not to
     * the rest of the expression. */
    for (end = p; *end != quote; end++) {
	if (*end == '\0' || (*end == '\\' && *++end == '\0')) {
	    RbFilterSyntaxError(lx->err, t->col, "unterminated string");
	    return -1;
	}
    }
    out = Rb_Alloc((size_t)(end - p) + 1);
    while (p < end) {
	if (*p == '\\') {
	    p++;
	}
	out[n++] = *p++;
    }
    out[n] = '\0';
    t->str = out;
    t->strLen = n;
    lx->p = end + 1;
    return 0;
}

/*
 * LexWord --
 *	Reads a field name or keyword (keywords without regard to case).
 */
static void
LexWord(FLexer *lx, FToken *t)
{
    static const struct { const char *word; FTokType type; } keywords[] = {
	{"not", TK_NOT}, {"and", TK_AND}, {"or", TK_OR},
	{"between", TK_BETWEEN}, {"read", TK_READ}, {"write", TK_WRITE},
	{"delete", TK_DELETE}
    };
    const char *p = lx->p;
    size_t i, len;

    while (IsWordChar((unsigned char)*p)) {
	p++;
    }
    len = (size_t)(p - lx->p);
    t->type = TK_IDENT;
    for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
	if (strlen(keywords[i].word) == len
		&& strncasecmp(keywords[i].word, lx->p, len) == 0) {
	    t->type = keywords[i].type;
	}
    }
    lx->p = p;
}

/*
 * LexOperator --
 *	Reads an operator or parenthesis.
 * Results: 0, or -1 with err set for a character the language lacks.
 */
static int
LexOperator(FLexer *lx, FToken *t)
{
    const char *p = lx->p;
    char c = p[0], c1 = c ? p[1] : '\0';
    int len = 1;

    switch (c) {
    case '(': t->type = TK_LPAREN; break;
    case ')': t->type = TK_RPAREN; break;
    case '-': t->type = TK_MINUS; break;
    case '<':
	if (c1 == '=') {
	    t->type = TK_LE; len = 2;
	} else if (c1 == '>') {
	    t->type = TK_NE; len = 2;
	} else {
	    t->type = TK_LT;
	}
	break;
    case '>':
	if (c1 == '=') {
	    t->type = TK_GE; len = 2;
	} else {
	    t->type = TK_GT;
	}
	break;
    case '=':
	t->type = TK_EQ;
	len = c1 == '=' ? 2 : 1;
	break;
    case '!':
	if (c1 == '=') {
	    t->type = TK_NE; len = 2;
	} else {
	    t->type = TK_NOT;
	}
	break;
    case '&':
	if (c1 != '&') {
	    t->type = TK_BITAND;
	    len = 1;
	    break;
	}
	/* FALLTHRU */
    case '|':
	if (c1 != c) {
	    RbFilterSyntaxError(lx->err, t->col,
		    "unexpected character \"%c\" (use \"%c%c\" or \"%s\")",
		    c, c, c, c == '&' ? "and" : "or");
	    return -1;
	}
	t->type = c == '&' ? TK_AND : TK_OR;
	len = 2;
	break;
    default:
	if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f) {
	    RbFilterSyntaxError(lx->err, t->col,
		    "unexpected character \\x%02x", (unsigned char)c);
	} else {
	    RbFilterSyntaxError(lx->err, t->col,
		    "unexpected character \"%c\"", c);
	}
	return -1;
    }
    lx->p += len;
    return 0;
}

/*
 * RbFilterLex --
 *	Reads the next token of lx into t.
 * Results: 0, or -1 with lx->err set.  A TK_STRING token's str is
 *	malloc'd and belongs to the caller.
 */
int
RbFilterLex(FLexer *lx, FToken *t)
{
    const char *s;
    unsigned char c;
    int rc = 0;

    while (isspace((unsigned char)*lx->p)) {
	lx->p++;
    }
    memset(t, 0, sizeof(*t));
    s = lx->p;
    c = (unsigned char)*s;
    t->col = (int)(s - lx->src) + 1;
    t->text = s;
    if (c == '\0') {
	t->type = TK_END;
	return 0;
    }
    if (isdigit(c) || (c == '.' && isdigit((unsigned char)s[1]))) {
	t->type = TK_NUMBER;
	if (c == '0' && (s[1] == 'x' || s[1] == 'X')) {
	    rc = LexHex(lx, t);
	} else {
	    rc = LexDecimal(lx, t);
	}
	if (rc == 0 && IsWordChar((unsigned char)*lx->p)) {
	    RbFilterSyntaxError(lx->err, t->col, "malformed number \"%.*s\"",
		    (int)(lx->p - s + 1), s);
	    rc = -1;
	}
    } else if (isalpha(c) || c == '_') {
	LexWord(lx, t);
    } else if (c == '"' || c == '\'') {
	t->type = TK_STRING;
	rc = LexString(lx, t);
    } else {
	rc = LexOperator(lx, t);
    }
    t->len = (int)(lx->p - s);
    return rc;
}
