# Rubicon top-level Makefile.
#
#   make          build the package and the rubicon shell into build/
#   make check    build, run the units, then every unit and tcltest suite
#                 under ASan/UBSan, print "N passed, N failed"
#   make check-valgrind  the units under valgrind memcheck
#   make demo     run examples/demo.tcl on the bundled real SRT trace
#   make bench    speed against hand-written C and common tools
#   make fuzz     run the fuzz harnesses for a bounded time
#   make install  into $(PREFIX)/lib/rubicon$(VERSION) and $(PREFIX)/bin
#
# A fresh clone needs only this file: it installs missing Debian packages
# (as root) and runs autoconf and configure when needed.

VERSION   = 0.1
PREFIX   ?= /usr/local
BUILD    ?= build
SHARED   ?= ../shared
OPT      ?= -O2
SANITIZE ?=

# Missing Debian packages are found before anything is built: as root they
# are installed, otherwise ensure-deps.sh prints the apt-get line and make
# stops here.  The check is redone when ensure-deps.sh changes.
ifeq ($(filter deps clean distclean,$(MAKECMDGOALS)),)
ifneq ($(shell test -f config.mk && test $(BUILD)/.deps-ok -nt scripts/ensure-deps.sh && echo ok),ok)
ifneq ($(shell sh scripts/ensure-deps.sh >&2 && mkdir -p $(BUILD) && touch $(BUILD)/.deps-ok && echo ok),ok)
$(error install the Debian packages named above, then run make again)
endif
endif
endif

-include config.mk

SRCS      := $(shell find generic -name '*.c' | sort)
OBJS      := $(SRCS:%.c=$(BUILD)/obj/%.o)
HDRS      := $(shell find generic -name '*.h')
UNITSRC   := $(sort $(wildcard tests/unit/test_*.c))
UNITBIN   := $(UNITSRC:tests/unit/%.c=$(BUILD)/tests/%)
LIBTCL    := $(sort $(wildcard library/*.tcl))

INCS      = -Igeneric $(TCL_CFLAGS)
CFLAGS_ALL = $(OPT) -g -std=gnu11 -fPIC -Wall -Wextra -Wno-unused-parameter \
	     -Wno-missing-field-initializers -D_GNU_SOURCE -DUSE_TCL_STUBS \
	     $(SANITIZE) $(INCS) $(XLSX_CFLAGS) $(STARDUST_CFLAGS) $(MPI_CFLAGS) $(CFLAGS)
LDLIBS_ALL = -lz -lbz2 -lm -lpthread $(XLSX_LIBS) $(STARDUST_LIBS) $(MPI_LIBS)

.PHONY: all deps check unit tcltest demo bench fuzz install clean distclean \
	check-asan check-valgrind

all: $(BUILD)/librubicon.so $(BUILD)/pkgIndex.tcl $(BUILD)/rubicon $(BUILD)/plugin/liblargeio.so \
     $(BUILD)/paper/libpaperexample.so

config.mk: configure config.mk.in
	./configure -q

configure: configure.ac
	autoconf

deps:
	@sh scripts/ensure-deps.sh

$(BUILD)/obj/%.o: %.c $(HDRS) config.mk
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

# The package's Tcl half is compiled into the library, so the shared
# object and the shell need no library path at run time.
$(BUILD)/gen/libscript.c: $(LIBTCL) scripts/embed.tcl
	@mkdir -p $(dir $@)
	@tclsh scripts/embed.tcl $@ $(LIBTCL)

$(BUILD)/obj/libscript.o: $(BUILD)/gen/libscript.c
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/librubicon.so: $(OBJS) $(BUILD)/obj/libscript.o
	@echo "LD $@"
	@$(CC) -shared $(SANITIZE) -o $@ $^ $(TCL_STUBLIBS) $(LDLIBS_ALL)

$(BUILD)/pkgIndex.tcl: library/pkgIndex.tcl.in
	@sed -e 's/@VERSION@/$(VERSION)/' $< > $@

$(BUILD)/rubicon: unix/rbMain.c $(OBJS) $(BUILD)/obj/libscript.o
	@echo "LD $@"
	@$(CC) $(CFLAGS_ALL) -UUSE_TCL_STUBS -o $@ $^ $(TCL_LIBS) $(TCL_STUBLIBS) $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/rbtest.h $(OBJS) $(BUILD)/obj/libscript.o
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(CFLAGS_ALL) -UUSE_TCL_STUBS $(CHECK_CFLAGS) -Itests/unit -o $@ $< \
	    $(OBJS) $(BUILD)/obj/libscript.o $(TCL_LIBS) $(TCL_STUBLIBS) $(CHECK_LIBS) $(LDLIBS_ALL)

# The example plugin, built as an outside author would build it.
$(BUILD)/plugin/liblargeio.so: examples/plugin/largeIo.c generic/rubicon.h generic/rubiconDecls.h
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(MAKE) --no-print-directory -s -C examples/plugin OUT=$(CURDIR)/$(BUILD)/plugin \
	    CC="$(CC) $(SANITIZE)" TCL_INCLUDE="$(patsubst -I%,%,$(TCL_CFLAGS))"

# The paper's extension examples (its Figures 5 to 7), built the same way.
$(BUILD)/paper/libpaperexample.so: examples/paper/avRequestSize.c generic/rubicon.h generic/rubiconDecls.h
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(MAKE) --no-print-directory -s -C examples/paper OUT=$(CURDIR)/$(BUILD)/paper \
	    CC="$(CC) $(SANITIZE)" TCL_INCLUDE="$(patsubst -I%,%,$(TCL_CFLAGS))"

unit: all $(UNITBIN)
	@JOBS=$(JOBS) sh tests/run-unit.sh $(BUILD) $(UNITBIN)

tcltest: all
	@sh tests/run-tcltest.sh $(BUILD) $(SHARED) $(JOBS)

# The full check, in two builds: the C units on the optimised build, then
# the units and every tcltest file on the ASan/UBSan build in build-asan/.
# Test programs and tcltest files run JOBS at a time.  Memcheck is not part
# of it (the units under ASan with leak detection cover what it finds but
# reads of uninitialised memory, at a twentieth of the cost): run
# `make check-valgrind` for it.
JOBS     ?= 2
JFLAG     = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS))
ASANFLAGS = BUILD=build-asan OPT=-O1 \
	    SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

check:
	@$(MAKE) --no-print-directory $(JFLAG) all $(UNITBIN)
	@rm -f $(BUILD)/results.txt
	@JOBS=$(JOBS) sh tests/run-unit.sh $(BUILD) $(UNITBIN) | tee -a $(BUILD)/results.txt
	@$(MAKE) --no-print-directory check-asan RESULTS=$(CURDIR)/$(BUILD)/results.txt
	@sh tests/summary.sh $(BUILD)/results.txt

check-asan:
	@$(MAKE) --no-print-directory $(JFLAG) $(ASANFLAGS) all asan-units
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 JOBS=$(JOBS) \
	    sh tests/run-unit.sh build-asan $(patsubst $(BUILD)/%,build-asan/%,$(UNITBIN)) | sed 's/^/asan /' | tee -a $(RESULTS)
	@LD_PRELOAD=$$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 \
	    sh tests/run-tcltest.sh build-asan $(SHARED) $(JOBS) | sed 's/^/asan /' | tee -a $(RESULTS)

asan-units: $(UNITBIN)

check-valgrind: $(UNITBIN)
	@rm -f $(BUILD)/results-valgrind.txt
	@VALGRIND=1 JOBS=$(JOBS) sh tests/run-unit.sh $(BUILD) $(UNITBIN) | sed 's/^/valgrind /' | tee -a $(BUILD)/results-valgrind.txt
	@sh tests/summary.sh $(BUILD)/results-valgrind.txt

demo: all
	@test -f $(SHARED)/data/srt/hourly.03126.srt.bz2 || \
	    { echo "demo: the bundled trace $(SHARED)/data/srt/hourly.03126.srt.bz2 is missing"; exit 1; }
	@mkdir -p $(BUILD)/demo
	cd $(BUILD)/demo && ../rubicon ../../examples/demo.tcl ../../$(SHARED)/data/srt/hourly.03126.srt.bz2
	@echo "demo: reports written to $(BUILD)/demo/"

bench: all
	@sh tests/bench/run.sh $(BUILD)

fuzz:
	@sh tests/fuzz/run.sh

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/lib/rubicon$(VERSION) $(DESTDIR)$(PREFIX)/bin
	cp $(BUILD)/librubicon.so $(BUILD)/pkgIndex.tcl $(DESTDIR)$(PREFIX)/lib/rubicon$(VERSION)/
	cp $(BUILD)/rubicon $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build build-asan

distclean: clean
	rm -rf config.mk configure config.log config.status autom4te.cache
