/*
 * fuzz_oraclegeneral.c --
 *
 *	libFuzzer harness for the oraclegeneral reader (libCacheSim's 24-byte binary records).
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "oraclegeneral"

#include "fuzz_reader.h"
