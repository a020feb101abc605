/*
 * csv.c --
 *
 *	Reader of any delimited text trace (CSV, TSV) through a column map
 *	given in Tcl:
 *
 *	    rubicon::run -format csv -readeroptions {columns {time 2 op 3
 *		size 4 offset 5} timeunit us offsetunit 512 header 1
 *		readvalue 28 writevalue 2a} trace.csv
 *
 *	Columns are 1-based numbers or header names.  Without a map the
 *	header row must name I/O schema fields, which is what "rubicon
 *	convert" writes, so its CSV reads back as it was.  See doc/csv.n.
 */

#include "io/text.h"
#include "io/readers.h"

#define HEAD_MAX 65536		/* the header line must fit */
#define RESPONSE_FIELD RB_IO_NFIELDS	/* pseudo-field: finish - time */
#define MAX_OPVALUES 32

typedef struct CsvColumn {
    int field;			/* RB_IO_* or RESPONSE_FIELD */
    int col;			/* 0-based */
    int64_t scale;		/* source unit in schema units */
} CsvColumn;

typedef struct CsvState {
    Rb_Text tx;
    Rb_TextFast fast;
    int fastCol[RB_TEXT_MAX_FIELDS];	/* column -> cols index or -1 */
    int ncols;
    CsvColumn cols[RB_IO_NFIELDS + 1];
    int maxCol;			/* fields a line needs */
    int64_t timeScale, sizeScale, offsetScale;
    int nread, nwrite;		/* op values; nwrite 0: other = write */
    char *readv[MAX_OPVALUES], *writev[MAX_OPVALUES];
    int64_t epochNs;
    int events;			/* A TraceWriter CSV of another schema, */
    int colField[RB_TEXT_MAX_FIELDS];	/* its column -> field, */
    Tcl_DString rec;		/* and the record read. */
} CsvState;

static void	CsvFastSetup(CsvState *st);

#define DESCRIPTOR "# rubicon-trace "

/* Names accepted for the columns besides the schema's own. */
static const struct { const char *alias; int field; } aliases[] = {
    {"start", RB_IO_START}, {"finish", RB_IO_FINISH},
    {"device", RB_IO_DEVICE}, {"offset", RB_IO_OFFSET},
    {"response", RESPONSE_FIELD},
};

/*
 * FieldByName --
 *	The I/O field (or the response pseudo-field) a column map or header
 *	name denotes, without regard to case.
 * Results: the field index, or -1.
 */
static int
FieldByName(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
	if (strcasecmp(name, aliases[i].alias) == 0) {
	    return aliases[i].field;
	}
    }
    return Rb_SchemaFieldIndex(Rb_IoSchema(), name);
}

/*
 * IsTimeField --
 *	Whether field holds a time or duration (scaled by timeunit).
 */
static int
IsTimeField(int field)
{
    return field == RB_IO_TIME || field == RB_IO_START
	    || field == RB_IO_FINISH || field == RESPONSE_FIELD;
}

/*
 * CsvHeaderOk --
 *	A sniffed first line: a header naming only I/O schema fields,
 *	"time" among them (what rubicon convert writes).
 */
static int
CsvHeaderOk(char **f, int nf)
{
    int i, hasTime = 0;

    for (i = 0; i < nf; i++) {
	int field = FieldByName(f[i]);

	if (field < 0) {
	    return 0;
	}
	hasTime |= field == RB_IO_TIME;
    }
    return hasTime;
}

/*
 * CsvSniff --
 *	Only the self-describing form is recognised; any other CSV needs
 *	-format csv and a column map.
 */
static int
CsvSniff(const unsigned char *head, size_t n)
{
    const unsigned char *nl = memchr(head, '\n', n);

    if (n >= sizeof(DESCRIPTOR) - 1
	    && memcmp(head, DESCRIPTOR, sizeof(DESCRIPTOR) - 1) == 0) {
	return 90;		/* what a TraceWriter writes */
    }
    if (nl == NULL) {
	return 0;
    }
    return RbTextSniff(head, (size_t)(nl - head + 1), ',', CsvHeaderOk)
	    * 8 / 10;
}

/*
 * OptionError --
 *	Sets err for a bad reader option.
 * Results: TCL_ERROR.
 */
static int
OptionError(Rb_Reader *r, Rb_Error *err, const char *what, const char *value)
{
    Rb_SetError(err, "RUBICON READER OPTION", "%s: csv readeroptions: %s "
	    "\"%s\"", Rb_InputPath(r->in), what, value);
    return TCL_ERROR;
}

/*
 * ByteUnit --
 *	A size or offset unit: bytes, sectors (512), kb (1024) or a whole
 *	number of bytes.
 * Results: 1 with *scale set, 0 otherwise.
 */
static int
ByteUnit(const char *s, int64_t *scale)
{
    if (strcmp(s, "bytes") == 0) {
	*scale = 1;
    } else if (strcmp(s, "sectors") == 0) {
	*scale = 512;
    } else if (strcmp(s, "kb") == 0) {
	*scale = 1024;
    } else if (!RbParseInt(s, scale) || *scale < 1
	    || *scale > 1000000000000LL) {
	return 0;
    }
    return 1;
}

/*
 * OpValues --
 *	Copies a Tcl list of op spellings.
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
OpValues(Rb_Reader *r, Tcl_Obj *list, char **values, int *n, Rb_Error *err)
{
    Tcl_Obj **elems;
    int i, count;

    if (Tcl_ListObjGetElements(NULL, list, &count, &elems) != TCL_OK
	    || count > MAX_OPVALUES) {
	return OptionError(r, err, "not a list of at most 32 op values",
		Tcl_GetString(list));
    }
    for (i = 0; i < count; i++) {
	values[i] = Rb_Strdup(Tcl_GetString(elems[i]));
    }
    *n = count;
    return TCL_OK;
}

/*
 * FirstLine --
 *	The first line of the input split at delim into fields, in buf
 *	(HEAD_MAX + 1 bytes), without consuming it.
 * Results: the number of fields (0 for an empty input), or -1 on an
 *	input error.
 */
static int
FirstLine(Rb_Reader *r, char delim, char *buf, char **field, Rb_Error *err)
{
    long n = Rb_InputPeek(r->in, buf, HEAD_MAX, err);

    if (n < 0) {
	return -1;
    }
    buf[n] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    return buf[0] ? RbTextSplit(buf, delim, field, RB_TEXT_MAX_FIELDS) : 0;
}

/*
 * ColumnIndex --
 *	Resolves a column given as a 1-based number or a header name.
 * Results: the 0-based column, or -1 with err set.
 */
static int
ColumnIndex(Rb_Reader *r, const char *spec, char **header, int nheader,
	Rb_Error *err)
{
    int64_t v;
    int i;

    if (RbParseInt(spec, &v)) {
	if (v < 1 || v > RB_TEXT_MAX_FIELDS) {
	    OptionError(r, err, "column numbers run from 1 to 64, not", spec);
	    return -1;
	}
	return (int)v - 1;
    }
    for (i = 0; header != NULL && i < nheader; i++) {
	if (strcasecmp(header[i], spec) == 0) {
	    return i;
	}
    }
    OptionError(r, err, header ? "no header column is named"
	    : "a column given by name needs \"header 1\":", spec);
    return -1;
}

/*
 * AddColumn --
 *	Maps column col to field, once per field.
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
AddColumn(Rb_Reader *r, CsvState *st, int field, int col, Rb_Error *err)
{
    int i;

    for (i = 0; i < st->ncols; i++) {
	if (st->cols[i].field == field) {
	    return OptionError(r, err, "two columns for the field",
		    field == RESPONSE_FIELD ? "response"
		    : Rb_IoSchema()->fields[field].name);
	}
    }
    st->cols[st->ncols].field = field;
    st->cols[st->ncols].col = col;
    st->cols[st->ncols].scale = IsTimeField(field) ? st->timeScale
	    : field == RB_IO_SIZE ? st->sizeScale
	    : field == RB_IO_OFFSET || field == RB_IO_LVOFFSET
	    ? st->offsetScale : 1;
    st->ncols++;
    if (col + 1 > st->maxCol) {
	st->maxCol = col + 1;
    }
    return TCL_OK;
}

/*
 * MapColumns --
 *	Builds the column map from the "columns" option, or from the header
 *	when there is none (every header name must then be a field).
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
MapColumns(Rb_Reader *r, CsvState *st, Tcl_Obj *columns, char **header,
	int nheader, Rb_Error *err)
{
    Tcl_Obj **kv;
    int i, n, field, col;

    if (columns == NULL) {
	if (header == NULL) {
	    return OptionError(r, err, "without a header row, give "
		    "\"columns\"; header was", "0");
	}
	for (i = 0; i < nheader; i++) {
	    field = FieldByName(header[i]);
	    if (field < 0) {
		return OptionError(r, err, "without \"columns\", every header "
			"name must be an I/O field; unknown", header[i]);
	    }
	    if (AddColumn(r, st, field, i, err) != TCL_OK) {
		return TCL_ERROR;
	    }
	}
	return TCL_OK;
    }
    if (Tcl_ListObjGetElements(NULL, columns, &n, &kv) != TCL_OK
	    || n % 2 != 0) {
	return OptionError(r, err, "columns is not a dict",
		Tcl_GetString(columns));
    }
    for (i = 0; i < n; i += 2) {
	field = FieldByName(Tcl_GetString(kv[i]));
	if (field < 0) {
	    char *known = Rb_SchemaFieldList(Rb_IoSchema());

	    Rb_SetError(err, "RUBICON READER OPTION", "%s: csv readeroptions: "
		    "unknown field \"%s\" in columns; the fields are %s, "
		    "response, and the aliases start, finish, device, offset",
		    Rb_InputPath(r->in), Tcl_GetString(kv[i]), known);
	    free(known);
	    return TCL_ERROR;
	}
	col = ColumnIndex(r, Tcl_GetString(kv[i + 1]), header, nheader, err);
	if (col < 0 || AddColumn(r, st, field, col, err) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

/*
 * CheckKeys --
 *	Refuses option keys the reader does not know, so that a misspelt
 *	option is not silently ignored.
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
CheckKeys(Rb_Reader *r, Rb_Error *err)
{
    static const char *const known[] = {
	"columns", "timeunit", "sizeunit", "offsetunit", "delimiter",
	"header", "readvalue", "writevalue", "epoch", NULL
    };
    Tcl_DictSearch search;
    Tcl_Obj *key, *value;
    int done, i;

    if (r->options == NULL) {
	return TCL_OK;
    }
    if (Tcl_DictObjFirst(NULL, r->options, &search, &key, &value, &done)
	    != TCL_OK) {
	return OptionError(r, err, "not a dict",
		Tcl_GetString(r->options));
    }
    for (; !done; Tcl_DictObjNext(&search, &key, &value, &done)) {
	for (i = 0; known[i] && strcmp(known[i], Tcl_GetString(key)); i++) {
	}
	if (known[i] == NULL) {
	    Tcl_DictObjDone(&search);
	    return OptionError(r, err, "unknown option (known: columns "
		    "timeunit sizeunit offsetunit delimiter header readvalue "
		    "writevalue epoch)", Tcl_GetString(key));
	}
    }
    return TCL_OK;
}

/*
 * SameFields --
 *	Whether schemas s and t have the same fields, types and units.
 */
static int
SameFields(const Rb_Schema *s, const Rb_Schema *t)
{
    int f;

    if (s->nfields != t->nfields) {
	return 0;
    }
    for (f = 0; f < s->nfields; f++) {
	if (strcmp(s->fields[f].name, t->fields[f].name) != 0
		|| s->fields[f].type != t->fields[f].type
		|| s->fields[f].unit != t->fields[f].unit) {
	    return 0;
	}
    }
    return 1;
}

/*
 * DictGet --
 *	The value of key in dict d.
 * Results: TCL_OK with *v set, or TCL_ERROR when d is no dict or has
 *	no such key.
 */
static int
DictGet(Tcl_Obj *d, const char *key, Tcl_Obj **v)
{
    Tcl_Obj *k = Tcl_NewStringObj(key, -1);
    int rc;

    Tcl_IncrRefCount(k);
    rc = Tcl_DictObjGet(NULL, d, k, v);
    Tcl_DecrRefCount(k);
    return rc == TCL_OK && *v != NULL ? TCL_OK : TCL_ERROR;
}

/*
 * ReadDescriptor --
 *	The first line a TraceWriter writes, "# rubicon-trace " and a dict
 *	(the schema and the epoch; see traceWriter.c), in line: the epoch into
 *	*epochNs and the schema, unless it is the I/O schema, into *sp
 *	(with a reference for the caller).
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
ReadDescriptor(Rb_Reader *r, const char *line, int64_t *epochNs,
	Rb_Schema **sp, Rb_Error *err)
{
    static const char *const types[] = {"int", "double", "string", NULL};
    static const char *const units[] = {"none", "ns", "bytes", NULL};
    Tcl_Obj *d = Tcl_NewStringObj(line + sizeof(DESCRIPTOR) - 1, -1);
    Tcl_Obj *v, **fields, **fd;
    Rb_Schema *s = NULL;
    int n, nfd, f, type, unit, rc = TCL_ERROR;

    Tcl_IncrRefCount(d);
    *sp = NULL;
    if (DictGet(d, "epoch", &v) != TCL_OK
	    || !RbParseScaled(Tcl_GetString(v), 1000000000, epochNs)
	    || DictGet(d, "fields", &v) != TCL_OK
	    || Tcl_ListObjGetElements(NULL, v, &n, &fields) != TCL_OK
	    || n < 1 || n > RB_MAX_FIELDS
	    || DictGet(d, "schema", &v) != TCL_OK) {
	goto bad;
    }
    s = Rb_SchemaCreate(Tcl_GetString(v));
    for (f = 0; f < n; f++) {
	if (Tcl_ListObjGetElements(NULL, fields[f], &nfd, &fd) != TCL_OK
		|| nfd != 4
		|| Tcl_GetIndexFromObj(NULL, fd[1], types, "", TCL_EXACT,
		    &type) != TCL_OK
		|| Tcl_GetIndexFromObj(NULL, fd[2], units, "", TCL_EXACT,
		    &unit) != TCL_OK) {
	    goto bad;
	}
	if (f == 0 ? strcmp(Tcl_GetString(fd[0]), "time") != 0
		|| type != RB_FT_INT || unit != RB_UNIT_NS
		: Rb_SchemaAddField(s, Tcl_GetString(fd[0]), type, unit,
		Tcl_GetString(fd[3])) < 0) {
	    goto bad;
	}
    }
    if (SameFields(s, Rb_IoSchema())) {
	Rb_SchemaRelease(s);
    } else {
	/* A schema a plugin registered (magpie:NAME, stardust) is taken
	 * as itself, so that its Analyzers know the records. */
	Rb_Error ignored;
	Rb_Schema *named = RbNamedSchema(s->name, &ignored);

	if (named != NULL && SameFields(s, named)) {
	    Rb_SchemaRelease(s);
	    s = named;
	} else if (named != NULL) {
	    Rb_SchemaRelease(named);
	}
	*sp = s;
    }
    rc = TCL_OK;
    goto done;

  bad:
    if (s != NULL) {
	Rb_SchemaRelease(s);
    }
    Rb_SetError(err, "RUBICON READER CORRUPT", "%s: line 1: a \"%s\" line "
	    "not followed by \"schema NAME epoch SECONDS fields {{NAME TYPE "
	    "UNIT HELP} ...}\" with time the first field", Rb_InputPath(r->in),
	    DESCRIPTOR);
  done:
    Tcl_DecrRefCount(d);
    return rc;
}

/*
 * MapEventColumns --
 *	For a CSV of another schema than I/O: each header name is a field
 *	of it, time among them.
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
MapEventColumns(Rb_Reader *r, CsvState *st, char **header, int nheader,
	Rb_Error *err)
{
    int i, hasTime = 0;

    if (RbReaderOption(r, "columns") != NULL) {
	return OptionError(r, err, "a CSV of the schema in its first line "
		"takes no column map; schema", r->schema->name);
    }
    for (i = 0; i < nheader; i++) {
	st->colField[i] = Rb_SchemaFieldIndex(r->schema, header[i]);
	if (st->colField[i] < 0) {
	    return OptionError(r, err, "the header names a field its first "
		    "line does not declare:", header[i]);
	}
	hasTime |= st->colField[i] == 0;
    }
    st->ncols = st->maxCol = nheader;
    if (!hasTime) {
	return OptionError(r, err, "no column for the field", "time");
    }
    return TCL_OK;
}

/*
 * CsvOpen --
 *	Reads the options, the header row when there is one, and builds the
 *	column map.  The header is taken when "header 1", when a column is
 *	given by name or no map is given, or when the first line's time
 *	column is not a number.
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
CsvOpen(Rb_Reader *r, Rb_Error *err)
{
    CsvState *st = r->state;
    Tcl_Obj *o, *columns;
    char *buf, *field[RB_TEXT_MAX_FIELDS];
    int nf, header = -1, rc = TCL_ERROR, i;

    st->tx.delim = ',';
    st->tx.comment = '#';
    Tcl_DStringInit(&st->rec);
    st->timeScale = st->sizeScale = st->offsetScale = 1;
    if (CheckKeys(r, err) != TCL_OK) {
	return TCL_ERROR;
    }
    if ((o = RbReaderOption(r, "timeunit")) != NULL
	    && !RbTimeUnitScale(Tcl_GetString(o), &st->timeScale)) {
	return OptionError(r, err, "timeunit is ns, us, ms, s or ticks, not",
		Tcl_GetString(o));
    }
    if ((o = RbReaderOption(r, "sizeunit")) != NULL
	    && !ByteUnit(Tcl_GetString(o), &st->sizeScale)) {
	return OptionError(r, err, "sizeunit is bytes, sectors, kb or a "
		"number of bytes, not", Tcl_GetString(o));
    }
    if ((o = RbReaderOption(r, "offsetunit")) != NULL
	    && !ByteUnit(Tcl_GetString(o), &st->offsetScale)) {
	return OptionError(r, err, "offsetunit is bytes, sectors, kb or a "
		"number of bytes, not", Tcl_GetString(o));
    }
    if ((o = RbReaderOption(r, "delimiter")) != NULL) {
	const char *d = Tcl_GetString(o);

	if (strcmp(d, "tab") == 0 || strcmp(d, "\t") == 0) {
	    st->tx.delim = '\t';
	} else if (strcmp(d, "space") == 0 || strcmp(d, " ") == 0) {
	    st->tx.delim = 0;
	} else if (strlen(d) == 1 && d[0] != '\n' && d[0] != '\r') {
	    st->tx.delim = d[0];
	} else {
	    return OptionError(r, err, "delimiter is one character, tab or "
		    "space, not", d);
	}
    }
    if ((o = RbReaderOption(r, "header")) != NULL
	    && Tcl_GetBooleanFromObj(NULL, o, &header) != TCL_OK) {
	return OptionError(r, err, "header is a boolean, not",
		Tcl_GetString(o));
    }
    if ((o = RbReaderOption(r, "epoch")) != NULL
	    && !RbParseScaled(Tcl_GetString(o), 1000000000, &st->epochNs)) {
	return OptionError(r, err, "epoch is Unix seconds, not",
		Tcl_GetString(o));
    }
    r->epochNs = st->epochNs;
    if ((o = RbReaderOption(r, "readvalue")) != NULL
	    && OpValues(r, o, st->readv, &st->nread, err) != TCL_OK) {
	return TCL_ERROR;
    }
    if ((o = RbReaderOption(r, "writevalue")) != NULL
	    && OpValues(r, o, st->writev, &st->nwrite, err) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->nread == 0 && st->nwrite == 0) {
	static const char *const rd[] = {"0", "r", "read"};
	static const char *const wr[] = {"1", "w", "write"};

	for (i = 0; i < 3; i++) {
	    st->readv[i] = Rb_Strdup(rd[i]);
	    st->writev[i] = Rb_Strdup(wr[i]);
	}
	st->nread = st->nwrite = 3;
    }

    columns = RbReaderOption(r, "columns");
    buf = Rb_Alloc(HEAD_MAX + 1);
    nf = (int)Rb_InputPeek(r->in, buf, HEAD_MAX, err);
    if (nf < 0) {
	goto done;
    }
    buf[nf] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    if (strncmp(buf, DESCRIPTOR, sizeof(DESCRIPTOR) - 1) == 0) {
	Rb_Schema *schema;
	int64_t epochNs;

	if (ReadDescriptor(r, buf, &epochNs, &schema, err) != TCL_OK
		|| (Rb_InputGetLine(r->in, NULL, err) == NULL
		&& err->code[0])) {
	    goto done;
	}
	if (RbReaderOption(r, "epoch") == NULL) {
	    r->epochNs = epochNs;
	}
	if (schema != NULL) {
	    r->schema = schema;
	    st->events = 1;
	}
    }
    nf = FirstLine(r, st->tx.delim, buf, field, err);
    if (nf < 0) {
	goto done;
    }
    if (st->events) {
	if (MapEventColumns(r, st, field, nf, err) != TCL_OK
		|| (Rb_InputGetLine(r->in, NULL, err) == NULL
		&& err->code[0])) {
	    goto done;
	}
	rc = TCL_OK;
	goto done;
    }
    if (header < 0) {
	Tcl_Obj **kv;
	int n, isName = columns == NULL;

	if (columns != NULL
		&& Tcl_ListObjGetElements(NULL, columns, &n, &kv) == TCL_OK) {
	    for (i = 1; i < n; i += 2) {
		int64_t v;

		isName |= !RbParseInt(Tcl_GetString(kv[i]), &v);
	    }
	}
	header = isName;
    }
    if (MapColumns(r, st, columns, header ? field : NULL, nf, err) != TCL_OK) {
	goto done;
    }
    for (i = 0; i < st->ncols && st->cols[i].field != RB_IO_TIME; i++) {
    }
    if (i == st->ncols) {
	OptionError(r, err, "no column for the field", "time");
	goto done;
    }
    if (!header && st->cols[i].col < nf) {
	int64_t v;

	/* A first line whose time is no number is a header after all. */
	header = !RbParseScaled(field[st->cols[i].col], 1, &v);
    }
    if (header && Rb_InputGetLine(r->in, NULL, err) == NULL && err->code[0]) {
	goto done;
    }
    CsvFastSetup(st);
    rc = TCL_OK;
  done:
    free(buf);
    return rc;
}

/*
 * OpIn --
 *	Whether s is one of the n spellings in values (case ignored).
 */
static int
OpIn(const char *s, char *const *values, int n)
{
    int i;

    for (i = 0; i < n; i++) {
	if (strcasecmp(s, values[i]) == 0) {
	    return 1;
	}
    }
    return 0;
}

/*
 * OpFast --
 *	The op of the n bytes at s, which are neither empty nor start or
 *	end with a blank, as CsvParse would find it.
 * Results: 1 with *op set, 0 for neither a read nor a write value.
 */
static int
OpFast(const CsvState *st, const char *s, size_t n, int64_t *op)
{
    int k;

    for (k = 0; k < st->nread; k++) {
	if (strncasecmp(s, st->readv[k], n) == 0 && st->readv[k][n] == '\0') {
	    *op = RB_OP_READ;
	    return 1;
	}
    }
    for (k = 0; k < st->nwrite; k++) {
	if (strncasecmp(s, st->writev[k], n) == 0
		&& st->writev[k][n] == '\0') {
	    *op = RB_OP_WRITE;
	    return 1;
	}
    }
    *op = RB_OP_WRITE;
    return st->nwrite == 0;
}

/*
 * CsvCell --
 *	The value of the cell at p of column c (mapped, cols index k) as
 *	CsvParse would find it: plain digits (with a fraction of at most
 *	9 digits for a time), an op value, or nothing for an absent value.
 * Results: the character after the cell, or NULL for a cell the fast
 *	path leaves to CsvParse.
 */
static inline const char *
CsvCell(const CsvState *st, const char *p, int k, int64_t *v)
{
    const CsvColumn *c = &st->cols[k];
    char delim = st->tx.delim;
    const char *q;
    int n;

    if ((*p == delim || *p == '\0') && c->field != RB_IO_TIME) {
	*v = RB_ABSENT;
	return p;
    }
    if (c->field == RB_IO_OP) {
	for (q = p; *q != delim && *q != '\0'; q++) {
	    continue;
	}
	if (p[0] == ' ' || p[0] == '\t' || q[-1] == ' ' || q[-1] == '\t'
		|| !OpFast(st, p, (size_t)(q - p), v)) {
	    return NULL;
	}
	return q;
    }
    if (IsTimeField(c->field)) {
	return RbTextDecimal(p, c->scale, v);
    }
    if ((q = RbTextDigitRun(p, v, &n)) == NULL
	    || __builtin_mul_overflow(*v, c->scale, v)) {
	return NULL;
    }
    return q;
}

/*
 * CsvFastStore --
 *	Stores the values v of the mapped columns (cols order) into record
 *	i, the finish time from the response if there is one.
 * Results: 1, or 0 without storing when time plus response overflows.
 */
static int
CsvFastStore(const CsvState *st, const int64_t *v, Rb_Batch *b, int i)
{
    int64_t t = 0, response = RB_ABSENT, finish = RB_ABSENT;
    int k;

    for (k = 0; k < st->ncols; k++) {
	if (st->cols[k].field == RESPONSE_FIELD) {
	    response = v[k];
	} else if (st->cols[k].field == RB_IO_TIME) {
	    t = v[k];
	}
    }
    if (response != RB_ABSENT && (__builtin_add_overflow(t, response,
	    &finish) || finish == RB_ABSENT)) {
	return 0;
    }
    for (k = 0; k < st->ncols; k++) {
	if (st->cols[k].field != RESPONSE_FIELD && v[k] != RB_ABSENT) {
	    b->col[st->cols[k].field][i] = v[k];
	}
    }
    if (response != RB_ABSENT) {
	b->col[RB_IO_FINISH][i] = finish;
    }
    return 1;
}

/*
 * CsvFastLine --
 *	The fast path (see Rb_TextFastProc): the mapped columns of a line
 *	whose cells are plain (CsvCell); any other line is left to
 *	CsvParse.
 */
static int
CsvFastLine(Rb_Reader *r, Rb_TextFast *fast, const char *s, size_t len,
	Rb_Batch *b, int i)
{
    const CsvState *st = r->state;
    const char *p = s, *end = s + len;
    char delim = st->tx.delim;
    int64_t v[RB_IO_NFIELDS + 1];
    int c, k;

    if (*s == st->tx.comment) {
	return 0;
    }
    for (c = 0; c < st->maxCol; c++) {
	const char *q;

	if ((k = st->fastCol[c]) < 0) {
	    for (q = p; *q != delim && *q != '\0'; q++) {
		continue;
	    }
	} else {
	    q = CsvCell(st, p, k, &v[k]);
	}
	if (q == NULL) {
	    return 0;
	}
	if (*q == delim) {
	    p = q + 1;
	} else if (q == end && c == st->maxCol - 1) {
	    p = q;
	} else {
	    return 0;
	}
    }
    if (strlen(p) != (size_t)(end - p)) {
	return 0;		/* a NUL byte in the columns not read */
    }
    return CsvFastStore(st, v, b, i);
}

/*
 * CsvFastSetup --
 *	Turns the fast path on for a column map it can take: a delimiter
 *	that is no part of a number, each column mapped once, the columns
 *	within the first 63 (the splitter keeps the rest of a longer line
 *	in its 64th field) and scales of at most 10^12.
 */
static void
CsvFastSetup(CsvState *st)
{
    int c, k;

    for (c = 0; c < RB_TEXT_MAX_FIELDS; c++) {
	st->fastCol[c] = -1;
    }
    if (strchr(",;|\t", st->tx.delim) == NULL || st->tx.delim == '\0'
	    || st->maxCol > RB_TEXT_MAX_FIELDS - 1
	    || getenv("RUBICON_TEXT_SLOW") != NULL) {
	return;
    }
    for (k = 0; k < st->ncols; k++) {
	if (st->fastCol[st->cols[k].col] >= 0
		|| st->cols[k].scale > 1000000000000LL) {
	    return;
	}
	st->fastCol[st->cols[k].col] = k;
    }
    st->fast.proc = CsvFastLine;
    st->tx.fast = &st->fast;
}

/*
 * CsvParse --
 *	One line into record i through the column map.  An empty cell is
 *	an absent value, except for time.
 */
static const char *
CsvParse(Rb_Reader *r, Rb_TextLine *l, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    CsvState *st = r->state;
    const char *kind;
    int64_t response = RB_ABSENT;
    int k;

    if ((kind = RbTextFields(l, st->maxCol, RB_TEXT_MAX_FIELDS, why,
	    whyLen)) != NULL) {
	return kind;
    }
    for (k = 0; k < st->ncols; k++) {
	const CsvColumn *c = &st->cols[k];
	const char *s = l->field[c->col];
	const char *name = c->field == RESPONSE_FIELD ? "response"
		: Rb_IoSchema()->fields[c->field].name;
	int64_t v, raw;

	if (*s == '\0' && c->field != RB_IO_TIME) {
	    continue;
	}
	if (c->field == RB_IO_OP) {
	    if (OpIn(s, st->readv, st->nread)) {
		v = RB_OP_READ;
	    } else if (st->nwrite == 0 || OpIn(s, st->writev, st->nwrite)) {
		v = RB_OP_WRITE;
	    } else {
		snprintf(why, whyLen, "field %d (op) \"%.20s\" is neither a "
			"read nor a write value", c->col + 1, s);
		return "bad-op";
	    }
	} else if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		&& !IsTimeField(c->field)) {
	    if (!RbParseHex(s, &raw) || raw > INT64_MAX / c->scale) {
		snprintf(why, whyLen, "field %d (%s) \"%.40s\" is not a "
			"number in range", c->col + 1, name, s);
		return "bad-field";
	    }
	    v = raw * c->scale;
	} else if ((kind = RbTextNumber(l, c->col, name, c->scale,
		!IsTimeField(c->field), &v, why, whyLen)) != NULL) {
	    return kind;
	}
	if (c->field == RESPONSE_FIELD) {
	    response = v;
	} else {
	    b->col[c->field][i] = v;
	}
    }
    if (response != RB_ABSENT) {
	int64_t t = b->col[RB_IO_TIME][i];

	if (__builtin_add_overflow(t, response, &b->col[RB_IO_FINISH][i])
		|| b->col[RB_IO_FINISH][i] == RB_ABSENT) {
	    snprintf(why, whyLen, "time plus response overflows");
	    return "bad-field";
	}
    }
    return NULL;
}

/*
 * SplitQuoted --
 *	Splits a CSV line s in place at commas, undoing the quotes of
 *	quoted cells ("" inside is one quote); quoted[k] says whether cell
 *	k was quoted (an empty quoted cell is an empty string, an empty
 *	unquoted one an absent value).
 * Results: the number of cells, or -1 when a quote is left open, text
 *	follows a closing quote, or there are more than max cells.
 */
static int
SplitQuoted(char *s, char **cell, char *quoted, int max)
{
    int n = 0;

    for (;;) {
	char *w = s, c;

	if (n == max) {
	    return -1;
	}
	cell[n] = s;
	quoted[n] = *s == '"';
	if (*s == '"') {
	    for (s++; *s != '"' || s[1] == '"'; s++) {
		if (*s == '\0') {
		    return -1;
		}
		*w++ = *s;
		s += *s == '"';
	    }
	    s++;
	    if (*s != ',' && *s != '\0') {
		return -1;
	    }
	} else {
	    while (*s != ',' && *s != '\0') {
		*w++ = *s++;
	    }
	}
	c = *s;
	*w = '\0';
	n++;
	if (c == '\0') {
	    return n;
	}
	s++;
    }
}

/*
 * CsvEventParse --
 *	One line of a CSV of another schema than I/O into record i: each
 *	cell by its field's type.
 */
static const char *
CsvEventParse(Rb_Reader *r, Rb_TextLine *l, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    CsvState *st = r->state;
    Rb_Schema *schema = r->schema;
    char *cell[RB_TEXT_MAX_FIELDS], quoted[RB_TEXT_MAX_FIELDS];
    int n = SplitQuoted(l->field[0], cell, quoted, RB_TEXT_MAX_FIELDS), k;

    if (n < 0) {
	snprintf(why, whyLen, "a quote is left open or text follows one");
	return "bad-field";
    }
    if (n != st->ncols) {
	snprintf(why, whyLen, "%d cells, not %d", n, st->ncols);
	return n < st->ncols ? "short-line" : "long-line";
    }
    for (k = 0; k < n; k++) {
	int f = st->colField[k];
	const Rb_Field *fd = &schema->fields[f];
	char *end;
	double d;

	if (*cell[k] == '\0' && !quoted[k] && f != 0) {
	    continue;
	}
	switch (fd->type) {
	case RB_FT_STRING:
	    b->col[f][i] = Rb_SchemaIntern(schema, cell[k], strlen(cell[k]));
	    continue;
	case RB_FT_DOUBLE:
	    d = strtod(cell[k], &end);
	    if (end != cell[k] && *end == '\0') {
		Rb_SetDouble(b, f, i, d);
		continue;
	    }
	    break;
	default:
	    if (RbParseInt(cell[k], &b->col[f][i])
		    && b->col[f][i] != RB_ABSENT) {
		continue;
	    }
	    break;
	}
	snprintf(why, whyLen, "cell %d (%s) \"%.40s\" is not %s", k + 1,
		fd->name, cell[k], fd->type == RB_FT_DOUBLE ? "a number"
		: "a whole number in range");
	return "bad-field";
    }
    return NULL;
}

/*
 * QuoteOpen --
 *	Whether a quoted cell is still open at the end of s, given whether
 *	one was open at its start ("" inside is a quote).
 */
static int
QuoteOpen(const char *s, int open)
{
    int cellStart = !open;

    for (; *s; s++) {
	if (open) {
	    if (*s == '"') {
		if (s[1] == '"') {
		    s++;
		} else {
		    open = 0;
		}
	    }
	} else if (*s == '"' && cellStart) {
	    open = 1;
	}
	cellStart = !open && *s == ',';
    }
    return open;
}

#define MAX_RECORD (1 << 20)	/* a quoted cell must close within it */

/*
 * CsvEventNext --
 *	The next of a CSV of another schema: as RbTextNext, but a record
 *	goes on over line breaks inside quoted cells.
 * Results: records appended, 0 at the end, -1 on error (err set).
 */
static int
CsvEventNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    CsvState *st = r->state;
    Rb_Text *tx = &st->tx;
    int start = b->n;
    char why[256];

    if (tx->failed) {
	tx->failed = 0;
	*err = tx->pending;
	return -1;
    }
    if (tx->done) {
	return 0;
    }
    if (b->n == 0) {
	b->firstRecord = r->records + 1;
    }
    while (b->n < b->cap) {
	const char *kind = NULL;
	size_t len;
	char *s;
	int i, open = 0;

	tx->line.offset = Rb_InputOffset(r->in);
	s = Rb_InputGetLine(r->in, &len, &tx->pending);
	if (s == NULL) {
	    tx->done = 1;
	    if (tx->pending.code[0]) {
		return RbTextFinish(tx, b, start, err);
	    }
	    break;
	}
	tx->line.lineNo = r->recordNo = Rb_InputLineNo(r->in);
	Tcl_DStringSetLength(&st->rec, 0);
	Tcl_DStringAppend(&st->rec, s, (int)len);
	while (strlen(s) == len && (open = QuoteOpen(s, open))) {
	    s = Rb_InputGetLine(r->in, &len, &tx->pending);
	    if (s == NULL || Tcl_DStringLength(&st->rec) + len > MAX_RECORD) {
		if (tx->pending.code[0]) {
		    tx->done = 1;
		    return RbTextFinish(tx, b, start, err);
		}
		snprintf(why, sizeof(why), "a quoted cell is not closed %s",
			s == NULL ? "at the end of the file" : "within 1 MB");
		kind = "bad-field";
		break;
	    }
	    Tcl_DStringAppend(&st->rec, "\n", 1);
	    Tcl_DStringAppend(&st->rec, s, (int)len);
	}
	s = Tcl_DStringValue(&st->rec);
	if (kind == NULL && (size_t)Tcl_DStringLength(&st->rec) != strlen(s)) {
	    snprintf(why, sizeof(why), "a NUL byte at column %zu",
		    strlen(s) + 1);
	    kind = "nul-byte";
	}
	if (kind == NULL && (*s == '\0' || *s == '#')) {
	    continue;		/* blank or a comment */
	}
	i = Rb_BatchAppend(b);
	if (kind == NULL) {
	    tx->line.field[0] = s;
	    tx->line.nfields = 1;
	    why[0] = '\0';
	    kind = CsvEventParse(r, &tx->line, b, i, why, sizeof(why));
	}
	if (kind != NULL) {
	    b->n--;
	    if (RbTextBad(r, tx, kind, "%s", why)) {
		return RbTextFinish(tx, b, start, err);
	    }
	    continue;
	}
	if (RbTextKeep(r, tx, b, i) < 0) {
	    return RbTextFinish(tx, b, start, err);
	}
    }
    return b->n - start;
}

static int
CsvNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    CsvState *st = r->state;

    if (st->events) {
	return CsvEventNext(r, b, err);
    }
    return RbTextNext(r, &st->tx, b, CsvParse, err);
}

/*
 * CsvClose --
 *	Frees the op spellings and the record buffer.
 */
static void
CsvClose(Rb_Reader *r)
{
    CsvState *st = r->state;
    int i;

    for (i = 0; i < st->nread; i++) {
	free(st->readv[i]);
    }
    for (i = 0; i < st->nwrite; i++) {
	free(st->writev[i]);
    }
    Tcl_DStringFree(&st->rec);
}

const Rb_ReaderClass Rb_CsvReaderClass = {
    "csv",
    "delimited text (CSV, TSV) through a column map in -readeroptions",
    sizeof(CsvState),
    CsvSniff,
    CsvOpen,
    CsvNext,
    CsvClose,
};
