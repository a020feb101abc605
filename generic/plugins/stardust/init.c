/*
 * init.c --
 *
 *	RbStardustInit: registers the Stardust plugin in an interpreter --
 *	the activity-record readers (once per process), the analyzers and
 *	the stardust:: commands -- through the public API only.
 */

/* Built as the package rubicon::stardust (libstardust.so), this file holds its
 * copy of the stubs pointer: the plugin reaches Rubicon through the stubs
 * table only, as an outside plugin does. */
#define RUBICON_STUBS_IMPLEMENTATION
#include "plugins/stardust/stardust.h"

/*
 * The queries over a StardustFlowGraphAnalyzer's Attributes, in Tcl: they
 * read RequestPoints and FlowGraphDot back like any user would.
 */
static const char queryScript[] =
"namespace eval ::stardust {\n"
"    # latency FLOW A B ?-all?: mean time from A to B over the requests\n"
"    # that reach both (first time at each), or with -all the list of\n"
"    # {request seconds}.\n"
"    proc latency {flow a b args} {\n"
"        set at {}\n"
"        foreach row [dict get [$flow get RequestPoints] rows] {\n"
"            lassign $row req point t\n"
"            if {$point eq $a || $point eq $b} {dict set at $req $point $t}\n"
"        }\n"
"        set out {}\n"
"        dict for {req pts} $at {\n"
"            if {[dict exists $pts $a] && [dict exists $pts $b]} {\n"
"                lappend out $req [expr {[dict get $pts $b] - [dict get $pts $a]}]\n"
"            }\n"
"        }\n"
"        if {$args eq \"-all\"} {return $out}\n"
"        if {[llength $out] == 0} {\n"
"            return -code error -errorcode {RUBICON STARDUST POINT} \\\n"
"                \"no request reaches both \\\"$a\\\" and \\\"$b\\\"\"\n"
"        }\n"
"        set sum 0.0\n"
"        foreach {req d} $out {set sum [expr {$sum + $d}]}\n"
"        expr {$sum / ([llength $out] / 2)}\n"
"    }\n"
"    # dot FLOW ?FILE?: the flow graph in DOT, returned or written.\n"
"    proc dot {flow {file {}}} {\n"
"        set text [$flow get FlowGraphDot]\n"
"        if {$file eq {}} {return $text}\n"
"        set ch [open $file w]\n"
"        puts -nonewline $ch $text\n"
"        close $ch\n"
"        return $file\n"
"    }\n"
"}\n";

/*
 * ActivitySchema --
 *	The schema of activity records of type set arg (default "default"),
 *	for "Filter -schema stardust ?:set? ...", with a reference.
 */
static Rb_Schema *
ActivitySchema(const char *arg, Rb_Error *err)
{
    SdTypeSet *set = Sd_TypeSetGet(arg && *arg ? arg : SD_DEFAULT_SET);
    Rb_Schema *schema = set->schema;

    Rb_SchemaRetain(schema);
    Sd_TypeSetRelease(set);
    return schema;
}

/*
 * RbStardustInit --
 *	Called by Rubicon_Init for every interpreter.  Readers are
 *	process-wide; registering one again replaces it with itself, but
 *	doing it once keeps the registry quiet.
 * Results: TCL_OK or TCL_ERROR with a message in interp.
 */
int
RbStardustInit(Tcl_Interp *interp)
{
    static int readersDone = 0;
    static Tcl_Mutex readersMutex __attribute__((unused));

    Tcl_MutexLock(&readersMutex);
    if (!readersDone) {
	Rb_RegisterReader(&Sd_BinaryReaderClass);
	Rb_RegisterReader(&Sd_TextReaderClass);
	Rb_RegisterSchema("stardust", ActivitySchema);
#ifdef HAVE_JANSSON
	Rb_RegisterReader(&Sd_ZipkinReaderClass);
	Rb_RegisterReader(&Sd_OtlpReaderClass);
#endif
	readersDone = 1;
    }
    Tcl_MutexUnlock(&readersMutex);
    if (Rb_RegisterAnalyzer(interp, &Sd_DemandAnalyzerClass) != TCL_OK
	    || Rb_RegisterAnalyzer(interp, &Sd_FlowGraphAnalyzerClass) != TCL_OK
	    || Sd_TypesInitCmds(interp) != TCL_OK) {
	return TCL_ERROR;
    }
#ifdef HAVE_JANSSON
    Sd_SpansInitCmds(interp);
#endif
#ifdef HAVE_SQLITE3
    if (Rb_RegisterAnalyzer(interp, &Sd_DatabaseAnalyzerClass) != TCL_OK) {
	return TCL_ERROR;
    }
#endif
    return Tcl_Eval(interp, queryScript);
}

#ifdef USE_RUBICON_STUBS
/*
 * Stardust_Init --
 *	The entry of the package rubicon::stardust: binds to Tcl and Rubicon
 *	through their stubs tables and registers the plugin.  "package
 *	require rubicon" and the rubicon program load it by default.
 * Results: TCL_OK, or TCL_ERROR with the reason in interp.
 * Side effects: provides rubicon::stardust; creates its commands.
 */
int
Stardust_Init(Tcl_Interp *interp)
{
    return Rubicon_InitPlugin(interp, "rubicon::stardust", RbStardustInit);
}

/*
 * Stardust_SafeInit --
 *	The same in a safe interpreter (rubicon -safe), whose file access
 *	the engine restricts.
 */
int
Stardust_SafeInit(Tcl_Interp *interp)
{
    return Stardust_Init(interp);
}
#endif /* USE_RUBICON_STUBS */
