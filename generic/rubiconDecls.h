/*
 * rubiconDecls.h --
 *
 *	The stubs table of the public API.  A plugin built outside the tree
 *	compiles with -DUSE_RUBICON_STUBS (and -DUSE_TCL_STUBS), defines
 *	RUBICON_STUBS_IMPLEMENTATION in exactly one of its files, and calls
 *	Rubicon_InitStubs(interp) in its init function: every Rb_ call then
 *	goes through the table the loaded rubicon package provides, so the
 *	plugin links against nothing but the Tcl stub library.
 *
 *	RB_STUB_FUNCTIONS must list every function rubicon.h declares
 *	(tests/plugin.test checks that it does).
 */

#ifndef RUBICON_DECLS_H
#define RUBICON_DECLS_H

/* The table's own layout; bumped when the fields before the functions
 * change. */
#define RUBICON_STUBS_MAGIC 0x52624232	/* "RbB2" */

#define RB_STUB_FUNCTIONS(X) \
    X(Rb_SetError) \
    X(Rb_ErrorToInterp) \
    X(Rb_SetInterpError) \
    X(Rb_SchemaCreate) \
    X(Rb_SchemaAddField) \
    X(Rb_SchemaFieldIndex) \
    X(Rb_SchemaRetain) \
    X(Rb_SchemaRelease) \
    X(Rb_SchemaIntern) \
    X(Rb_SchemaString) \
    X(Rb_SchemaFieldList) \
    X(Rb_IoSchema) \
    X(Rb_BatchCreate) \
    X(Rb_BatchFree) \
    X(Rb_BatchClear) \
    X(Rb_BatchAppend) \
    X(Rb_BatchCopyRecord) \
    X(Rb_FieldAsDouble) \
    X(Rb_AttrKindName) \
    X(Rb_AttrCreate) \
    X(Rb_AttrAddColumn) \
    X(Rb_AttrAddRow) \
    X(Rb_AttrSetNum) \
    X(Rb_AttrSetText) \
    X(Rb_AttrNum) \
    X(Rb_AttrColumnIndex) \
    X(Rb_AttrFree) \
    X(Rb_AttrToObj) \
    X(Rb_AttrScalar) \
    X(Rb_AttrTextNew) \
    X(Rb_RegisterAnalyzer) \
    X(Rb_AnalyzerSet) \
    X(Rb_AnalyzerField) \
    X(Rb_AnalyzerNeeds) \
    X(Rb_FlowFromObj) \
    X(Rb_FlowGetAttr) \
    X(Rb_FlowName) \
    X(Rb_AnalyzerError) \
    X(Rb_RegisterReporter) \
    X(Rb_ReporterEach) \
    X(Rb_OutOpen) \
    X(Rb_OutClose) \
    X(Rb_OutAbort) \
    X(Rb_InputOpen) \
    X(Rb_InputRead) \
    X(Rb_InputReadFull) \
    X(Rb_InputGetLine) \
    X(Rb_InputPeek) \
    X(Rb_InputOffset) \
    X(Rb_InputLineNo) \
    X(Rb_InputPath) \
    X(Rb_InputCompression) \
    X(Rb_InputClose) \
    X(Rb_RegisterReader) \
    X(Rb_FindReader) \
    X(Rb_Readers) \
    X(Rb_ReaderOpen) \
    X(Rb_ReaderNext) \
    X(Rb_ReaderClose) \
    X(Rb_ReaderBad) \
    X(Rb_RegisterTransformer) \
    X(Rb_ParseTime) \
    X(Rb_FormatTime) \
    X(Rb_FilterCompile) \
    X(Rb_FilterSelect) \
    X(Rb_FilterMatch) \
    X(Rb_FilterIsEquality) \
    X(Rb_FilterSource) \
    X(Rb_FilterFree) \
    X(Rb_RegisterSchema) \
    X(Rb_AnalyzerTypedField) \
    X(Rb_SafeCheckWrite) \
    X(Rb_Alloc) \
    X(Rb_Realloc) \
    X(Rb_Strdup) \
    X(Rb_AllocArray) \
    X(Rb_ReallocArray) \
    X(Rb_JsonString) \
    X(Rb_TimeBinsStart) \
    X(Rb_TimeBinsSetOrigin) \
    X(Rb_TimeBinsCover) \
    X(Rb_TimeBinsAddColumn) \
    X(Rb_TimeBinsMerge) \
    X(Rb_TimeBinsAddBins) \
    X(Rb_TimeBinsValues) \
    X(Rb_TimeBinsValuesOn) \
    X(Rb_TimeBinsRange) \
    X(Rb_TimeBinsSeries) \
    X(Rb_TimeBinsPeakToMean) \
    X(Rb_TimeBinsFree) \
    X(Rb_TimeBinsPut) \
    X(Rb_TimeBinsGet) \
    X(Rb_MomentsReset) \
    X(Rb_MomentsMerge) \
    X(Rb_MomentsStddev) \
    X(Rb_MomentsPut) \
    X(Rb_MomentsGet) \
    X(Rb_LogHistReset) \
    X(Rb_LogHistAdd) \
    X(Rb_LogHistMerge) \
    X(Rb_LogHistPercentile) \
    X(Rb_LogHistAttr) \
    X(Rb_LogHistFree) \
    X(Rb_LogHistPut) \
    X(Rb_LogHistGet) \
    X(Rb_KeyTableInit) \
    X(Rb_KeyTableFind) \
    X(Rb_KeyTableFindLimited) \
    X(Rb_KeyTableRemove) \
    X(Rb_KeyTableClear) \
    X(Rb_KeyTableSortedSlots) \
    X(Rb_KeyTableFree) \
    X(Rb_KeyTablePut) \
    X(Rb_KeyTableGet) \
    X(Rb_FlowScratchCreate) \
    X(Rb_FlowScratchClear) \
    X(Rb_FlowScratchFree) \
    X(Rb_CacheSimCreate) \
    X(Rb_CacheSimAccess) \
    X(Rb_CacheSimFree) \
    X(Rb_BufPutKey) \
    X(Rb_BufGetKey) \
    X(Rb_SafeOutputLeft) \
    X(Rb_SafeOutputCharge) \
    X(Rb_SafeCheckRead) \
    X(Rb_ObjectSchema) \
    X(Rb_ObjectKeyHash) \
    X(Rb_ReaderTimeJump) \
    X(Rb_AnalyzerPastLimit)

typedef struct Rb_Stubs {
    int magic;
    int count;			/* number of functions, for versioning */
    /* The sizes of the class structures a plugin fills in, as the library
     * was built: a plugin built against another layout of rubicon.h is
     * refused when it loads, rather than the engine reading past the end
     * of an older, shorter class (see Rb_StubsMismatch). */
    unsigned short analyzerClassSize;
    unsigned short reporterClassSize;
    unsigned short readerClassSize;
    unsigned short transformerClassSize;
    unsigned short optionSize;
#define RB_STUB_MEMBER(fn) __typeof__(fn) *fn##_p;
    RB_STUB_FUNCTIONS(RB_STUB_MEMBER)
#undef RB_STUB_MEMBER
} Rb_Stubs;

#define RB_STUBS_LAYOUT \
    (unsigned short)sizeof(Rb_AnalyzerClass), \
    (unsigned short)sizeof(Rb_ReporterClass), \
    (unsigned short)sizeof(Rb_ReaderClass), \
    (unsigned short)sizeof(Rb_TransformerClass), \
    (unsigned short)sizeof(Rb_Option)

/*
 * Rb_StubsMismatch --
 *	Compares a loaded library's stubs table with the rubicon.h this file
 *	is compiled against (the plugin's).
 * Results: NULL when they agree, else what differs, for an error message.
 */
static inline const char *
Rb_StubsMismatch(const Rb_Stubs *t)
{
    static const Rb_Stubs here = {RUBICON_STUBS_MAGIC, 0, RB_STUBS_LAYOUT};
    const int nfuncs = (int)((sizeof(Rb_Stubs)
	    - offsetof(Rb_Stubs, Rb_SetError_p)) / sizeof(void (*)(void)));

    if (t == NULL || t->magic != RUBICON_STUBS_MAGIC) {
	return "the stubs table's layout";
    }
    if (t->count < nfuncs) {
	return "the number of API functions (the library is older)";
    }
    if (t->analyzerClassSize != here.analyzerClassSize) {
	return "the size of Rb_AnalyzerClass";
    }
    if (t->reporterClassSize != here.reporterClassSize) {
	return "the size of Rb_ReporterClass";
    }
    if (t->readerClassSize != here.readerClassSize) {
	return "the size of Rb_ReaderClass";
    }
    if (t->transformerClassSize != here.transformerClassSize) {
	return "the size of Rb_TransformerClass";
    }
    if (t->optionSize != here.optionSize) {
	return "the size of Rb_Option";
    }
    return NULL;
}

#ifdef USE_RUBICON_STUBS
extern const Rb_Stubs *rbStubsPtr;
const char *Rubicon_InitStubs(Tcl_Interp *interp);

#define Rb_SetError (rbStubsPtr->Rb_SetError_p)
#define Rb_ErrorToInterp (rbStubsPtr->Rb_ErrorToInterp_p)
#define Rb_SetInterpError (rbStubsPtr->Rb_SetInterpError_p)
#define Rb_SchemaCreate (rbStubsPtr->Rb_SchemaCreate_p)
#define Rb_SchemaAddField (rbStubsPtr->Rb_SchemaAddField_p)
#define Rb_SchemaFieldIndex (rbStubsPtr->Rb_SchemaFieldIndex_p)
#define Rb_SchemaRetain (rbStubsPtr->Rb_SchemaRetain_p)
#define Rb_SchemaRelease (rbStubsPtr->Rb_SchemaRelease_p)
#define Rb_SchemaIntern (rbStubsPtr->Rb_SchemaIntern_p)
#define Rb_SchemaString (rbStubsPtr->Rb_SchemaString_p)
#define Rb_SchemaFieldList (rbStubsPtr->Rb_SchemaFieldList_p)
#define Rb_IoSchema (rbStubsPtr->Rb_IoSchema_p)
#define Rb_ObjectSchema (rbStubsPtr->Rb_ObjectSchema_p)
#define Rb_ObjectKeyHash (rbStubsPtr->Rb_ObjectKeyHash_p)
#define Rb_ReaderTimeJump (rbStubsPtr->Rb_ReaderTimeJump_p)
#define Rb_AnalyzerPastLimit (rbStubsPtr->Rb_AnalyzerPastLimit_p)
#define Rb_BatchCreate (rbStubsPtr->Rb_BatchCreate_p)
#define Rb_BatchFree (rbStubsPtr->Rb_BatchFree_p)
#define Rb_BatchClear (rbStubsPtr->Rb_BatchClear_p)
#define Rb_BatchAppend (rbStubsPtr->Rb_BatchAppend_p)
#define Rb_BatchCopyRecord (rbStubsPtr->Rb_BatchCopyRecord_p)
#define Rb_FieldAsDouble (rbStubsPtr->Rb_FieldAsDouble_p)
#define Rb_AttrKindName (rbStubsPtr->Rb_AttrKindName_p)
#define Rb_AttrCreate (rbStubsPtr->Rb_AttrCreate_p)
#define Rb_AttrAddColumn (rbStubsPtr->Rb_AttrAddColumn_p)
#define Rb_AttrAddRow (rbStubsPtr->Rb_AttrAddRow_p)
#define Rb_AttrSetNum (rbStubsPtr->Rb_AttrSetNum_p)
#define Rb_AttrSetText (rbStubsPtr->Rb_AttrSetText_p)
#define Rb_AttrNum (rbStubsPtr->Rb_AttrNum_p)
#define Rb_AttrColumnIndex (rbStubsPtr->Rb_AttrColumnIndex_p)
#define Rb_AttrFree (rbStubsPtr->Rb_AttrFree_p)
#define Rb_AttrToObj (rbStubsPtr->Rb_AttrToObj_p)
#define Rb_AttrScalar (rbStubsPtr->Rb_AttrScalar_p)
#define Rb_AttrTextNew (rbStubsPtr->Rb_AttrTextNew_p)
#define Rb_RegisterAnalyzer (rbStubsPtr->Rb_RegisterAnalyzer_p)
#define Rb_AnalyzerSet (rbStubsPtr->Rb_AnalyzerSet_p)
#define Rb_AnalyzerField (rbStubsPtr->Rb_AnalyzerField_p)
#define Rb_AnalyzerNeeds (rbStubsPtr->Rb_AnalyzerNeeds_p)
#define Rb_FlowFromObj (rbStubsPtr->Rb_FlowFromObj_p)
#define Rb_FlowGetAttr (rbStubsPtr->Rb_FlowGetAttr_p)
#define Rb_FlowName (rbStubsPtr->Rb_FlowName_p)
#define Rb_AnalyzerError (rbStubsPtr->Rb_AnalyzerError_p)
#define Rb_RegisterReporter (rbStubsPtr->Rb_RegisterReporter_p)
#define Rb_ReporterEach (rbStubsPtr->Rb_ReporterEach_p)
#define Rb_OutOpen (rbStubsPtr->Rb_OutOpen_p)
#define Rb_OutClose (rbStubsPtr->Rb_OutClose_p)
#define Rb_OutAbort (rbStubsPtr->Rb_OutAbort_p)
#define Rb_InputOpen (rbStubsPtr->Rb_InputOpen_p)
#define Rb_InputRead (rbStubsPtr->Rb_InputRead_p)
#define Rb_InputReadFull (rbStubsPtr->Rb_InputReadFull_p)
#define Rb_InputGetLine (rbStubsPtr->Rb_InputGetLine_p)
#define Rb_InputPeek (rbStubsPtr->Rb_InputPeek_p)
#define Rb_InputOffset (rbStubsPtr->Rb_InputOffset_p)
#define Rb_InputLineNo (rbStubsPtr->Rb_InputLineNo_p)
#define Rb_InputPath (rbStubsPtr->Rb_InputPath_p)
#define Rb_InputCompression (rbStubsPtr->Rb_InputCompression_p)
#define Rb_InputClose (rbStubsPtr->Rb_InputClose_p)
#define Rb_RegisterReader (rbStubsPtr->Rb_RegisterReader_p)
#define Rb_FindReader (rbStubsPtr->Rb_FindReader_p)
#define Rb_Readers (rbStubsPtr->Rb_Readers_p)
#define Rb_ReaderOpen (rbStubsPtr->Rb_ReaderOpen_p)
#define Rb_ReaderNext (rbStubsPtr->Rb_ReaderNext_p)
#define Rb_ReaderClose (rbStubsPtr->Rb_ReaderClose_p)
#define Rb_ReaderBad (rbStubsPtr->Rb_ReaderBad_p)
#define Rb_RegisterTransformer (rbStubsPtr->Rb_RegisterTransformer_p)
#define Rb_ParseTime (rbStubsPtr->Rb_ParseTime_p)
#define Rb_FormatTime (rbStubsPtr->Rb_FormatTime_p)
#define Rb_FilterCompile (rbStubsPtr->Rb_FilterCompile_p)
#define Rb_FilterSelect (rbStubsPtr->Rb_FilterSelect_p)
#define Rb_FilterMatch (rbStubsPtr->Rb_FilterMatch_p)
#define Rb_FilterIsEquality (rbStubsPtr->Rb_FilterIsEquality_p)
#define Rb_FilterSource (rbStubsPtr->Rb_FilterSource_p)
#define Rb_FilterFree (rbStubsPtr->Rb_FilterFree_p)
#define Rb_RegisterSchema (rbStubsPtr->Rb_RegisterSchema_p)
#define Rb_AnalyzerTypedField (rbStubsPtr->Rb_AnalyzerTypedField_p)
#define Rb_SafeCheckWrite (rbStubsPtr->Rb_SafeCheckWrite_p)
#define Rb_Alloc (rbStubsPtr->Rb_Alloc_p)
#define Rb_Realloc (rbStubsPtr->Rb_Realloc_p)
#define Rb_Strdup (rbStubsPtr->Rb_Strdup_p)
#define Rb_AllocArray (rbStubsPtr->Rb_AllocArray_p)
#define Rb_ReallocArray (rbStubsPtr->Rb_ReallocArray_p)
#define Rb_JsonString (rbStubsPtr->Rb_JsonString_p)
#define Rb_TimeBinsStart (rbStubsPtr->Rb_TimeBinsStart_p)
#define Rb_TimeBinsSetOrigin (rbStubsPtr->Rb_TimeBinsSetOrigin_p)
#define Rb_TimeBinsCover (rbStubsPtr->Rb_TimeBinsCover_p)
#define Rb_TimeBinsAddColumn (rbStubsPtr->Rb_TimeBinsAddColumn_p)
#define Rb_TimeBinsMerge (rbStubsPtr->Rb_TimeBinsMerge_p)
#define Rb_TimeBinsAddBins (rbStubsPtr->Rb_TimeBinsAddBins_p)
#define Rb_TimeBinsValues (rbStubsPtr->Rb_TimeBinsValues_p)
#define Rb_TimeBinsValuesOn (rbStubsPtr->Rb_TimeBinsValuesOn_p)
#define Rb_TimeBinsRange (rbStubsPtr->Rb_TimeBinsRange_p)
#define Rb_TimeBinsSeries (rbStubsPtr->Rb_TimeBinsSeries_p)
#define Rb_TimeBinsPeakToMean (rbStubsPtr->Rb_TimeBinsPeakToMean_p)
#define Rb_TimeBinsFree (rbStubsPtr->Rb_TimeBinsFree_p)
#define Rb_TimeBinsPut (rbStubsPtr->Rb_TimeBinsPut_p)
#define Rb_TimeBinsGet (rbStubsPtr->Rb_TimeBinsGet_p)
#define Rb_MomentsReset (rbStubsPtr->Rb_MomentsReset_p)
#define Rb_MomentsMerge (rbStubsPtr->Rb_MomentsMerge_p)
#define Rb_MomentsStddev (rbStubsPtr->Rb_MomentsStddev_p)
#define Rb_MomentsPut (rbStubsPtr->Rb_MomentsPut_p)
#define Rb_MomentsGet (rbStubsPtr->Rb_MomentsGet_p)
#define Rb_LogHistReset (rbStubsPtr->Rb_LogHistReset_p)
#define Rb_LogHistAdd (rbStubsPtr->Rb_LogHistAdd_p)
#define Rb_LogHistMerge (rbStubsPtr->Rb_LogHistMerge_p)
#define Rb_LogHistPercentile (rbStubsPtr->Rb_LogHistPercentile_p)
#define Rb_LogHistAttr (rbStubsPtr->Rb_LogHistAttr_p)
#define Rb_LogHistFree (rbStubsPtr->Rb_LogHistFree_p)
#define Rb_LogHistPut (rbStubsPtr->Rb_LogHistPut_p)
#define Rb_LogHistGet (rbStubsPtr->Rb_LogHistGet_p)
#define Rb_KeyTableInit (rbStubsPtr->Rb_KeyTableInit_p)
#define Rb_KeyTableFind (rbStubsPtr->Rb_KeyTableFind_p)
#define Rb_KeyTableFindLimited (rbStubsPtr->Rb_KeyTableFindLimited_p)
#define Rb_KeyTableRemove (rbStubsPtr->Rb_KeyTableRemove_p)
#define Rb_KeyTableClear (rbStubsPtr->Rb_KeyTableClear_p)
#define Rb_KeyTableSortedSlots (rbStubsPtr->Rb_KeyTableSortedSlots_p)
#define Rb_KeyTableFree (rbStubsPtr->Rb_KeyTableFree_p)
#define Rb_KeyTablePut (rbStubsPtr->Rb_KeyTablePut_p)
#define Rb_KeyTableGet (rbStubsPtr->Rb_KeyTableGet_p)
#define Rb_FlowScratchCreate (rbStubsPtr->Rb_FlowScratchCreate_p)
#define Rb_FlowScratchClear (rbStubsPtr->Rb_FlowScratchClear_p)
#define Rb_FlowScratchFree (rbStubsPtr->Rb_FlowScratchFree_p)
#define Rb_CacheSimCreate (rbStubsPtr->Rb_CacheSimCreate_p)
#define Rb_CacheSimAccess (rbStubsPtr->Rb_CacheSimAccess_p)
#define Rb_CacheSimFree (rbStubsPtr->Rb_CacheSimFree_p)
#define Rb_BufPutKey (rbStubsPtr->Rb_BufPutKey_p)
#define Rb_BufGetKey (rbStubsPtr->Rb_BufGetKey_p)
#define Rb_SafeOutputLeft (rbStubsPtr->Rb_SafeOutputLeft_p)
#define Rb_SafeOutputCharge (rbStubsPtr->Rb_SafeOutputCharge_p)
#define Rb_SafeCheckRead (rbStubsPtr->Rb_SafeCheckRead_p)

#ifdef RUBICON_STUBS_IMPLEMENTATION
const Rb_Stubs *rbStubsPtr;

/*
 * Rubicon_InitStubs --
 *	Requires the rubicon package and takes its stubs table.
 * Results: the version, or NULL with an error in interp.
 */
const char *
Rubicon_InitStubs(Tcl_Interp *interp)
{
    ClientData data = NULL;
    const char *version = Tcl_PkgRequireEx(interp, "rubicon", RUBICON_VERSION,
	    0, &data);
    const char *why;

    if (version == NULL) {
	return NULL;
    }
    why = Rb_StubsMismatch(data);
    if (why != NULL) {
	Tcl_SetObjResult(interp, Tcl_ObjPrintf("this plugin was built against"
		" another rubicon.h than the loaded rubicon %s: %s differs;"
		" rebuild the plugin against the installed rubicon.h",
		version, why));
	Tcl_SetErrorCode(interp, "RUBICON", "PLUGIN", "ABI", NULL);
	return NULL;
    }
    rbStubsPtr = data;
    return version;
}

/*
 * Rubicon_InitPlugin --
 *	The whole entry of a plugin package: binds to Tcl and Rubicon
 *	through their stubs tables, calls init to register the plugin's
 *	classes and commands, and provides the package name at
 *	RUBICON_VERSION.  While it requires rubicon it marks itself in
 *	::rubicon_plugin_loading(name), so that "package require rubicon",
 *	which loads the shipped plugins, does not require it again.
 * Results: TCL_OK, or TCL_ERROR with the reason in interp.
 * Side effects: loads rubicon if it is not loaded; provides name.
 */
static inline int
Rubicon_InitPlugin(Tcl_Interp *interp, const char *name,
	int (*init)(Tcl_Interp *interp))
{
    const char *core;

    if (Tcl_InitStubs(interp, "8.6", 0) == NULL) {
	return TCL_ERROR;
    }
    Tcl_SetVar2(interp, "::rubicon_plugin_loading", name, "1",
	    TCL_GLOBAL_ONLY);
    core = Rubicon_InitStubs(interp);
    Tcl_UnsetVar2(interp, "::rubicon_plugin_loading", name, TCL_GLOBAL_ONLY);
    Tcl_Eval(interp, "if {![array size ::rubicon_plugin_loading]} "
	    "{unset ::rubicon_plugin_loading}");
    if (core == NULL || init(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    return Tcl_PkgProvide(interp, name, RUBICON_VERSION);
}
#endif /* RUBICON_STUBS_IMPLEMENTATION */
#endif /* USE_RUBICON_STUBS */

#endif /* RUBICON_DECLS_H */
