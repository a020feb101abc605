/*
 * fuzz_csv.c --
 *
 *	libFuzzer harness for the csv reader through a column map that
 *	takes most of its paths: units, op spellings, hex, response.
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "csv"
#define FUZZ_OPTIONS "columns {time 1 op 2 size 3 offset 4 response 5 deviceNo 6} timeunit us offsetunit sectors readvalue {R 28} writevalue {W 2a}"
#include "fuzz_reader.h"
