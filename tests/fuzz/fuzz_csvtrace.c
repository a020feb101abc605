/*
 * fuzz_csvtrace.c --
 *
 *	libFuzzer harness for the csv reader without a column map: the
 *	CSV TraceWriter writes, its "# rubicon-trace" first line, the
 *	schemas it declares and the quoted cells of event records.
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "csv"

#include "fuzz_reader.h"
