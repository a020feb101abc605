/*
 * test_reporters.c --
 *
 *	The built-in Reporters, read back independently: CSV through a small
 *	RFC 4180 parser written here, JSON through Python's json module, the
 *	log line by line, gnuplot files by their data rows and, when gnuplot
 *	is installed, the PNG signature.  Every value read back is compared
 *	with the Attribute it came from.
 */

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rbtest.h"
#include "core/rbInt.h"
#include "reporters/util.h"

/*
 * The fixture: two Flows with an Attribute of every kind, a run summary,
 * and a fresh temporary directory.
 */

#define TABLE_TEXT0 "dd, \"fast\" copy"
#define TABLE_TEXT1 "line1\nline2"
#define NOTE_TEXT "tab\there\001end \"q\" \\ caf\xc3\xa9"
#define FLOW2 "dm-0/lv 1"
#define LONG_SERIES "IoRateOverTheWholeTraceInOneSecondIntervals"

static Rb_Flow *flows[2];
static Rb_RunInfo run;
static char tmpDir[256];

/*
 * AddRow --
 *	Appends a row of n numbers to a.
 */
static void
AddRow(Rb_Attribute *a, int n, const double *v)
{
    int r = Rb_AttrAddRow(a), c;

    for (c = 0; c < n; c++) {
	Rb_AttrSetNum(a, r, c, v[c]);
    }
}

/*
 * MakeSeries --
 *	A rate series with a NaN in it (JSON must turn it into null), and
 *	with reads as a second line when asked.
 */
static Rb_Attribute *
MakeSeries(const char *name, double scale, int withReads)
{
    Rb_Attribute *a = Rb_AttrCreate(name, RB_ATTR_SERIES, "IO/s",
	    "I/Os per second over time");
    double rows[4][2] = {{0, 10}, {1, 12.5}, {2, NAN}, {3, 9}};
    int r;

    Rb_AttrAddColumn(a, "time", "s", 0);
    Rb_AttrAddColumn(a, "value", "IO/s", 0);
    if (withReads) {
	Rb_AttrAddColumn(a, "reads", "IO/s", 0);
    }
    for (r = 0; r < 4; r++) {
	double v[3] = {rows[r][0], rows[r][1] * scale, r};

	AddRow(a, withReads ? 3 : 2, v);
    }
    return a;
}

/*
 * SetUp --
 *	Builds the fixture.  Flow "sda" has every kind (plus an empty
 *	table); flow "dm-0/lv 1", whose name needs sanitizing, has a second
 *	Bandwidth (so a bar chart is due) and a series.
 */
static void
SetUp(void)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Attribute *a;
    double hist[4][3] = {{0, 1024, 3}, {1024, 2048, 5}, {2048, 4096, 7},
	    {4096, 8192, 2}};
    double pct[3][2] = {{50, 0.002}, {90, 0.0105}, {99, 0.25}};
    int r;

    snprintf(tmpDir, sizeof(tmpDir), "/tmp/rbtest-reporters-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpDir));

    flows[0] = RbFlowCreate(interp, "sda");
    flows[1] = RbFlowCreate(interp, FLOW2);

    RbFlowSetAttr(flows[0], Rb_AttrScalar("Bandwidth", 1234.5, "bytes/s",
	    "bytes moved per second"));
    RbFlowSetAttr(flows[0], Rb_AttrScalar("Count", 1000, "", "I/Os seen"));

    a = Rb_AttrCreate("SizeHist", RB_ATTR_HISTOGRAM, "bytes",
	    "request sizes, log2 bins");
    Rb_AttrAddColumn(a, "lo", "bytes", 0);
    Rb_AttrAddColumn(a, "hi", "bytes", 0);
    Rb_AttrAddColumn(a, "count", "", 0);
    for (r = 0; r < 4; r++) {
	AddRow(a, 3, hist[r]);
    }
    RbFlowSetAttr(flows[0], a);

    a = Rb_AttrCreate("Latency", RB_ATTR_PERCENTILES, "s",
	    "response time percentiles");
    Rb_AttrAddColumn(a, "p", "%", 0);
    Rb_AttrAddColumn(a, "value", "s", 0);
    for (r = 0; r < 3; r++) {
	AddRow(a, 2, pct[r]);
    }
    a->partial = 1;
    RbFlowSetAttr(flows[0], a);

    RbFlowSetAttr(flows[0], MakeSeries("Rate", 1, 0));

    a = Rb_AttrCreate("Processes", RB_ATTR_TABLE, "", "bytes by process");
    Rb_AttrAddColumn(a, "pid", "", 0);
    Rb_AttrAddColumn(a, "name", "", 1);
    Rb_AttrAddColumn(a, "bytes", "bytes", 0);
    r = Rb_AttrAddRow(a);
    Rb_AttrSetNum(a, r, 0, 101);
    Rb_AttrSetText(a, r, 1, TABLE_TEXT0);
    Rb_AttrSetNum(a, r, 2, 4096);
    r = Rb_AttrAddRow(a);
    Rb_AttrSetNum(a, r, 0, 202);
    Rb_AttrSetText(a, r, 1, TABLE_TEXT1);
    Rb_AttrSetNum(a, r, 2, 0);
    r = Rb_AttrAddRow(a);
    Rb_AttrSetNum(a, r, 0, 303);
    Rb_AttrSetText(a, r, 1, "plain");
    Rb_AttrSetNum(a, r, 2, 1.5);
    RbFlowSetAttr(flows[0], a);

    RbFlowSetAttr(flows[0], Rb_AttrTextNew("Note", NOTE_TEXT,
	    "free text"));

    a = Rb_AttrCreate("Empty", RB_ATTR_TABLE, "", "no rows at all");
    Rb_AttrAddColumn(a, "x", "", 0);
    RbFlowSetAttr(flows[0], a);

    RbFlowSetAttr(flows[1], Rb_AttrScalar("Bandwidth", 99, "bytes/s",
	    "bytes moved per second"));
    /* A long name: plot commands must not be cut at any length. */
    RbFlowSetAttr(flows[1], MakeSeries(LONG_SERIES, 2, 1));

    RbRunInfoInit(&run, interp, NULL);
    run.traces = "a.srt b.srt";
    run.records = 1000;
    run.skipped = 3;
    run.firstTime = 0;
    run.lastTime = 3000000000LL;
    run.partial = 1;
    Tcl_DictObjPut(NULL, run.skipCounts, Tcl_NewStringObj("short-record", -1),
	    Tcl_NewIntObj(3));
}

/*
 * TearDown --
 *	Frees the fixture and removes the temporary directory.
 */
static void
TearDown(void)
{
    Tcl_Interp *interp = rbtest_interp();
    Tcl_Obj *cmd = Tcl_NewListObj(0, NULL);

    RbFlowDelete(flows[0]);
    RbFlowDelete(flows[1]);
    RbRunInfoFree(&run);
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj("file", -1));
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj("delete", -1));
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj("-force", -1));
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj(tmpDir, -1));
    Tcl_IncrRefCount(cmd);
    Tcl_EvalObjEx(interp, cmd, 0);
    Tcl_DecrRefCount(cmd);
    Tcl_ResetResult(interp);
}

/*
 * Path --
 *	tmpDir/rel in a static buffer (one of four, so a few can be live).
 */
static const char *
Path(const char *rel)
{
    static char buf[4][512];
    static int next;
    char *p = buf[next++ % 4];

    snprintf(p, 512, "%s/%s", tmpDir, rel);
    return p;
}

extern const Rb_ReporterClass Rb_ReporterLogClass, Rb_ReporterCsvClass,
	Rb_ReporterJsonClass, Rb_ReporterGraphClass;

/*
 * WriteReport --
 *	Creates a reporter of class name over nflows flows with the "-opt
 *	value" words given by the printf-style format, writes it once and
 *	deletes it.
 * Results: the write's Tcl code (the error stays in the interpreter).
 */
static int
WriteReport(const char *name, int nflows, Rb_Flow **fl, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
WriteReport(const char *name, int nflows, Rb_Flow **fl, const char *fmt, ...)
{
    Tcl_Interp *interp = rbtest_interp();
    const Rb_ReporterClass *all[] = {&Rb_ReporterLogClass,
	    &Rb_ReporterCsvClass, &Rb_ReporterJsonClass,
	    &Rb_ReporterGraphClass};
    const Rb_ReporterClass *cls = NULL;
    Tcl_CmdInfo info;
    Tcl_Obj *list, **objv;
    Rb_Reporter *r;
    char opts[1024];
    int objc, code, i;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(opts, sizeof(opts), fmt, ap);
    va_end(ap);
    for (i = 0; i < 4; i++) {
	if (strcmp(all[i]->name, name) == 0) {
	    cls = all[i];
	}
    }
    ck_assert_ptr_nonnull(cls);
    /* Registration made the class's command. */
    ck_assert_int_eq(Tcl_GetCommandInfo(interp, name, &info), 1);
    list = Tcl_NewStringObj(opts, -1);
    Tcl_IncrRefCount(list);
    ck_assert_int_eq(Tcl_ListObjGetElements(interp, list, &objc, &objv),
	    TCL_OK);
    r = RbReporterCreate(interp, cls, nflows, fl, objc, objv);
    Tcl_DecrRefCount(list);
    ck_assert_msg(r != NULL, "create %s: %s", name,
	    Tcl_GetStringResult(interp));
    code = RbReporterWrite(r, &run);
    RbReporterDelete(r);
    return code;
}

/*
 * ReadFile --
 *	The whole file at path, NUL-terminated, malloc'd; NULL if missing.
 */
static char *
ReadFile(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf;
    long n;

    if (fp == NULL) {
	return NULL;
    }
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    buf = malloc(n + 1);
    ck_assert_int_eq(fread(buf, 1, n, fp), n);
    buf[n] = '\0';
    fclose(fp);
    if (len) {
	*len = n;
    }
    return buf;
}

static int
Exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

/*
 * FindAttr --
 *	The fixture Attribute a report line names, or NULL.
 */
static const Rb_Attribute *
FindAttr(const char *flow, const char *attr)
{
    int i;

    for (i = 0; i < 2; i++) {
	if (strcmp(Rb_FlowName(flows[i]), flow) == 0) {
	    return Rb_FlowGetAttr(flows[i], attr);
	}
    }
    return NULL;
}

/*
 * CheckCell --
 *	Compares a cell read back as text with the fixture's value: text
 *	exactly, numbers by value (NaN as "NaN" or null).
 */
static void
CheckCell(const Rb_Attribute *a, int row, int col, const char *got)
{
    const Rb_Column *c;

    ck_assert_int_lt(row, a->nrows);
    ck_assert_int_lt(col, a->ncols);
    c = &a->cols[col];
    if (c->isText) {
	ck_assert_str_eq(got, c->text[row]);
    } else if (isnan(c->num[row])) {
	ck_assert_msg(strcmp(got, "NaN") == 0 || strcmp(got, "null") == 0,
		"%s: expected NaN, got %s", a->name, got);
    } else {
	char *end;
	double v = strtod(got, &end);

	ck_assert_msg(*got != '\0' && *end == '\0', "not a number: %s", got);
	ck_assert_msg(v == c->num[row], "%s[%d][%d]: %s != %.17g", a->name,
		row, col, got, c->num[row]);
    }
}

/*
 * CountCells --
 *	Number of cells (text counts as one) in the bound attributes of
 *	the first n fixture flows.
 */
static int
CountCells(int n)
{
    int i, j, count, total = 0;
    const char **names;

    for (i = 0; i < n; i++) {
	names = RbFlowAttrNames(flows[i], &count);
	for (j = 0; j < count; j++) {
	    const Rb_Attribute *a = Rb_FlowGetAttr(flows[i], names[j]);

	    total += a->kind == RB_ATTR_TEXT ? 1 : a->nrows * a->ncols;
	}
	free(names);
    }
    return total;
}

/*
 * A small RFC 4180 reader: records of fields, quoted fields may hold
 * commas, doubled quotes and line breaks.
 */

typedef struct Csv {
    int nrec;
    int *nfield;
    char ***field;
} Csv;

static void
CsvParse(const char *s, Csv *csv)
{
    Tcl_DString f;
    char **rec = NULL;
    int n = 0, quoted;

    memset(csv, 0, sizeof(*csv));
    while (*s) {
	Tcl_DStringInit(&f);
	quoted = (*s == '"');
	if (quoted) {
	    for (s++; !(*s == '"' && s[1] != '"'); s++) {
		ck_assert_msg(*s != '\0', "unterminated quoted field");
		if (*s == '"') {
		    s++;
		}
		Tcl_DStringAppend(&f, s, 1);
	    }
	    s++;
	} else {
	    while (*s && *s != ',' && *s != '\n' && *s != '\r') {
		ck_assert_msg(*s != '"', "quote inside an unquoted field");
		Tcl_DStringAppend(&f, s++, 1);
	    }
	}
	rec = realloc(rec, (n + 1) * sizeof(char *));
	rec[n++] = strdup(Tcl_DStringValue(&f));
	Tcl_DStringFree(&f);
	if (*s == ',') {
	    s++;
	    continue;
	}
	ck_assert_msg(*s == '\n' || (*s == '\r' && s[1] == '\n'),
		"field not followed by a separator");
	s += (*s == '\r') ? 2 : 1;
	csv->field = realloc(csv->field, (csv->nrec + 1) * sizeof(char **));
	csv->nfield = realloc(csv->nfield, (csv->nrec + 1) * sizeof(int));
	csv->field[csv->nrec] = rec;
	csv->nfield[csv->nrec++] = n;
	rec = NULL;
	n = 0;
    }
    ck_assert_int_eq(n, 0);
}

static void
CsvFree(Csv *csv)
{
    int i, j;

    for (i = 0; i < csv->nrec; i++) {
	for (j = 0; j < csv->nfield[i]; j++) {
	    free(csv->field[i][j]);
	}
	free(csv->field[i]);
    }
    free(csv->field);
    free(csv->nfield);
}

START_TEST(test_csv_long_every_cell_reads_back)
{
    Csv csv;
    char *text;
    const char *header[] = {"flow", "attribute", "kind", "row", "column",
	    "value", "unit"};
    int i, j, sawTable = 0;

    SetUp();
    ck_assert_int_eq(WriteReport("ReporterCsv", 2, flows,
	    "-output %s", Path("r.csv")),
	    TCL_OK);
    text = ReadFile(Path("r.csv"), NULL);
    ck_assert_ptr_nonnull(text);
    CsvParse(text, &csv);
    ck_assert_int_eq(csv.nrec, 1 + CountCells(2));
    for (j = 0; j < 7; j++) {
	ck_assert_str_eq(csv.field[0][j], header[j]);
    }
    for (i = 1; i < csv.nrec; i++) {
	char **f = csv.field[i];
	const Rb_Attribute *a = FindAttr(f[0], f[1]);
	int col;

	ck_assert_int_eq(csv.nfield[i], 7);
	ck_assert_msg(a != NULL, "unknown %s %s", f[0], f[1]);
	ck_assert_str_eq(f[2], Rb_AttrKindName(a->kind));
	if (a->kind == RB_ATTR_TEXT) {
	    ck_assert_str_eq(f[3], "0");
	    ck_assert_str_eq(f[4], "text");
	    ck_assert_str_eq(f[5], a->text);
	    continue;
	}
	col = Rb_AttrColumnIndex(a, f[4]);
	ck_assert_int_ge(col, 0);
	CheckCell(a, atoi(f[3]), col, f[5]);
	ck_assert_str_eq(f[6], *a->cols[col].unit ? a->cols[col].unit
		: a->kind == RB_ATTR_SCALAR ? a->unit : "");
	if (a->kind == RB_ATTR_TABLE && col == 1 && atoi(f[3]) == 0) {
	    ck_assert_str_eq(f[5], TABLE_TEXT0);
	    sawTable = 1;
	}
    }
    ck_assert(sawTable);
    /* The quoting itself, as a reader of the raw file sees it. */
    ck_assert_ptr_nonnull(strstr(text,
	    "sda,Processes,table,0,name,\"dd, \"\"fast\"\" copy\",\n"));
    ck_assert(strstr(text, "\"dm-0/lv 1\"") == NULL);
    ck_assert_ptr_nonnull(strstr(text,
	    "dm-0/lv 1,Bandwidth,scalar,0,value,99,bytes/s\n"));
    CsvFree(&csv);
    free(text);
    TearDown();
}
END_TEST

START_TEST(test_csv_wide_one_file_per_attribute)
{
    Csv csv;
    char *text;
    const Rb_Attribute *a;
    int r, c;

    SetUp();
    ck_assert_int_eq(WriteReport("ReporterCsv", 2, flows,
	    "-wide 1 -output %s",
		    Path("wide/csv")), TCL_OK);

    text = ReadFile(Path("wide/csv/sda.Processes.csv"), NULL);
    ck_assert_ptr_nonnull(text);
    CsvParse(text, &csv);
    a = FindAttr("sda", "Processes");
    ck_assert_int_eq(csv.nrec, 1 + a->nrows);
    for (c = 0; c < a->ncols; c++) {
	ck_assert_str_eq(csv.field[0][c], a->cols[c].name);
    }
    for (r = 0; r < a->nrows; r++) {
	ck_assert_int_eq(csv.nfield[r + 1], a->ncols);
	for (c = 0; c < a->ncols; c++) {
	    CheckCell(a, r, c, csv.field[r + 1][c]);
	}
    }
    CsvFree(&csv);
    free(text);

    /* The flow name "dm-0/lv 1" is sanitized into the file name. */
    text = ReadFile(Path("wide/csv/dm-0_lv_1.Bandwidth.csv"), NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "value\n99\n");
    free(text);

    text = ReadFile(Path("wide/csv/sda.Note.csv"), NULL);
    ck_assert_ptr_nonnull(text);
    CsvParse(text, &csv);
    ck_assert_int_eq(csv.nrec, 2);
    ck_assert_str_eq(csv.field[1][0], NOTE_TEXT);
    CsvFree(&csv);
    free(text);

    /* An attribute with no rows still gets its header. */
    text = ReadFile(Path("wide/csv/sda.Empty.csv"), NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "x\n");
    free(text);
    TearDown();
}
END_TEST

/*
 * Python reads the JSON and prints one line per fact, strings as hex of
 * their UTF-8 so that no delimiter can be confused:
 *   run RECORDS SKIPPED PARTIAL FIRST LAST SKIPCOUNT(short-record)
 *   flow HEX(name) NATTRS
 *   attr HEX(flow) HEX(name) KIND HEX(unit) HEX(help) PARTIAL NROWS HEX(text)
 *   col HEX(flow) HEX(attr) C HEX(name) HEX(unit) TYPE
 *   cell HEX(flow) HEX(attr) R C n|s|null VALUE
 */
static const char *pyDump =
    "import json, sys\n"
    "h = lambda s: s.encode('utf-8').hex() or '-'\n"
    "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "r = d['run']\n"
    "print('run', r['records'], r['skipped'], r['partial'], r['firstTime'],"
    " r['lastTime'], r['skipCounts'].get('short-record'))\n"
    "for f in d['flows']:\n"
    "  print('flow', h(f['name']), len(f['attributes']))\n"
    "  for a in f['attributes']:\n"
    "    print('attr', h(f['name']), h(a['name']), a['kind'], h(a['unit']),"
    " h(a['help']), a['partial'], len(a['rows']), h(a.get('text', '')))\n"
    "    for c, col in enumerate(a['columns']):\n"
    "      print('col', h(f['name']), h(a['name']), c, h(col['name']),"
    " h(col['unit']), col['type'])\n"
    "    for i, row in enumerate(a['rows']):\n"
    "      assert len(row) == len(a['columns'])\n"
    "      for c, v in enumerate(row):\n"
    "        if v is None: t, s = 'null', '-'\n"
    "        elif isinstance(v, str): t, s = 's', h(v)\n"
    "        else: t, s = 'n', repr(v)\n"
    "        print('cell', h(f['name']), h(a['name']), i, c, t, s)\n";

/*
 * Unhex --
 *	Decodes a hex word from the Python dump ("-" is "") in place.
 */
static char *
Unhex(char *s)
{
    size_t i, n = strlen(s);

    if (strcmp(s, "-") == 0) {
	s[0] = '\0';
	return s;
    }
    for (i = 0; i < n / 2; i++) {
	unsigned int b;

	ck_assert_int_eq(sscanf(s + 2 * i, "%2x", &b), 1);
	s[i] = (char) b;
    }
    s[n / 2] = '\0';
    return s;
}

/*
 * RunPython --
 *	Runs the dump script on a JSON file.
 * Results: the lines it printed, malloc'd; fails the test if python3
 *	does not exit 0 (that is, the file is not valid JSON).
 */
static char *
RunPython(const char *json)
{
    const char *script = Path("dump.py");
    FILE *fp = fopen(script, "w"), *pp;
    Tcl_DString out;
    char buf[4096], cmd[1024];
    size_t n;

    ck_assert_ptr_nonnull(fp);
    fputs(pyDump, fp);
    fclose(fp);
    snprintf(cmd, sizeof(cmd), "python3 %s %s", script, json);
    pp = popen(cmd, "r");
    ck_assert_ptr_nonnull(pp);
    Tcl_DStringInit(&out);
    while ((n = fread(buf, 1, sizeof(buf), pp)) > 0) {
	Tcl_DStringAppend(&out, buf, (int) n);
    }
    ck_assert_int_eq(pclose(pp), 0);
    ck_assert_int_gt(Tcl_DStringLength(&out), 0);
    {
	char *s = strdup(Tcl_DStringValue(&out));

	Tcl_DStringFree(&out);
	return s;
    }
}

START_TEST(test_json_python_reads_every_value)
{
    char *dump, *line, *save, *w[10];
    int nflows = 0, nattrs = 0, ncells = 0, nw;

    SetUp();
    ck_assert_int_eq(WriteReport("ReporterJson", 2, flows,
	    "-output %s", Path("r.json")),
	    TCL_OK);
    dump = RunPython(Path("r.json"));
    for (line = strtok_r(dump, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
	char *p = line;

	for (nw = 0; nw < 10 && (w[nw] = strsep(&p, " ")) != NULL; nw++) {
	}
	if (strcmp(w[0], "run") == 0) {
	    ck_assert_int_eq(nw, 7);
	    ck_assert_str_eq(w[1], "1000");
	    ck_assert_str_eq(w[2], "3");
	    ck_assert_str_eq(w[3], "True");
	    ck_assert_str_eq(w[4], "0");
	    ck_assert_str_eq(w[5], "3000000000");
	    ck_assert_str_eq(w[6], "3");
	} else if (strcmp(w[0], "flow") == 0) {
	    ck_assert_str_eq(Unhex(w[1]), Rb_FlowName(flows[nflows]));
	    nflows++;
	} else if (strcmp(w[0], "attr") == 0) {
	    const Rb_Attribute *a = FindAttr(Unhex(w[1]), Unhex(w[2]));

	    ck_assert_ptr_nonnull(a);
	    ck_assert_str_eq(w[3], Rb_AttrKindName(a->kind));
	    ck_assert_str_eq(Unhex(w[4]), a->unit);
	    ck_assert_str_eq(Unhex(w[5]), a->help);
	    ck_assert_str_eq(w[6], a->partial ? "True" : "False");
	    ck_assert_int_eq(atoi(w[7]), a->nrows);
	    ck_assert_str_eq(Unhex(w[8]), a->text ? a->text : "");
	    nattrs++;
	} else if (strcmp(w[0], "col") == 0) {
	    const Rb_Attribute *a = FindAttr(Unhex(w[1]), Unhex(w[2]));
	    int c = atoi(w[3]);

	    ck_assert_str_eq(Unhex(w[4]), a->cols[c].name);
	    ck_assert_str_eq(w[6], a->cols[c].isText ? "text" : "number");
	} else if (strcmp(w[0], "cell") == 0) {
	    const Rb_Attribute *a = FindAttr(Unhex(w[1]), Unhex(w[2]));
	    int r = atoi(w[3]), c = atoi(w[4]);

	    if (strcmp(w[5], "s") == 0) {
		ck_assert(a->cols[c].isText);
		CheckCell(a, r, c, Unhex(w[6]));
	    } else if (strcmp(w[5], "null") == 0) {
		ck_assert(isnan(a->cols[c].num[r]));
	    } else {
		ck_assert(!a->cols[c].isText);
		CheckCell(a, r, c, w[6]);
	    }
	    ncells++;
	} else {
	    ck_abort_msg("unexpected line %s", w[0]);
	}
    }
    ck_assert_int_eq(nflows, 2);
    ck_assert_int_eq(nattrs, 10);
    ck_assert_int_eq(ncells, CountCells(2) - 1);	/* Note has no cells */
    free(dump);

    /* Integral values carry no ".0"; NaN is null. */
    dump = ReadFile(Path("r.json"), NULL);
    ck_assert_ptr_nonnull(strstr(dump, "[101, \"dd, \\\"fast\\\" copy\", 4096]"));
    ck_assert_ptr_nonnull(strstr(dump, "[2, null]"));
    ck_assert_ptr_nonnull(strstr(dump, "\\u0001"));
    free(dump);
    TearDown();
}
END_TEST

START_TEST(test_json_invalid_utf8_and_repeated_flow)
{
    Rb_Flow *twice[2];
    char *dump;

    SetUp();
    RbFlowSetAttr(flows[1], Rb_AttrTextNew("Raw", "bad\xff\xc3", ""));
    twice[0] = twice[1] = flows[1];
    ck_assert_int_eq(WriteReport("ReporterJson", 2, twice,
	    "-output %s", Path("t.json")),
	    TCL_OK);
    dump = RunPython(Path("t.json"));
    /* The flow bound twice is reported twice, each with its 3 attributes;
     * the bad bytes became U+FFFD (hex efbfbd) and the file stayed JSON. */
    ck_assert_ptr_nonnull(strstr(dump, "flow 646d2d302f6c762031 3\n"
	    "attr"));
    ck_assert_ptr_nonnull(strstr(strstr(dump, "flow 646d") + 1,
	    "flow 646d2d302f6c762031 3\n"));
    ck_assert_ptr_nonnull(strstr(dump, "626164efbfbdefbfbd"));
    free(dump);
    TearDown();
}
END_TEST

START_TEST(test_log_header_scalars_and_aligned_tables)
{
    char *text, *p, *line, *save;
    int tableLines = 0, len = -1;

    SetUp();
    ck_assert_int_eq(WriteReport("ReporterLog", 2, flows,
	    "-output %s", Path("r.log")),
	    TCL_OK);
    text = ReadFile(Path("r.log"), NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "\n  traces:   a.srt b.srt\n"));
    ck_assert_ptr_nonnull(strstr(text,
	    "\n  records:  1000 read, 3 skipped (short-record 3)\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n  PARTIAL: "));
    ck_assert_ptr_nonnull(strstr(text, "\nFlow sda\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nsda  Bandwidth = 1234.5 bytes/s\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nsda  Count = 1000\n"));
    ck_assert_ptr_nonnull(strstr(text,
	    "\ndm-0/lv 1  Bandwidth = 99 bytes/s\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nsda  Latency (percentiles, 3 rows,"
	    " s, partial): response time percentiles\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nsda  Note: tab\\there\\x01end"));
    ck_assert_ptr_nonnull(strstr(text, "\nsda  Empty (table, 0 rows): no rows"
	    " at all\n    (no rows)\n"));

    /* The histogram: a header with units, then rows, all one width. */
    p = strstr(text, "\nsda  SizeHist (histogram, 4 rows, bytes)");
    ck_assert_ptr_nonnull(p);
    p = strchr(p + 1, '\n') + 1;
    for (line = strtok_r(p, "\n", &save); line && line[0] == ' ';
	    line = strtok_r(NULL, "\n", &save)) {
	if (len < 0) {
	    ck_assert_ptr_nonnull(strstr(line, "lo (bytes)"));
	    ck_assert_ptr_nonnull(strstr(line, "hi (bytes)"));
	    ck_assert_ptr_nonnull(strstr(line, "count"));
	    len = (int) strlen(line);
	}
	ck_assert_int_eq((int) strlen(line), len);
	tableLines++;
	if (tableLines == 3) {
	    double lo, hi, count;

	    ck_assert_int_eq(sscanf(line, "%lf %lf %lf", &lo, &hi, &count), 3);
	    ck_assert(lo == 1024 && hi == 2048 && count == 5);
	}
    }
    ck_assert_int_eq(tableLines, 5);
    free(text);
    TearDown();
}
END_TEST

START_TEST(test_log_table_text_cells_stay_on_their_line)
{
    char *text;

    SetUp();
    ck_assert_int_eq(WriteReport("ReporterLog", 1, flows,
	    "-output %s", Path("r.log")),
	    TCL_OK);
    text = ReadFile(Path("r.log"), NULL);
    ck_assert_ptr_nonnull(strstr(text,
	    "    pid name            bytes (bytes)\n"
	    "    101 dd, \"fast\" copy          4096\n"
	    "    202 line1\\nline2                0\n"
	    "    303 plain                     1.5\n"));
    free(text);
    TearDown();
}
END_TEST

/*
 * DatRows --
 *	The non-comment lines of a .dat file, split on tabs.
 */
static int
DatRows(const char *path, char rows[][4][64], int max)
{
    char *text = ReadFile(path, NULL), *line, *save, *cell, *p;
    int n = 0, c;

    ck_assert_msg(text != NULL, "missing %s", path);
    for (line = strtok_r(text, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
	if (line[0] == '#') {
	    continue;
	}
	ck_assert_int_lt(n, max);
	p = line;
	for (c = 0; c < 4 && (cell = strsep(&p, "\t")) != NULL; c++) {
	    snprintf(rows[n][c], 64, "%s", cell);
	}
	for (; c < 4; c++) {
	    rows[n][c][0] = '\0';
	}
	n++;
    }
    free(text);
    return n;
}

/*
 * CheckScript --
 *	The .gp file exists and holds each of the given strings.
 */
static void
CheckScript(const char *path, const char *const *want)
{
    char *text = ReadFile(path, NULL);

    ck_assert_msg(text != NULL, "missing %s", path);
    for (; *want; want++) {
	ck_assert_msg(strstr(text, *want) != NULL, "%s lacks %s", path, *want);
    }
    free(text);
}

/*
 * HasPngSignature --
 *	1 if the file starts with the 8-byte PNG signature.
 */
static int
HasPngSignature(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n',
	    0x1a, '\n'};
    size_t len = 0;
    char *data = ReadFile(path, &len);
    int ok = data != NULL && len > 8 && memcmp(data, sig, 8) == 0;

    free(data);
    return ok;
}

static int
GnuplotInstalled(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

START_TEST(test_graph_scripts_data_and_pictures)
{
    char rows[16][4][64];
    const Rb_Attribute *a;
    const char *rateWant[] = {"set title 'Flow sda: Rate' noenhanced",
	    "set xlabel 'time (s)'", "set ylabel 'Rate (IO/s)'",
	    "plot 'sda.Rate.dat' using 1:2 with linespoints", NULL};
    const char *histWant[] = {"set title 'Flow sda: SizeHist'",
	    "set logscale x 2", "set xlabel 'SizeHist (bytes)'",
	    "set ylabel 'count'", "boxxyerror", NULL};
    const char *pctWant[] = {"set title 'Flow sda: Latency (partial run)'",
	    "set xlabel 'percentile (%)'", "set ylabel 'Latency (s)'", NULL};
    const char *longWant[] = {"set ylabel '" LONG_SERIES " (IO/s)'",
	    "plot 'dm-0_lv_1." LONG_SERIES ".dat' using 1:2 with linespoints"
	    " pt 7 ps 0.5 title 'value', '' using 1:3 with linespoints"
	    " pt 7 ps 0.5 title 'reads'\n", NULL};
    const char *barWant[] = {"set title 'Bandwidth by Flow'",
	    "set ylabel 'Bandwidth (bytes/s)'", "xtic(3) with boxes", NULL};
    int n, r, c, render = GnuplotInstalled();

    SetUp();
    ck_assert_int_eq(WriteReport("ReporterGraph", 2, flows,
	    "-output %s", Path("g")), TCL_OK);

    CheckScript(Path("g/sda.Rate.gp"), rateWant);
    a = FindAttr("sda", "Rate");
    n = DatRows(Path("g/sda.Rate.dat"), rows, 16);
    ck_assert_int_eq(n, a->nrows);
    for (r = 0; r < n; r++) {
	for (c = 0; c < 2; c++) {
	    CheckCell(a, r, c, rows[r][c]);
	}
    }

    CheckScript(Path("g/sda.SizeHist.gp"), histWant);
    a = FindAttr("sda", "SizeHist");
    ck_assert_int_eq(DatRows(Path("g/sda.SizeHist.dat"), rows, 16), 4);
    for (r = 0; r < 4; r++) {
	for (c = 0; c < 3; c++) {
	    CheckCell(a, r, c, rows[r][c]);
	}
    }

    CheckScript(Path("g/sda.Latency.gp"), pctWant);
    ck_assert_int_eq(DatRows(Path("g/sda.Latency.dat"), rows, 16), 3);
    ck_assert_str_eq(rows[2][1], "0.25");

    /* A scalar in both flows: one bar per flow. */
    CheckScript(Path("g/by-flow.Bandwidth.gp"), barWant);
    ck_assert_int_eq(DatRows(Path("g/by-flow.Bandwidth.dat"), rows, 16), 2);
    ck_assert_str_eq(rows[0][1], "1234.5");
    ck_assert_str_eq(rows[0][2], "sda");
    ck_assert_str_eq(rows[1][1], "99");
    ck_assert_str_eq(rows[1][2], FLOW2);

    /* Sanitized names; no picture for tables, text, single scalars. */
    /* Two lines in one picture, each named in the key. */
    CheckScript(Path("g/dm-0_lv_1." LONG_SERIES ".gp"), longWant);
    a = FindAttr(FLOW2, LONG_SERIES);
    ck_assert_int_eq(DatRows(Path("g/dm-0_lv_1." LONG_SERIES ".dat"), rows,
	    16), 4);
    for (r = 0; r < 4; r++) {
	for (c = 0; c < 3; c++) {
	    CheckCell(a, r, c, rows[r][c]);
	}
    }
    ck_assert(!Exists(Path("g/sda.Processes.gp")));
    ck_assert(!Exists(Path("g/sda.Note.gp")));
    ck_assert(!Exists(Path("g/sda.Empty.gp")));
    ck_assert(!Exists(Path("g/by-flow.Count.gp")));

    if (render) {
	ck_assert(HasPngSignature(Path("g/sda.Rate.png")));
	ck_assert(HasPngSignature(Path("g/sda.SizeHist.png")));
	ck_assert(HasPngSignature(Path("g/sda.Latency.png")));
	ck_assert(HasPngSignature(Path("g/by-flow.Bandwidth.png")));
	ck_assert(HasPngSignature(Path("g/dm-0_lv_1." LONG_SERIES ".png")));
	ck_assert(Exists(Path("g/sda.Rate.svg")));
    } else {
	fprintf(stderr, "test_reporters: gnuplot not installed, "
		"pictures not checked\n");
    }
    TearDown();
}
END_TEST

START_TEST(test_graph_gnuplot_failure_names_the_script)
{
    Tcl_Interp *interp = rbtest_interp();
    const char *oldPath;
    char *saved, newPath[8192];
    FILE *fp;

    SetUp();
    /* A gnuplot that fails, first on PATH. */
    ck_assert_int_eq(mkdir(Path("bin"), 0777), 0);
    fp = fopen(Path("bin/gnuplot"), "w");
    ck_assert_ptr_nonnull(fp);
    fputs("#!/bin/sh\necho 'line 1: broken on purpose' >&2\nexit 1\n", fp);
    fclose(fp);
    chmod(Path("bin/gnuplot"), 0755);
    oldPath = Tcl_GetVar2(interp, "env", "PATH", TCL_GLOBAL_ONLY);
    saved = strdup(oldPath ? oldPath : "");
    snprintf(newPath, sizeof(newPath), "%s:%s", Path("bin"), saved);
    Tcl_SetVar2(interp, "env", "PATH", newPath, TCL_GLOBAL_ONLY);

    ck_assert_int_eq(WriteReport("ReporterGraph", 1, flows,
	    "-output %s", Path("g")), TCL_ERROR);
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(interp), ".gp\""));
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(interp),
	    "broken on purpose"));
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(interp), Path("g/")));

    /* With -render 0 the same report needs no gnuplot. */
    ck_assert_int_eq(WriteReport("ReporterGraph", 1, flows,
	    "-render 0 -output %s", Path("g2")),
	    TCL_OK);
    ck_assert(Exists(Path("g2/sda.Rate.gp")));
    ck_assert(!Exists(Path("g2/sda.Rate.png")));

    Tcl_SetVar2(interp, "env", "PATH", saved, TCL_GLOBAL_ONLY);
    free(saved);
    TearDown();
}
END_TEST

START_TEST(test_graph_names_cannot_become_gnuplot_commands)
{
    Rb_Flow *evil;
    char *script;

    SetUp();
    evil = RbFlowCreate(rbtest_interp(),
	    "x\nsystem 'touch pwned'\n'quote");
    RbFlowSetAttr(evil, MakeSeries("Rate\nsystem 'touch pwned2'", 1, 1));
    ck_assert_int_eq(WriteReport("ReporterGraph", 1, &evil,
	    "-output %s", Path("g")), TCL_OK);
    ck_assert(!Exists(Path("g/pwned")));
    ck_assert(!Exists(Path("g/pwned2")));
    script = ReadFile(Path("g/x_system__touch_pwned___quote.Rate_system__"
	    "touch_pwned2_.gp"), NULL);
    ck_assert_ptr_nonnull(script);
    ck_assert(strstr(script, "\nsystem") == NULL);
    ck_assert_ptr_nonnull(strstr(script, "x system ''touch pwned'' ''quote"));
    free(script);
    RbFlowDelete(evil);
    TearDown();
}
END_TEST

/*
 * CheckFailsNaming --
 *	A report to path fails, the message names path, and nothing is left
 *	under path (as a file) or under its temporary name.
 */
static void
CheckFailsNaming(const char *cls, const char *opts, const char *path,
	int leavesDir)
{
    Tcl_Interp *interp = rbtest_interp();
    char tmp[600];
    struct stat st;

    ck_assert_int_eq(WriteReport(cls, 2, flows,
	    "%s -output %s", opts, path),
	    TCL_ERROR);
    ck_assert_msg(strstr(Tcl_GetStringResult(interp), path) != NULL,
	    "%s: error does not name %s: %s", cls, path,
	    Tcl_GetStringResult(interp));
    if (leavesDir) {
	ck_assert(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    } else {
	ck_assert(!Exists(path));
    }
    snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", path, (long) getpid());
    ck_assert(!Exists(tmp));
    Tcl_ResetResult(interp);
}

START_TEST(test_unwritable_output_fails_naming_the_file)
{
    const char *cls[] = {"ReporterLog", "ReporterCsv", "ReporterJson"};
    int i;

    SetUp();
    for (i = 0; i < 3; i++) {
	CheckFailsNaming(cls[i], "", Path("no/such/dir/report"), 0);
	CheckFailsNaming(cls[i], "", "/proc/rubicon-report", 0);
    }
    /* The final name is a directory: the rename fails after a complete
     * write, and the temporary file is removed. */
    ck_assert_int_eq(mkdir(Path("taken"), 0777), 0);
    ck_assert_int_eq(mkdir(Path("taken/x"), 0777), 0);
    for (i = 0; i < 3; i++) {
	CheckFailsNaming(cls[i], "", Path("taken"), 1);
    }
    /* Directory outputs that cannot be made. */
    CheckFailsNaming("ReporterCsv", "-wide 1", "/proc/rubicon-csv", 0);
    CheckFailsNaming("ReporterGraph", "", "/proc/rubicon-graphs", 0);
    TearDown();
}
END_TEST

START_TEST(test_zero_flows_and_attribute_selection)
{
    char *text, *dump;

    SetUp();
    ck_assert_int_eq(WriteReport("ReporterCsv", 0, flows,
	    "-output %s", Path("z.csv")),
	    TCL_OK);
    text = ReadFile(Path("z.csv"), NULL);
    ck_assert_str_eq(text, "flow,attribute,kind,row,column,value,unit\n");
    free(text);

    ck_assert_int_eq(WriteReport("ReporterLog", 0, flows,
	    "-output %s", Path("z.log")),
	    TCL_OK);
    text = ReadFile(Path("z.log"), NULL);
    ck_assert_ptr_nonnull(strstr(text, "(no flows)"));
    free(text);

    ck_assert_int_eq(WriteReport("ReporterJson", 0, flows,
	    "-output %s", Path("z.json")),
	    TCL_OK);
    dump = RunPython(Path("z.json"));
    ck_assert_str_eq(dump, "run 1000 3 True 0 3000000000 3\n");
    free(dump);

    ck_assert_int_eq(WriteReport("ReporterGraph", 0, flows,
	    "-output %s", Path("zg")), TCL_OK);
    ck_assert(Exists(Path("zg")));

    /* -attributes picks, in its order, what every format reports. */
    ck_assert_int_eq(WriteReport("ReporterCsv", 2, flows,
	    "-attributes {Count Bandwidth}"
		    " -output %s", Path("sel.csv")), TCL_OK);
    text = ReadFile(Path("sel.csv"), NULL);
    ck_assert_str_eq(text, "flow,attribute,kind,row,column,value,unit\n"
	    "sda,Count,scalar,0,value,1000,\n"
	    "sda,Bandwidth,scalar,0,value,1234.5,bytes/s\n"
	    "dm-0/lv 1,Bandwidth,scalar,0,value,99,bytes/s\n");
    free(text);
    TearDown();
}
END_TEST

START_TEST(test_numbers_and_names_are_formatted_once_for_all)
{
    char buf[RB_NUMBUF];
    Tcl_DString ds;
    Rb_ReportNames names;

    ck_assert_str_eq(RbReportNum(42, buf), "42");
    ck_assert_str_eq(RbReportNum(-0.0, buf), "0");
    ck_assert_str_eq(RbReportNum(0.1, buf), "0.1");
    ck_assert_str_eq(RbReportNum(1.0 / 3, buf), "0.3333333333333333");
    ck_assert_str_eq(RbReportNum(1e300, buf), "1e+300");
    ck_assert_str_eq(RbReportNum(NAN, buf), "NaN");
    ck_assert_str_eq(RbReportNum(-INFINITY, buf), "-Inf");
    ck_assert_str_eq(RbReportNum(123456789, buf), "123456789");

    RbReportNamesInit(&names);
    ck_assert_str_eq(RbReportFileName(&names, "../etc", "a b", &ds),
	    "_._etc.a_b");
    Tcl_DStringFree(&ds);
    ck_assert_str_eq(RbReportFileName(&names, "_./etc", "a_b", &ds),
	    "_._etc.a_b-2");
    Tcl_DStringFree(&ds);
    ck_assert_str_eq(RbReportFileName(&names, "", "[exec rm]", &ds),
	    "_._exec_rm_");
    Tcl_DStringFree(&ds);
    ck_assert_str_eq(RbReportFileName(&names, "-v", "x-y", &ds),
	    "_v.x-y");
    Tcl_DStringFree(&ds);
    RbReportNamesFree(&names);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("reporters");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_csv_long_every_cell_reads_back);
    tcase_add_test(tc, test_csv_wide_one_file_per_attribute);
    tcase_add_test(tc, test_json_python_reads_every_value);
    tcase_add_test(tc, test_json_invalid_utf8_and_repeated_flow);
    tcase_add_test(tc, test_log_header_scalars_and_aligned_tables);
    tcase_add_test(tc, test_log_table_text_cells_stay_on_their_line);
    tcase_add_test(tc, test_graph_scripts_data_and_pictures);
    tcase_add_test(tc, test_graph_gnuplot_failure_names_the_script);
    tcase_add_test(tc, test_graph_names_cannot_become_gnuplot_commands);
    tcase_add_test(tc, test_unwritable_output_fails_naming_the_file);
    tcase_add_test(tc, test_zero_flows_and_attribute_selection);
    tcase_add_test(tc, test_numbers_and_names_are_formatted_once_for_all);
    suite_add_tcase(s, tc);
    return s;
}
