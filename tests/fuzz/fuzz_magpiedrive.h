/*
 * fuzz_magpiedrive.h --
 *
 *	The body shared by the Magpie request-parser fuzz harnesses
 *	(fuzz_magpieparser.c: fuzzed logs under a fixed schema;
 *	fuzz_magpieschema.c: fuzzed schema statements and log together).
 *	Unlike the reader harnesses (fuzz_reader.h) these drive the whole
 *	package, as a user does, through its Tcl commands: each log is run
 *	with rubicon::run -format magpie -onerror skip into a
 *	MagpieParserAnalyzer, and every request it lists goes through
 *	magpie::request, magpie::timeline and magpie::distance, so the
 *	reader, parser, sync points, canonical form, clustering and timeline
 *	drawing all see the input.  A run may fail, but only with an
 *	-errorcode starting RUBICON; anything else aborts (a finding).
 *
 *	Built by tests/fuzz/run.sh against every source of the library
 *	compiled with the fuzzer's instrumentation.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tcl.h>

/* The harness is compiled without USE_TCL_STUBS and calls libtcl
 * directly; the library objects go through the stubs table that
 * Rubicon_Init sets up. */

int Rubicon_Init(Tcl_Interp *interp);
/* The plugin's registration, linked in directly (the package is a
 * shared library of its own in the program). */
int RbMagpieInit(Tcl_Interp *interp);

static Tcl_Interp *fuzzInterp;
static char fuzzDir[64];

/*
 * The script each input runs: fuzzRun LOG SCHEMA.  The parser's limits
 * are small so that a few hundred bytes can reach them.
 */
static const char fuzzScript[] =
    "proc fuzzRun {log schema} {\n"
    "    rubicon::reset\n"
    "    set f [Flow p [MagpieParserAnalyzer -schema $schema -keep 3 \\\n"
    "        -maxinflight 40 -maxclusters 8 -outliers 2]]\n"
    "    head $f\n"
    "    if {[catch {rubicon::run -progress 0 -format magpie -onerror skip \\\n"
    "            -readeroptions [list schema $schema] $log} msg opts]} {\n"
    "        fuzzCheck $msg $opts\n"
    "        return\n"
    "    }\n"
    "    set forms [lmap row [dict get [$f get Requests] rows] {\n"
    "        lindex $row end\n"
    "    }]\n"
    "    for {set id 1} {$id <= 3} {incr id} {\n"
    "        if {[catch {magpie::request $f $id} msg opts]} {\n"
    "            fuzzCheck $msg $opts\n"
    "            continue\n"
    "        }\n"
    "        if {[catch {magpie::timeline $f $id [file dirname $log]/t.svg \\\n"
    "                -gnuplot [file dirname $log]/t.gp} msg opts]} {\n"
    "            fuzzCheck $msg $opts\n"
    "        }\n"
    "    }\n"
    "    foreach a $forms {\n"
    "        foreach b $forms {\n"
    "            if {[catch {magpie::distance $a $b} msg opts]} {\n"
    "                fuzzCheck $msg $opts\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n"
    "proc fuzzCheck {msg opts} {\n"
    "    if {[lindex [dict get $opts -errorcode] 0] ne \"RUBICON\"} {\n"
    "        return -code error \"not a RUBICON error:\\\n"
    "            [dict get $opts -errorcode]: $msg\"\n"
    "    }\n"
    "}\n";

/*
 * FuzzDriveInit --
 *	Creates the interpreter, loads the package and the script, and
 *	defines the harness's schemas (setup, a script; may be "").
 */
static void
FuzzDriveInit(const char *setup)
{
    Tcl_FindExecutable(NULL);
    fuzzInterp = Tcl_CreateInterp();
    if (Rubicon_Init(fuzzInterp) != TCL_OK
	    || RbMagpieInit(fuzzInterp) != TCL_OK
	    || Tcl_Eval(fuzzInterp, fuzzScript) != TCL_OK
	    || Tcl_Eval(fuzzInterp, setup) != TCL_OK) {
	fprintf(stderr, "fuzz: %s\n", Tcl_GetStringResult(fuzzInterp));
	abort();
    }
    snprintf(fuzzDir, sizeof(fuzzDir), "/tmp/rbfuzz-magpie-%ld",
	    (long)getpid());
    if (mkdir(fuzzDir, 0700) != 0 && errno != EEXIST) {
	abort();
    }
}

/*
 * FuzzDriveLog --
 *	Runs n bytes of log through the parser under schema; aborts on an
 *	error that is not RUBICON's.
 */
static void
FuzzDriveLog(const char *schema, const uint8_t *log, size_t n)
{
    char path[96];
    FILE *fp;
    Tcl_Obj *cmd;

    snprintf(path, sizeof(path), "%s/web.log", fuzzDir);
    fp = fopen(path, "wb");
    if (fp == NULL || fwrite(log, 1, n, fp) != n || fclose(fp) != 0) {
	abort();
    }
    cmd = Tcl_NewListObj(3, (Tcl_Obj *[]){Tcl_NewStringObj("fuzzRun", -1),
	    Tcl_NewStringObj(path, -1), Tcl_NewStringObj(schema, -1)});
    Tcl_IncrRefCount(cmd);
    if (Tcl_EvalObjEx(fuzzInterp, cmd, 0) != TCL_OK) {
	fprintf(stderr, "fuzz: %s\n", Tcl_GetStringResult(fuzzInterp));
	abort();
    }
    Tcl_DecrRefCount(cmd);
}
