/*
 * fuzz_magpieschema.c --
 *
 *	libFuzzer harness for the Magpie schema language (magpie::schema)
 *	together with the parser: an input is schema statements, one per
 *	line, then a line "%%", then an event log run under that schema
 *	(see fuzz_magpiedrive.h).  Each statement line is read as a Tcl
 *	list and rebuilt as a command of literal words, so a statement can
 *	be any of the schema's with any arguments but the input never
 *	becomes a Tcl script of its own (no substitution, no other
 *	command).  Built by tests/fuzz/run.sh.
 */

#include "fuzz_magpiedrive.h"

static const char *const statements[] = {
    "attribute", "domain", "event", "sync", "stitch"
};

/*
 * SchemaBody --
 *	The body script of the statements in the n bytes at text.
 * Results: a new object (reference count 0).
 */
static Tcl_Obj *
SchemaBody(const char *text, size_t n)
{
    Tcl_Obj *body = Tcl_NewObj();
    const char *line = text, *end = text + n;

    while (line < end) {
	const char *nl = memchr(line, '\n', (size_t)(end - line));
	size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
	Tcl_Obj *words = Tcl_NewStringObj(line, (int)len), **w;
	int nw, k;

	Tcl_IncrRefCount(words);
	if (Tcl_ListObjGetElements(NULL, words, &nw, &w) == TCL_OK
		&& nw > 0) {
	    for (k = 0; k < 5; k++) {
		if (strcmp(Tcl_GetString(w[0]), statements[k]) == 0) {
		    /* A new list of the words: its text quotes every $, [
		     * and \, so the words are literal when evaluated. */
		    Tcl_Obj *command = Tcl_NewListObj(nw, w);

		    Tcl_IncrRefCount(command);
		    Tcl_AppendObjToObj(body, command);
		    Tcl_AppendToObj(body, "\n", 1);
		    Tcl_DecrRefCount(command);
		    break;
		}
	    }
	}
	Tcl_DecrRefCount(words);
	line += len + 1;
    }
    return body;
}

/*
 * FuzzExpectedError --
 *	A schema may be refused with RUBICON's codes, or with Tcl's own for
 *	a statement's usage: a wrong number of words, an unknown option, a
 *	word that is not a list (the statements are Tcl commands and report
 *	usage as Tcl's do).
 */
static int
FuzzExpectedError(const char *code)
{
    return strncmp(code, "RUBICON ", 8) == 0
	    || strcmp(code, "TCL WRONGARGS") == 0
	    || strncmp(code, "TCL LOOKUP INDEX ", 17) == 0
	    || strncmp(code, "TCL VALUE LIST ", 15) == 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    FuzzDriveInit("");
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *sep = memmem(text, size, "\n%%\n", 4);
    size_t nschema = sep ? (size_t)(sep - text) : size;
    Tcl_Obj *cmd;

    cmd = Tcl_NewListObj(0, NULL);
    Tcl_IncrRefCount(cmd);
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj("magpie::schema",
	    -1));
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj("fz", -1));
    Tcl_ListObjAppendElement(NULL, cmd, SchemaBody(text, nschema));
    if (Tcl_EvalObjEx(fuzzInterp, cmd, 0) != TCL_OK) {
	Tcl_Obj *opts = Tcl_GetReturnOptions(fuzzInterp, TCL_ERROR);
	Tcl_Obj *key = Tcl_NewStringObj("-errorcode", -1), *code = NULL;

	Tcl_IncrRefCount(opts);
	Tcl_DictObjGet(NULL, opts, key, &code);
	if (code == NULL || !FuzzExpectedError(Tcl_GetString(code))) {
	    fprintf(stderr, "fuzz: %s (%s)\n",
		    Tcl_GetStringResult(fuzzInterp),
		    code ? Tcl_GetString(code) : "no -errorcode");
	    abort();
	}
	Tcl_DecrRefCount(key);
	Tcl_DecrRefCount(opts);
	Tcl_DecrRefCount(cmd);
	return 0;
    }
    Tcl_DecrRefCount(cmd);
    if (sep != NULL) {
	FuzzDriveLog("fz", data + nschema + 4, size - nschema - 4);
    }
    return 0;
}
